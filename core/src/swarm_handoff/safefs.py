"""Safe writes: atomic replacement, exclusive creation, a folder lock and the clean-up of dead temporaries.

Every file swarm-handoff writes goes through here, so that two copies of a command running at once
never lose each other's work and a reader never sees half a file:

* `atomic_write` replaces a file's whole content at once (a temporary file, then `os.replace`);
* `create_new` makes a file that did not exist, fully written before its name appears (a temporary
  file, then `os.link`, which fails instead of replacing anything, a symlink included);
* `locked` holds a folder exclusively (`flock`) while a writer picks a name or moves files;
* temporaries are named `.{name}.{pid}-{machine}.{12 hex digits}.tmp`, so a writer that was killed
  (`kill -9`) leaves something recognisable, and the next writer in that folder removes it once its
  process is gone (`clean_stale_temps`). `machine` (`machine_identity`) names the boot and the pid
  namespace the pid belongs to: a temporary of another one (a container sharing the folder) is
  judged by its age alone. Nothing that does not match that pattern is ever removed.

Like `filecache`, this module is on the start-up path of every command that writes a cache, so it
imports only `errno`, `itertools`, `os`, `stat`, `sys` and `typing` (already loaded by then) at import time.
"""

from __future__ import annotations

import errno  # built into the interpreter: free to import
import itertools  # built in too
import os
import stat  # already imported by `os` itself
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from contextlib import AbstractContextManager

TEMP_SUFFIX = ".tmp"
# A temporary whose writer is gone is removed only once it is this old: a process in another pid
# namespace (a container sharing the folder) looks dead from here while it is still writing.
DEAD_GRACE_S = 60.0
# Past this age a temporary is removed even if a process with its pid exists (pids are reused).
MAX_TEMP_AGE_S = 6 * 3600.0
_NAME_KEEP = 100  # characters of the target's name kept in a temporary's name (NAME_MAX is 255)
_HEX = frozenset("0123456789abcdef")


_identity: list[str] = []  # this process's `machine_identity`, once read


def machine_identity() -> str:
    """Eight hex digits naming this boot of this machine and this pid namespace: where a pid names one process.

    From the kernel's boot id and the pid namespace (`/proc/self/ns/pid`: containers on one host share
    the boot id, not the namespace), or the host name where `/proc` has neither. A leftover named with
    another identity was written by a process this one cannot see, however its pid looks from here.
    """
    if not _identity:
        import hashlib  # only a writer or a clean-up asks; the start-up path does not

        parts: list[str] = []
        try:
            # Bytes, decoded by the built-in fast path: a text-mode open looks the codec up, and
            # Python 3.13.0 then fails with SystemError when the working directory was removed.
            with open("/proc/sys/kernel/random/boot_id", "rb") as handle:
                parts.append(handle.read(100).strip().decode("ascii", "replace"))
        except (OSError, ValueError):
            pass
        try:  # noqa: SIM105 - contextlib is not worth importing on the start-up path for this
            parts.append(os.readlink("/proc/self/ns/pid"))
        except (OSError, AttributeError):
            pass
        if not parts:
            parts.append(os.uname().nodename if hasattr(os, "uname") else os.environ.get("COMPUTERNAME", ""))
        _identity.append(hashlib.blake2s("\n".join(parts).encode("utf-8", "replace"), digest_size=4).hexdigest())
    return _identity[0]


def temp_name(name: str) -> str:
    """A fresh temporary name for `name` that says which process (on which machine) wrote it, to judge a leftover."""
    return f".{name[:_NAME_KEEP]}.{os.getpid()}-{machine_identity()}.{os.urandom(6).hex()}{TEMP_SUFFIX}"


def writer_of(pid_part: str) -> tuple[int, str | None] | None:
    """`PID-MACHINE` (or a bare `PID`, as names had before the machine was in them) as (pid, machine); else None."""
    pid, dash, machine = pid_part.partition("-")
    if not (pid.isascii() and pid.isdigit()):
        return None
    if not dash:
        return int(pid), None
    if len(machine) != 8 or not set(machine) <= _HEX:
        return None
    return int(pid), machine


