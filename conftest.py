"""Settings shared by every test suite in the repository (pytest finds this file above each tests/ folder).

Property tests never time an example (no wall-clock limit in a unit test). They draw new
examples on every run; on CI (`CI` set) they draw the same ones each time (`derandomize`): a
landing must not depend on which inputs a run happened to draw or on how loaded the machine was.
Locally they stay random, which is how they find bugs.
"""

from __future__ import annotations

import os

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
