"""Read the files people hand us as bounded UTF-8 text: regular files only, size cap, encoding errors named.

The half of input loading that comes before any parser: opening a path without ever blocking on a
FIFO or device, reading at most `MAX_BYTES`, and turning undecodable bytes or a UTF-16/UTF-32 byte
order mark into a coded `NOT_UTF8` problem. `yamlio` (YAML and JSON) and `skillmd` (SKILL.md) build
on it; `yamlio` re-exports these names, so older imports from there keep working.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

from swarm_handoff.errors import ErrorCode, Problem
from swarm_handoff.errors import LoadError as LoadError  # where readers of files have always found it
from swarm_handoff.limits import MAX_BYTES as MAX_BYTES  # the shared file size cap, found here by file readers
from swarm_handoff.limits import YAML_TOO_LARGE as YAML_TOO_LARGE

# The same limit under the name plugins import from the API (a registry, a manifest never written larger).
DOCUMENT_MAX_BYTES = MAX_BYTES
NOT_UTF8 = "NOT_UTF8"
UNREADABLE = "UNREADABLE"
# A FIFO, socket, device or folder where a file was expected: reading it could block or never end.
NOT_A_REGULAR_FILE = "NOT_A_REGULAR_FILE"
_NOT_REGULAR_HINT = "replace it with a regular file; swarm-handoff never reads pipes, sockets or devices"
_OPEN_FLAGS = (
    getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CHUNK = 1024 * 1024
# Kernel pseudo-files: "regular", size 0 whatever they hold, and some block a read (/proc/kmsg).
_PSEUDO_ROOTS = ("/proc", "/sys")
PSEUDO_FILE = "a kernel pseudo-file (under /proc or /sys), not a regular file: reading it could block"
WOULD_BLOCK = "reading it would block (a kernel or device file that waits for data)"


def file_kind(mode: int) -> str:
    """Name what a path is in words, so a refusal says why ("a FIFO", "a folder") and not just "no"."""
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISLNK, "a symbolic link"),
    )
    return next((word for test, word in kinds if test(mode)), "not a regular file")


_pseudo_devices: set[int] | None = None


def pseudo_file(path: str | os.PathLike[str], st: os.stat_result) -> bool:
    """Whether a "regular" file of size 0 is a kernel pseudo-file (procfs, sysfs), which is never read.

    Such a file's size says nothing about what a read returns, and some block until the kernel has
    something to say (/proc/kmsg), O_NONBLOCK or not. Known by where it resolves to, or by the device
    of /proc or /sys.
    """
    global _pseudo_devices
    if not stat.S_ISREG(st.st_mode) or st.st_size != 0:
        return False
    real = os.path.realpath(path)
    if any(real == root or real.startswith(root + "/") for root in _PSEUDO_ROOTS):
        return True
    if _pseudo_devices is None:
        found: set[int] = set()
        for root in _PSEUDO_ROOTS:
            with contextlib.suppress(OSError):
                found.add(os.stat(root).st_dev)
        _pseudo_devices = found
    return st.st_dev in _pseudo_devices


def would_block(path: str) -> Problem:
    """UNREADABLE for a read that would block: one coded problem for that file, never a hang."""
    return Problem(UNREADABLE, f"cannot read: {WOULD_BLOCK}", path=path, hint="point the path at a regular file")


def _open_problem(path: str, exc: OSError, follow: bool) -> Problem:
    if exc.errno == errno.ELOOP and not follow:
        # O_NOFOLLOW reports a symbolic link as ELOOP: this file is the tool's own and never a link.
        return Problem(
            NOT_A_REGULAR_FILE,
            "a symbolic link where swarm-handoff keeps its own file; not followed",
            path=path,
            hint="remove the link; swarm-handoff writes this file itself",
        )
    if exc.errno == errno.ENXIO:  # opening a socket (or a FIFO with no writer, write side) gives ENXIO
        return Problem(NOT_A_REGULAR_FILE, "a socket, not a regular file", path=path, hint=_NOT_REGULAR_HINT)
    return Problem(
        UNREADABLE,
        f"cannot read: {exc.strerror or exc}",
        path=path,
        hint="check that the file exists and is readable",
    )


def open_regular(
    path: str | os.PathLike[str],
    *,
    follow: bool = True,
    describe: Callable[[str, OSError], Problem] | None = None,
    expect: tuple[int, int] | None = None,
) -> int:
    """Open a file for reading only if it is a regular file, so a FIFO or device can never block a read.

    O_NONBLOCK makes opening a FIFO return at once (a blocking open waits for a writer forever),
    O_NOCTTY keeps a terminal device from becoming ours; the `fstat` of the descriptor (not a
    second `stat` of the name, which could be swapped in between) then refuses anything that is
    not a regular file. `follow=False` adds O_NOFOLLOW, for files the tool writes itself.
    `describe` names an open failure in the caller's terms (SKILL.md has its own codes).
    `expect` is the (device, inode) a caller judged before (the walker's owner check): a file
    swapped in since is SKILLS_OWNER_UNTRUSTED, never read.
    Returns the descriptor (the caller closes it); raises `LoadError` with a coded problem.
    """
    text = os.fspath(path)
    fd, st = _open_regular(text, follow, describe)
    if expect is not None and (st.st_dev, st.st_ino) != tuple(expect):
        os.close(fd)
        raise LoadError(
            Problem(
                ErrorCode.SKILLS_OWNER_UNTRUSTED.value,
                "the file was replaced after its owner was checked; it was not read",
                path=text,
                hint="run again; if it keeps happening, someone is changing this folder while it is read",
            )
        )
    return fd


def _open_regular(
    path: str, follow: bool, describe: Callable[[str, OSError], Problem] | None
) -> tuple[int, os.stat_result]:
    name = describe or (lambda p, e: _open_problem(p, e, follow))
    try:
        fd = os.open(path, os.O_RDONLY | _OPEN_FLAGS | (0 if follow else _NOFOLLOW))
    except OSError as exc:
        raise LoadError(name(path, exc)) from None
    try:
        st = os.fstat(fd)
    except OSError as exc:  # pragma: no cover - fstat of an open descriptor does not fail in practice
        os.close(fd)
        raise LoadError(name(path, exc)) from None
    if not stat.S_ISREG(st.st_mode) or pseudo_file(path, st):
        os.close(fd)
        what = PSEUDO_FILE if stat.S_ISREG(st.st_mode) else f"{file_kind(st.st_mode)}, not a regular file"
        raise LoadError(Problem(NOT_A_REGULAR_FILE, what, path=path, hint=_NOT_REGULAR_HINT))
    return fd, st


def read_regular(
    path: str | os.PathLike[str],
    *,
    limit: int = MAX_BYTES,
    follow: bool = True,
    check: Callable[[os.stat_result], None] | None = None,
) -> bytes:
    """Read at most `limit` bytes of a regular file (see `open_regular`); a larger file is YAML_TOO_LARGE.

    `check` is given the `fstat` of the very descriptor that is read (a token file's mode, say), so
    a file swapped under the name between a check and the read cannot pass; it raises to refuse.
    """
    text = os.fspath(path)
    fd, st = _open_regular(text, follow, None)
    if check is not None:
        try:
            check(st)
        except BaseException:
            os.close(fd)
            raise
    chunks: list[bytes] = []
    size = 0
    try:
        # One read of the size fstat gave (plus one byte, to see growth or the cap); loop only if
        # the file grew meanwhile. Never more than one byte past the cap.
        want = min(st.st_size, limit) + 1
        while size <= limit:
            chunk = os.read(fd, want)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            want = min(_CHUNK, limit + 1 - size)
    except BlockingIOError:
        raise LoadError(would_block(text)) from None
    except OSError as exc:
        raise LoadError(_open_problem(text, exc, follow)) from None
    finally:
        os.close(fd)
    if size > limit:
        raise LoadError(
            Problem(
                YAML_TOO_LARGE,
                f"larger than {limit} bytes",
                path=text,
                hint="this file is not what it should be; check the path",
            )
        )
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


# Byte order marks of the encodings that are not UTF-8 (UTF-32 first: its LE mark starts like UTF-16's).
# Windows PowerShell 5.1 writes UTF-16 LE with a mark (`>`, Out-File, Set-Content -Encoding Unicode).
OTHER_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32 LE"),
    (b"\x00\x00\xfe\xff", "UTF-32 BE"),
    (b"\xff\xfe", "UTF-16 LE"),
    (b"\xfe\xff", "UTF-16 BE"),
)
RESAVE_HINT = "save it as UTF-8 (PowerShell: Set-Content -Encoding utf8; editors: 'Save with encoding')"


def bom_problem(raw: bytes, path: str) -> Problem | None:
    """NOT_UTF8 naming the encoding when `raw` opens with a UTF-16/UTF-32 byte order mark, else None."""
    for mark, encoding in OTHER_BOMS:
        if raw.startswith(mark):
            message = f"the file is {encoding} text (byte order mark), not UTF-8"
            return Problem(NOT_UTF8, message, path=path, line=1, hint=RESAVE_HINT)
    return None


def read_text(
    path: Path,
    *,
    limit: int = MAX_BYTES,
    follow: bool = True,
    check: Callable[[os.stat_result], None] | None = None,
) -> str:
    """Read a bounded UTF-8 regular file (a BOM is dropped), or raise a located `LoadError`.

    `check` is given the `fstat` of the descriptor read, as in `read_regular`.
    """
    raw = read_regular(path, limit=limit, follow=follow, check=check)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        other = bom_problem(raw, str(path))  # a UTF-16 file is text, just not UTF-8: say which
        if other is not None:
            raise LoadError(other) from None
        line = raw[: exc.start].count(b"\n") + 1
        raise LoadError(
            Problem(
                NOT_UTF8, f"not UTF-8 text (byte {exc.start})", path=str(path), line=line, hint="save the file as UTF-8"
            )
        ) from None
