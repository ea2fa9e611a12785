"""Run a command with the config and cache folders of its own, leaving the user's untouched.

`swarm-handoff demo` runs in `demo_sandbox()`: its hand-off never enters the user's history and
nothing of the user's config is read; the temporary folder is removed afterwards and the
variables restored. It imports nothing of the product, so the command line's `demo` adapter
stands on it, not on the demo itself.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# The folders the demo must not touch, redirected for its run.
SANDBOXED = {"CLAUDE_CONFIG_DIR": "config", "XDG_CACHE_HOME": "cache"}


@contextmanager
def demo_sandbox() -> Iterator[Path]:
    """Point the config and cache folders at a temporary one for the demo, then remove it and restore."""
    sandbox = Path(tempfile.mkdtemp(prefix="swarm-demo-"))
    saved = {name: os.environ.get(name) for name in SANDBOXED}
    try:
        for name, sub in SANDBOXED.items():
            (sandbox / sub).mkdir()
            os.environ[name] = str(sandbox / sub)
        yield sandbox
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(sandbox, ignore_errors=True)
