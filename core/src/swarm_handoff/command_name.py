"""How the user can type this program's name, for hints that quote a command to run.

Kept out of `demo.py` so that the hint `discover` prints does not import the demo's machinery.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

COMMAND = "swarm-handoff"


def command_name(argv0: str | None = None, cwd: Path | None = None) -> str:
    """Name the executable as the user can type it: `swarm-handoff` only when PATH finds this one."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    if not Path(argv0).name.startswith(COMMAND):  # not run through the console script (python -m, tests)
        return COMMAND
    found = _which(COMMAND)
    if found and os.path.realpath(found) == os.path.realpath(argv0):
        return COMMAND
    path = Path(argv0)
    if path.is_absolute():
        try:
            return str(path.relative_to(cwd or Path.cwd()))
        except (ValueError, OSError):  # elsewhere, or the working directory was removed: the full path
            return str(path)
    return argv0 if "/" in argv0 or os.sep in argv0 else f"./{argv0}"


def _which(command: str) -> str | None:
    """`shutil.which` for a bare name, without importing shutil (a `discover` hint is printed at start-up speed)."""
    if os.name == "nt":  # PATHEXT, the current folder first: shutil knows Windows' rules
        import shutil

        return shutil.which(command)
    path = os.environ.get("PATH")
    if path is None:
        try:
            path = os.confstr("CS_PATH")
        except (AttributeError, ValueError):
            path = os.defpath
    if not path:
        return None
    for folder in path.split(os.pathsep):
        candidate = os.path.join(folder, command)
        if os.path.exists(candidate) and os.access(candidate, os.F_OK | os.X_OK) and not os.path.isdir(candidate):
            return candidate
    return None
