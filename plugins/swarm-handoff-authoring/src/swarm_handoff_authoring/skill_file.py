"""SKILL.md read, backed up and replaced through the skill folder's descriptor (`adopt_place.open_skill_folder`).

Every name is opened relative to that descriptor and never through a link, so nothing here can be
redirected out of the folder that was checked. The core's `safefs` writers take paths, which would
walk the folder chain again (and follow a folder swapped for a link meanwhile): these are their
descriptor-relative counterparts, with the same guarantees (exclusive creation, fsync, an atomic
rename, the core's temporary names).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from swarm_handoff.api import SwarmError, temp_name
from swarm_handoff_authoring.adopt_place import ADOPT_NOT_FOUND, ADOPT_SYMLINK

ADOPT_NOT_A_FILE = "ADOPT_NOT_A_FILE"
ADOPT_UNREADABLE = "ADOPT_UNREADABLE"
ADOPT_NOT_UTF8 = "ADOPT_NOT_UTF8"
MAX_BYTES = 1024 * 1024  # a SKILL.md larger than this is not a skill file a person edits
BACKUP_SUFFIX = ".bak"

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_MAX_BACKUPS = 1000  # SKILL.md.bak, .bak.1, ... .bak.999: a folder holding more is a mistake


def guard(folder: int, path: Path) -> os.stat_result:
    """Refuse anything but a regular file inside the skill folder (no link to follow out of it)."""
    where = {"path": str(path)}
    try:
        st = os.stat("SKILL.md", dir_fd=folder, follow_symlinks=False)
    except OSError as exc:
        raise SwarmError(ADOPT_NOT_FOUND, f"{path}: {exc.strerror}", details=where, hint="check the path") from None
    if stat.S_ISLNK(st.st_mode):
        raise SwarmError(
            ADOPT_SYMLINK,
            f"{path}: a symbolic link (the file or its skill folder); adopt writes only files inside the skill folder",
            details=where,
            hint="adopt the skill where it really lives (the link's target), or copy it into your own skills folder",
        )
    if not stat.S_ISREG(st.st_mode):
        raise SwarmError(ADOPT_NOT_A_FILE, f"{path}: not a regular file", details=where, hint="point at a SKILL.md")
    return st


def read_text(folder: int, path: Path) -> str:
    """SKILL.md's text, read through the folder's descriptor: a regular file, at most MAX_BYTES, UTF-8."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open("SKILL.md", flags, dir_fd=folder)
    except OSError as exc:
        raise _unreadable(path, f"cannot read: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise SwarmError(ADOPT_NOT_A_FILE, f"{path}: not a regular file", details={"path": str(path)})
        raw = handle.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        raise _unreadable(path, f"larger than {MAX_BYTES} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SwarmError(
            ADOPT_NOT_UTF8,
            f"{path}: line {line}: not UTF-8 text (byte {exc.start})",
            details={"path": str(path), "line": line},
            hint="save the file as UTF-8 first",
        ) from None


def _unreadable(path: Path, why: str) -> SwarmError:
    return SwarmError(
        ADOPT_UNREADABLE,
        f"{path}: {why}",
        details={"path": str(path), "limit_bytes": MAX_BYTES},
        hint="check the file",
    )


def _create(folder: int, name: str, data: bytes, mode: int) -> bool:
    """Create `name` in `folder` holding `data`; False when the name is taken (by anything, a link included)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(name, flags, 0o600, dir_fd=folder)
    except FileExistsError:
        return False
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, name) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
            os.fchmod(handle.fileno(), mode)
    except BaseException as exc:  # a full disk half-way: the half-made file is ours, and goes
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=folder)
        if isinstance(exc, OSError):
            raise OSError(exc.errno, exc.strerror, name) from None
        raise
    return True


def keep_backup(folder: int, path: Path, data: bytes, mode: int) -> Path:
    """Keep the previous text as `SKILL.md.bak`, or the next free `.bak.N`: an existing backup is never replaced."""
    for n in range(_MAX_BACKUPS):
        name = "SKILL.md" + BACKUP_SUFFIX + (f".{n}" if n else "")
        if _create(folder, name, data, mode):
            return path.with_name(name)
    raise SwarmError(
        ADOPT_UNREADABLE,
        f"{path}: no free backup name after {_MAX_BACKUPS} tries ({path.name}.bak.N)",
        details={"path": str(path)},
        hint="remove the old SKILL.md.bak* files you no longer need",
    )


def replace(folder: int, data: bytes, mode: int) -> None:
    """Replace SKILL.md in `folder` at once: a temporary in the same folder, then a rename inside it."""
    tmp = temp_name("SKILL.md")  # the core's pattern: a leftover of a killed run is recognised and cleaned
    if not _create(folder, tmp, data, mode):  # pragma: no cover - 48 random bits
        raise FileExistsError(errno.EEXIST, "temporary name taken", tmp)
    try:
        os.replace(tmp, "SKILL.md", src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        os.unlink(tmp, dir_fd=folder)
        raise