def temp_writer(name: str) -> tuple[int, str | None] | None:
    """(pid, machine) of the writer when `name` is one of our temporaries (`.NAME.PID-MACHINE.HEX12.tmp`), else None.

    The machine is None for a temporary named before the machine was part of the name (`.NAME.PID.HEX12.tmp`).
    """
    if not (name.startswith(".") and name.endswith(TEMP_SUFFIX)):
        return None
    parts = name[1 : -len(TEMP_SUFFIX)].rsplit(".", 2)
    if len(parts) != 3 or not parts[0]:
        return None
    _, pid, token = parts
    if not (len(token) == 12 and set(token) <= _HEX):
        return None
    return writer_of(pid)


def seen_from_here(machine: str | None) -> bool:
    """Whether a pid written with `machine` can be probed from this process (this machine's, or a name without one)."""
    return machine is None or machine == machine_identity()


def writer_alive(pid: int) -> bool:
    """Whether the process `pid` may still be writing (this one, one that exists, or one we cannot probe)."""
    if pid == os.getpid():
        return True
    if sys.platform == "win32":  # os.kill there terminates the process: never probe, trust age alone
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, it is someone else's
        return True
    except OverflowError:  # past a C int: no process here has it, and no probe can say; age alone decides
        return True
    return True


def clean_stale_temps(folder: str | os.PathLike[str], *, now: float | None = None) -> list[str]:
    """Remove our temporaries in `folder` left by writers that died; return the names removed.

    A temporary is stale when its writer's pid is gone and it has not changed for `DEAD_GRACE_S`,
    or when it is older than `MAX_TEMP_AGE_S` whoever wrote it; a pid of another machine or pid
    namespace (`machine_identity`) is never probed, so only that age removes its temporary. Best
    effort: never raises.
    """
    import time

    removed: list[str] = []
    current = time.time() if now is None else now
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        writer = temp_writer(name)
        if writer is None:
            continue
        pid, machine = writer
        path = os.path.join(folder, name)
        try:
            st = os.lstat(path)
            age = current - st.st_mtime
            if age < DEAD_GRACE_S or (age < MAX_TEMP_AGE_S and (not seen_from_here(machine) or writer_alive(pid))):
                continue
            os.unlink(path)
        except OSError:
            continue
        removed.append(name)
    return removed


