"""Write a payload where the user said (`--output`): a stream, a device, a FIFO or a regular file.

Only a regular file (or nothing) is ever replaced, and a regular file already there is first kept
under a second name (`write_keeping_earlier`), so a user's earlier payload is never lost. Anything
else the name leads to is written as a stream (as a shell's `>` would) or refused with
`OUTPUT_REFUSED` naming the path and what it is.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import TextIO

from swarm_handoff import safefs
from swarm_handoff.errors import SwarmError
from swarm_handoff.payload.io import MAX_NAME_TRIES, write_atomic
from swarm_handoff.textfile import file_kind


def write_keeping_earlier(path: Path, text: str, *, mode: int = 0o600) -> Path | None:
    """Write `text` to the path the user named; a file already there is first kept as `stem.N.ext`.

    The earlier file gets its new name by a hard link before the new content replaces it, so `path`
    is never missing and never half written; the folder lock keeps two writers from keeping the
    same earlier file twice and losing one of their own. Returns where the earlier file was kept.
    Only a regular file (or nothing) is ever replaced: see `write_output` for the other kinds.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with safefs.locked(path.parent):
        kept = None
        if os.path.lexists(path):
            kept = keep_earlier(path)
        write_atomic(path, text, mode=mode)
    return kept


OUTPUT_REFUSED = "OUTPUT_REFUSED"
_WRITE_FLAGS = os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
# The standard streams' own names; each is also /dev/fd/N and /proc/self/fd/N.
_STREAM_FILES = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}


def _stream_number(name: str) -> int | None:
    """0, 1 or 2 when `name` means standard input, output or error: never a file, whatever it points to.

    `-` is standard output. An absolute name is normalised (`/dev//stdout`, `//dev/fd/1`), and this
    process's `/proc/PID` or `/proc/thread-self` is `/proc/self`. A relative name (`./-`, `dev/stdout`)
    is a file.
    """
    if name == "-":
        return 1
    if not name.startswith("/"):
        return None
    parts = os.path.normpath(name).strip("/").split("/")
    by_number = (len(parts) == 3 and parts[:2] == ["dev", "fd"]) or (
        len(parts) == 4
        and parts[0] == "proc"
        and parts[1] in ("self", "thread-self", str(os.getpid()))
        and parts[2] == "fd"
    )
    if by_number:
        return {"0": 0, "1": 1, "2": 2}.get(parts[-1])
    return _STREAM_FILES.get("/" + "/".join(parts))


def standard_stream(name: str) -> int | None:
    """1 or 2 when `name` means standard output or error (`-`, `/dev/stdout`, ...), else None."""
    number = _stream_number(name)
    return number if number in (1, 2) else None


def standard_input(name: str) -> bool:
    """Whether `name` means standard input (`/dev/stdin`, `/dev/fd/0`, ...): never a place to write."""
    return _stream_number(name) == 0


def _refused(path: str, why: str, hint: str) -> SwarmError:
    return SwarmError(OUTPUT_REFUSED, f"{path}: {why}; nothing was written", hint=hint, recoverable=True)


def _streamable(mode: int) -> bool:
    """A character device or a FIFO takes a stream of bytes and has no content to replace."""
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def write_output(path: str | Path, text: str, *, mode: int = 0o600, stdout: TextIO | None = None) -> Path | None:
    """Write `text` where the user said (`--output`), never replacing anything but a regular file.

    * `-`, `/dev/stdout`, `/dev/stderr` (and their `/dev/fd/N`, `/proc/self/fd/N`, `/proc/PID/fd/N`
      spellings, normalised): that standard stream; standard input's names and a name ending in `/`
      are refused;
    * nothing there, or a regular file: `write_keeping_earlier` (the earlier file kept as `stem.N.ext`);
    * a character device or a FIFO: written as a stream, as a shell's `>` would, never replaced, when
      the user or root owns it (and the link leading to it); a FIFO nobody reads is refused at once;
    * a symbolic link: written through only when it ends at a character device or a FIFO; a link
      to a file (or to nothing) is refused, since following it would replace a file elsewhere;
    * anything else (a folder, a block device, a socket): refused.

    Refusals are `OUTPUT_REFUSED` naming the path and what it is. Returns where an earlier file was kept.
    `stdout` is the standard output to use (the caller's, when it moved `sys.stdout` elsewhere).
    """
    name = os.fspath(path)
    if standard_input(name):
        raise _refused(name, "standard input, not a place to write", "name a file, or - for standard output")
    if name.endswith("/") and name.rstrip("/"):
        raise _refused(
            name,
            "ends in '/', so it names a folder; the payload is a file",
            f"name the file inside it, e.g. --output {name}payload.yaml",
        )
    stream = standard_stream(name)
    if stream is not None:
        _write_stream(stream, text.encode("utf-8"), stdout)
        return None
    try:
        st = os.lstat(name)
    except FileNotFoundError:
        return write_keeping_earlier(Path(name), text, mode=mode)
    if stat.S_ISREG(st.st_mode):
        return write_keeping_earlier(Path(name), text, mode=mode)
    if stat.S_ISLNK(st.st_mode):
        target = os.path.realpath(name)
        try:
            final = os.stat(name).st_mode
        except OSError:
            raise _refused(
                name,
                f"a symbolic link to {target}, which does not exist; not followed",
                f"name the file to write yourself (--output {target}), or remove the link",
            ) from None
        if not _streamable(final):
            raise _refused(
                name,
                f"a symbolic link to {target} ({_kind(final)}); not followed, so no file elsewhere is replaced",
                f"write the link's target explicitly: --output {target}",
            )
        _check_owner(name, st, "a symbolic link")
        _write_to(name, text.encode("utf-8"), follow=True)
        return None
    if not _streamable(st.st_mode):
        raise _refused(name, f"{_kind(st.st_mode)}, not a file", "name a regular file, or - for standard output")
    _check_owner(name, st, _kind(st.st_mode))
    _write_to(name, text.encode("utf-8"), follow=False)
    return None


