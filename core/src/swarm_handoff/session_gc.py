"""`session gc`: remove the closed or expired session folders the tool made, and nothing else.

It looks only at `swarm-session-*` entries directly in the temporary folder. Each is opened with
`O_NOFOLLOW | O_DIRECTORY` (a symbolic link is never followed), must be owned by this user, must
hold the tool's creation marker as a regular file, and must be closed or older than the limit.
Then the same advisory lock payload writers take is tried without waiting (a folder in use is
left for the next run), everything is checked again under it, and the folder is removed relative
to the open temporary folder, so a name swapped in between cannot redirect the removal.
"""

from __future__ import annotations

import datetime as dt
import errno
import os
import shutil
import stat
import sys
from pathlib import Path
from typing import Any, ClassVar

import attrs

from swarm_handoff.session_life import (
    _MAX_ENTRIES,
    DEFAULT_MAX_AGE,
    PREFIX,
    _now,
    _parse,
    _stamp,
    _uid,
    closed_at,
    read_marker,
    sessions_root,
)


@attrs.frozen
class Kept:
    """A `swarm-session-*` entry gc looked at and left, with the reason."""

    path: str
    reason: str

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {"path": self.path, "reason": self.reason}


@attrs.frozen(kw_only=True)
class GcReport:
    """The `session gc` document: what was removed (or would be, with --dry-run) and what was kept."""

    kind: ClassVar[str] = "session-gc"
    root: str
    older_than_seconds: float
    dry_run: bool
    removed: tuple[str, ...] = ()
    kept: tuple[Kept, ...] = ()

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {
            "root": self.root,
            "older_than_seconds": self.older_than_seconds,
            "dry_run": self.dry_run,
            "removed": list(self.removed),
            "kept": [k.to_data() for k in self.kept],
        }


def _verdict(folder: Path, moment: dt.datetime, older_than: dt.timedelta) -> str | None:
    """None when the folder may go; else why it stays."""
    marker = read_marker(folder)
    if marker is None:
        return "no swarm-handoff creation marker: not made by this tool"
    if marker.get("uid") not in (_uid(), -1):
        return "its marker names another user"
    if closed_at(folder) is not None:
        return None
    created = _parse(marker.get("created_at"))
    assert created is not None  # read_marker checked it
    if moment - created >= older_than:
        return None
    return f"open, created {_stamp(created)} (younger than the limit; `session close` it to remove it sooner)"


def _lock(fd: int) -> bool:
    """Take the payload writers' lock without waiting; False when another process holds it."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


def collect(
    root: Path | None = None,
    *,
    older_than: dt.timedelta = DEFAULT_MAX_AGE,
    dry_run: bool = False,
    now: dt.datetime | None = None,
) -> GcReport:
    """Remove closed or expired tool-made sessions in `root`; never anything else (see the module)."""
    root = root or sessions_root()
    moment = now or _now()
    removed: list[str] = []
    kept: list[Kept] = []
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
    root_fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        with os.scandir(root_fd) as entries:
            names = sorted(
                e.name for _, e in zip(range(_MAX_ENTRIES), entries, strict=False) if e.name.startswith(PREFIX)
            )
        for name in names:
            path = root / name
            try:
                fd = os.open(name, flags, dir_fd=root_fd)
            except OSError as exc:
                why = "a symbolic link or not a folder" if exc.errno in (errno.ELOOP, errno.ENOTDIR) else exc.strerror
                kept.append(Kept(str(path), f"not opened: {why}"))
                continue
            try:
                info = os.fstat(fd)
                if not stat.S_ISDIR(info.st_mode) or info.st_uid != _uid():
                    kept.append(Kept(str(path), "owned by another user"))
                    continue
                # the checks read through /proc-free paths: the descriptor pins the folder we judge
                folder = Path(f"/dev/fd/{fd}") if os.path.isdir(f"/dev/fd/{fd}") else path
                why = _verdict(folder, moment, older_than)
                if why is not None:
                    kept.append(Kept(str(path), why))
                    continue
                if dry_run:
                    removed.append(str(path))
                    continue
                if not _lock(fd):
                    kept.append(Kept(str(path), "in use: another process holds its lock"))
                    continue
                why = _verdict(folder, moment, older_than)  # again, under the lock
                current = os.stat(name, dir_fd=root_fd, follow_symlinks=False)
                if why is not None or (current.st_dev, current.st_ino) != (info.st_dev, info.st_ino):
                    kept.append(Kept(str(path), why or "replaced while it was being checked"))
                    continue
                _remove_tree(name, root_fd, path)
                removed.append(str(path))
            except OSError as exc:
                kept.append(Kept(str(path), f"not removed: {exc.strerror or exc}"))
            finally:
                os.close(fd)
    finally:
        os.close(root_fd)
    return GcReport(
        root=str(root),
        older_than_seconds=older_than.total_seconds(),
        dry_run=dry_run,
        removed=tuple(removed),
        kept=tuple(kept),
    )


def _remove_tree(name: str, root_fd: int, path: Path) -> None:
    """Remove the folder relative to the opened temporary folder, so a swapped-in link is never followed."""
    if sys.version_info >= (3, 11):
        rmtree: Any = shutil.rmtree  # typeshed lacks dir_fd here
        rmtree(name, dir_fd=root_fd)
    else:  # 3.10 has no dir_fd; its fd-based rmtree still refuses a link at the top and follows none inside
        shutil.rmtree(path)
