"""What a receiver killed mid-write leaves under its session root, and the clean-up at its next start.

`accept_incoming` (`incoming.py`) writes under the root in two places only: a quarantine copy of the
payload being checked in `INBOX`, named `PID-MACHINE-HASH16-RAND8.json`, and the accepted payload in
a session folder `a2a-*/handoffs`, through `safefs` (whose temporaries are `.NAME.PID-MACHINE.HEX12.tmp`).
`clear_leftovers` removes those names only, and only once their writer provably stopped.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from pathlib import Path

from swarm_handoff import safefs

INBOX = ".incoming"  # under the session root: payloads being checked, each under a name `_QUARANTINE` matches
# PID-MACHINE-HASH16-RAND8.json (PID-HASH16-RAND8.json before the machine was in the name)
_QUARANTINE = re.compile(r"(\d{1,10}(?:-[0-9a-f]{8})?)-[0-9a-f]{16}-[0-9a-f]{8}\.json\Z")
SESSION_PREFIX = "a2a-"  # the receiver's session folders under the root (`incoming._session_name`)
# A file's mtime may be rounded down by the file system: "before this process loaded this module"
# keeps this margin (a file of this pid written just after loading must never look older).
_CLOCK_MARGIN_S = 2.0
# `incoming` imports this module before it writes anything under a root, so this process's own
# files there are all written after this.
_LOADED = time.time()


def clear_leftovers(session_root: Path, *, started: float) -> tuple[Path, ...]:
    """Remove what a receiver killed mid-write left under `session_root`; the paths removed.

    Only files that are provably a stopped run's own: a quarantine copy in `.incoming`
    (`PID-MACHINE-HASH16-RAND8.json`) or a temporary of `safefs` (`.NAME.PID-MACHINE.HEX12.tmp`) in a
    session folder this module names (`a2a-*` and its `handoffs`), a regular file of the user running
    this, last changed before `started`, whose writer is gone, or is this process from before it
    loaded this module (a restart that got the same pid, as in a container). A pid is judged only
    when MACHINE is this one's (`safefs.machine_identity`: this boot, this pid namespace; a name
    without it is from before it was added); another machine's file (a receiver in another
    container sharing the root) is removed only once older than `safefs.MAX_TEMP_AGE_S`. Symlinks
    are not followed; nothing else is touched; best effort.
    """
    root = Path(session_root).expanduser()
    if root.is_symlink() or not root.is_dir():
        return ()
    folders = [root / INBOX]
    with contextlib.suppress(OSError), os.scandir(root) as entries:
        for entry in entries:
            if entry.name.startswith(SESSION_PREFIX) and entry.is_dir(follow_symlinks=False):
                folders += [Path(entry.path), Path(entry.path) / "handoffs"]
    removed: list[Path] = []
    for folder in folders:
        quarantine = folder.name == INBOX
        if folder.is_symlink() or not folder.is_dir():
            continue
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            for entry in entries:
                writer = quarantine_writer(entry.name) if quarantine else safefs.temp_writer(entry.name)
                if writer is not None and _left_by_a_stopped_run(entry, writer, started):
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)
                        removed.append(Path(entry.path))
    return tuple(removed)


def quarantine_writer(name: str) -> tuple[int, str | None] | None:
    """The receiver's (pid, machine) in a quarantine copy's name (`PID-MACHINE-HASH16-RAND8.json`), else None."""
    found = _QUARANTINE.match(name)
    return safefs.writer_of(found.group(1)) if found else None


def _left_by_a_stopped_run(entry: os.DirEntry[str], writer: tuple[int, str | None], started: float) -> bool:
    """A regular file older than the start whose writer cannot be writing it any more."""
    try:
        if not entry.is_file(follow_symlinks=False):
            return False
        found = entry.stat(follow_symlinks=False)
    except OSError:
        return False
    if hasattr(os, "getuid") and found.st_uid != os.getuid():  # another user's (a shared root, or run as root)
        return False
    changed = found.st_mtime
    if changed >= started:
        return False
    pid, machine = writer
    if not safefs.seen_from_here(machine):  # its pid is another namespace's: only age tells
        return time.time() - changed >= safefs.MAX_TEMP_AGE_S
    if pid == os.getpid():  # this pid from an earlier process (a restart that got the same pid)
        return changed < _LOADED - _CLOCK_MARGIN_S
    return not safefs.writer_alive(pid)