def _kind(mode: int) -> str:
    return "a regular file" if stat.S_ISREG(mode) else file_kind(mode)


def _write_to(name: str, data: bytes, *, follow: bool) -> None:
    """Open an existing device or FIFO for writing (no create, no truncate) and stream `data` into it.

    The opened descriptor is checked again (`fstat`): a name swapped for a regular file meanwhile is
    refused before a byte is written, and without O_TRUNC it has not been changed.
    """
    # O_NONBLOCK: a FIFO nobody reads fails at once (ENXIO) instead of holding the command forever.
    flags = _WRITE_FLAGS | getattr(os, "O_NONBLOCK", 0) | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(name, flags)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise _refused(
                name,
                "a FIFO with no reader (nothing is reading from it, so the payload would wait forever)",
                "start the reader first, or name a regular file",
            ) from None
        raise _refused(name, f"cannot open it for writing: {exc.strerror or exc}", "check the path") from None
    try:
        st = os.fstat(fd)
        if not _streamable(st.st_mode):
            raise _refused(name, f"changed into {_kind(st.st_mode)} while being opened", "run the command again")
        _check_owner(name, st, _kind(st.st_mode))  # the node reached, after any link: the same rule
        _blocking(fd)  # a reader that is slower than us is waited for, as a shell's `>` would
        _write_all(fd, data)
    finally:
        os.close(fd)


def _check_owner(name: str, st: os.stat_result, what: str) -> None:
    """Refuse a stream node (or a link to one) that neither the user nor root owns: it may be someone's trap.

    Another user's FIFO in a shared folder (/tmp) would hand them the payload; root's devices
    (/dev/null, /dev/tty) and the user's own nodes are what `--output` is meant for.
    """
    if st.st_uid in (0, os.geteuid()):
        return
    raise _refused(
        name,
        f"{what} owned by another user (uid {st.st_uid}); the payload is not sent to it",
        "name a file or FIFO of your own, or - for standard output",
    )


def _blocking(fd: int) -> None:
    """Clear O_NONBLOCK once the open succeeded: the writes themselves may wait for the reader."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: there was no O_NONBLOCK either
        return
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)


def _write_stream(stream: int, data: bytes, stdout: TextIO | None) -> None:
    import sys

    handle = (stdout or sys.stdout) if stream == 1 else sys.stderr
    handle.flush()
    buffer = getattr(handle, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    else:  # a text-only stream (an embedding host replaced it)
        handle.write(data.decode("utf-8"))
        handle.flush()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def keep_earlier(path: Path) -> Path | None:
    """Give an existing `path` a second name, `name.1.ext`, `name.2.ext`, ..., never taking a used one.

    The name is made with a hard link (exclusive: it fails rather than replace), so `path` itself
    stays; call this under `safefs.locked(path.parent)` and replace `path` next.
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):  # a device, FIFO or link linked aside would be the node itself
        raise _refused(
            str(path), f"{_kind(st.st_mode)}, not a regular file", "name a regular file, or - for standard output"
        )
    for n in range(1, MAX_NAME_TRIES + 1):
        kept = path.with_name(f"{path.stem}.{n}{path.suffix}")
        try:
            os.link(path, kept, follow_symlinks=False)
        except FileExistsError:
            continue
        return kept
    raise FileExistsError(
        errno.EEXIST, f"no free name to keep the earlier file after {MAX_NAME_TRIES} tries", str(path)
    )
