"""Settings shared by every test suite in the repository (pytest finds this file above each tests/ folder).

Property tests never time an example (no wall-clock limit in a unit test). They draw new
examples on every run; on CI (`CI` set) they draw the same ones each time (`derandomize`): a
landing must not depend on which inputs a run happened to draw or on how loaded the machine was.
Locally they stay random, which is how they find bugs.

A test run never writes the user's cache (`~/.cache/swarm-handoff`): the session's cache folder
(`XDG_CACHE_HOME`) is a temporary one, made when pytest starts (before any test module is
imported) and removed when it ends, and the commands a test starts inherit it. A test that
needs a cache of its own still sets one (the core's suite gives every test its own).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

_SESSION_CACHE: list[str] = []


def pytest_configure(config: Any) -> None:
    """Point the cache folder at a temporary one for the whole run (each xdist worker its own)."""
    folder = tempfile.mkdtemp(prefix="swarm-handoff-test-cache-")
    _SESSION_CACHE.append(folder)
    os.environ["XDG_CACHE_HOME"] = folder


def pytest_unconfigure(config: Any) -> None:
    """Remove the run's cache folder."""
    while _SESSION_CACHE:
        shutil.rmtree(_SESSION_CACHE.pop(), ignore_errors=True)


try:
    from hypothesis import settings
except ImportError:  # a session without the property tests' extra
    pass
else:
    # No wall-clock limit in a unit test, anywhere: hypothesis' default 200 ms deadline failed
    # loaded runs on examples that take 2 ms on replay.
    settings.register_profile("swarm", deadline=None)
    settings.register_profile("ci", parent=settings.get_profile("swarm"), derandomize=True, print_blob=True)
    ci = os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no"}
    settings.load_profile("ci" if ci else "swarm")