def write_temp(folder: str, name: str, data: bytes, *, mode: int, durable: bool) -> str:
    """Write `data` to a new temporary beside `folder/name` and return its path (the caller moves it).

    The temporary is created exclusively and never through a symlink; leftovers of dead writers in
    the same folder are cleaned up first, so a killed writer costs at most one folder's worth.
    """
    clean_stale_temps(folder)
    tmp = os.path.join(folder, temp_name(name))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(tmp, flags, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.chmod(tmp, mode)
    except BaseException:
        _discard(tmp)
        raise
    return tmp


def _discard(path: str) -> None:
    try:  # noqa: SIM105 - contextlib is not worth importing on the start-up path for this
        os.unlink(path)
    except OSError:
        pass


def atomic_write(path: str | os.PathLike[str], data: bytes, *, mode: int | None = None, durable: bool = False) -> None:
    """Replace `path`'s content with `data` all at once: readers see the old file or the new, never half.

    `mode` None keeps the permissions a user gave an existing file (0644 for a new one). A symlink at
    `path` is replaced by the file, never written through. `durable` adds an fsync (payloads).
    """
    target = os.fspath(path)
    folder, name = os.path.split(target)
    folder = folder or "."
    os.makedirs(folder, exist_ok=True)
    if mode is None:
        try:
            st = os.lstat(target)
        except OSError:
            st = None
        # a 0600 file would hide a session file from the user's other tools; a symlink's 0777 says nothing
        mode = st.st_mode & 0o777 if st is not None and stat.S_ISREG(st.st_mode) else 0o644
    tmp = write_temp(folder, name, data, mode=mode, durable=durable)
    try:
        os.replace(tmp, target)
    except BaseException:
        _discard(tmp)
        raise


def create_new(path: str | os.PathLike[str], data: bytes, *, mode: int = 0o600, durable: bool = True) -> bool:
    """Create `path` holding `data`, complete before its name appears; False when the name is taken.

    Taken means anything at all: a file, a folder, a symlink (dangling or not) is left as it is.
    """
    return create_first([path], data, mode=mode, durable=durable) is not None


def create_first(
    paths: Iterable[str | os.PathLike[str]], data: bytes, *, mode: int = 0o600, durable: bool = True
) -> str | None:
    """Create the first free one of `paths` (all in one folder) holding `data`; None when all are taken.

    The content is written once to a temporary and given each name in turn with `os.link`, which
    never replaces and never follows a symlink, so a reader sees no name until the file is whole.
    `paths` may be a generator: names are made only as far as they are tried.
    """
    targets = iter(paths)
    first = next(targets, None)
    if first is None:
        return None
    folder, name = os.path.split(os.fspath(first))
    folder = folder or "."
    tmp = write_temp(folder, name, data, mode=mode, durable=durable)
    try:
        created = _link_first(tmp, itertools.chain((first,), targets), data, mode=mode, durable=durable)
    finally:
        _discard(tmp)
    if created is not None and durable:
        _sync_folder(folder)
    return created


def create_next(
    path: str | os.PathLike[str],
    names: Callable[[], Iterable[str | os.PathLike[str]]],
    data: bytes,
    *,
    mode: int = 0o600,
    durable: bool = True,
) -> str | None:
    """Create a file holding `data` under the first free name of `names()`, locking the folder only to name it.

    The content is written (and fsynced) to a temporary before the lock is taken; under the lock
    `names()` is called (it may read the folder to continue a series) and the temporary is linked to
    the first free name; the folder's fsync follows once the lock is released. So writers at once
    wait for each other only for a listing and a link. `path` is the series' first name: the
    folder, and what the temporary is named after. None when every name is taken.
    """
    where, name = os.path.split(os.fspath(path))
    where = where or "."
    tmp = write_temp(where, name, data, mode=mode, durable=durable)
    try:
        with locked(where):
            created = _link_first(tmp, names(), data, mode=mode, durable=durable)
    finally:
        _discard(tmp)
    if created is not None and durable:
        _sync_folder(where)
    return created


def _link_first(
    tmp: str, targets: Iterable[str | os.PathLike[str]], data: bytes, *, mode: int, durable: bool
) -> str | None:
    """Give the finished temporary `tmp` the first free name of `targets` (never replacing one); None if none."""
    for path in targets:
        target = os.fspath(path)
        try:
            os.link(tmp, target)  # fails on any existing name, symlinks included
        except FileExistsError:
            continue
        except OSError as exc:
            if exc.errno not in _NO_HARD_LINKS:
                raise
            if not _create_in_place(target, data, mode=mode, durable=durable):
                continue
        return target
    return None


# File systems without hard links (FAT, some network and FUSE mounts) say so with one of these.
_NO_HARD_LINKS = frozenset({errno.EPERM, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP})


def _create_in_place(target: str, data: bytes, *, mode: int, durable: bool) -> bool:
    """`create_new` where hard links are refused: still exclusive, but a reader may see it growing."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(target, flags, mode)
    except FileExistsError:
        return False
    with os.fdopen(fd, "wb") as handle:
        os.chmod(target, mode)
        handle.write(data)
        handle.flush()
        if durable:
            os.fsync(handle.fileno())
    return True


def _sync_folder(folder: str) -> None:
    """Make a new name durable (POSIX keeps it in the folder, which has its own fsync)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


LOCK_TIMEOUT_ENV = "SWARM_HANDOFF_LOCK_TIMEOUT"
DEFAULT_LOCK_TIMEOUT_S = 30.0


class FolderBusy(TimeoutError):
    """A folder another process kept locked past the wait (`SWARM_HANDOFF_LOCK_TIMEOUT`); names the holder."""

    def __init__(self, folder: str, holders: Sequence[int], waited: float) -> None:
        who = (
            f"process {', '.join(str(p) for p in holders)}"
            if holders
            else "another process (a hand-off, convert --output, registry sync or skills link writing there)"
        )
        self.why = f"locked by {who} for more than {waited:g} s"  # what every report of it says
        super().__init__(errno.EAGAIN, self.why, folder)
        self.folder = folder
        self.holders = tuple(holders)
        self.waited = waited
        self.who = who


def lock_timeout(env: dict[str, str] | None = None) -> float:
    """How long a writer waits for a folder another process holds: `$SWARM_HANDOFF_LOCK_TIMEOUT` seconds."""
    raw = (os.environ if env is None else env).get(LOCK_TIMEOUT_ENV, "")
    try:
        value = float(raw) if raw.strip() else DEFAULT_LOCK_TIMEOUT_S
    except ValueError:
        return DEFAULT_LOCK_TIMEOUT_S
    return value if 0 <= value < float("inf") else DEFAULT_LOCK_TIMEOUT_S


def lock_holders(fd: int) -> list[int]:
    """The pids holding an `flock` on the file open at `fd`, from /proc/locks (Linux); [] elsewhere."""
    try:
        st = os.fstat(fd)
        with open("/proc/locks", encoding="ascii", errors="replace") as handle:
            lines = handle.read(1 << 20).splitlines()
    except OSError:
        return []
    wanted = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    pids: list[int] = []
    for line in lines:
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 fe:00:260072 0 EOF"; a waiter's line starts "1: ->"
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == wanted and fields[4].isdigit():
            pid = int(fields[4])
            if pid not in pids:
                pids.append(pid)
    return pids


class _FolderLock:
    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.fd: int | None = None

    def __enter__(self) -> None:
        try:
            self.fd = os.open(self.folder, os.O_RDONLY)
        except OSError:
            return  # no folder, nothing to protect; the write that follows reports why
        try:
            lock_descriptor(self.fd, self.folder)
        except BaseException:
            os.close(self.fd)
            self.fd = None
            raise

    def __exit__(self, *exc_info: object) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the descriptor releases the lock
            self.fd = None


def lock_descriptor(fd: int, folder: str) -> None:
    """Lock the folder open at `fd`, waiting at most `lock_timeout()` for another writer; then `FolderBusy`.

    What `locked` does once it opened the folder, and what a writer that opened the folder itself
    (without following links) and keeps working through that descriptor calls; the lock is released
    when the descriptor is closed. Where `fcntl` does not exist, nothing is locked.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: exclusive creation alone keeps writers apart
        return
    import time

    timeout = lock_timeout()
    deadline = time.monotonic() + timeout
    pause = 0.005
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        left = deadline - time.monotonic()
        if left <= 0:
            raise FolderBusy(folder, lock_holders(fd), timeout)
        time.sleep(min(pause, left))
        pause = min(pause * 2, 0.25)


def locked(folder: str | os.PathLike[str]) -> AbstractContextManager[None]:
    """Hold `folder` exclusively while a writer picks a name in it or moves a file aside.

    An advisory `flock` on the folder itself: it leaves no file behind, and it is released when the
    process ends, however it ends. A folder another process holds is waited for at most
    `$SWARM_HANDOFF_LOCK_TIMEOUT` seconds (30 by default), then `FolderBusy` names the holder. Where
    `fcntl` does not exist, writers are not serialised, and `create_new` still guarantees that none
    replaces another's file.
    """
    return _FolderLock(os.fspath(folder))
