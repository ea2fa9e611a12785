"""Cache files validated by file metadata, and the one safe way to reach the cache folder.

`cache.py` (discovery's result store), `filememo.py` (the one memo type: the parse memo, the
router's analyses, the entry-point scan) and `entrypoints.py` build on this module, which imports
only the standard library's cheapest modules (no pathlib, hashlib or tempfile).

* **The folder.** `$XDG_CACHE_HOME/swarm-handoff` (else `~/.cache/swarm-handoff`), created 0700.
  A folder another user owns, or one group or others may write, is never used: whoever can write
  it could delete the files pruning touches or forge what a cache answers. One warning on stderr
  names the folder and the fix, and the command runs with no cache. Each store's subfolder
  (`subfolder`) is opened relative to the checked folder without following a link
  (`O_NOFOLLOW | O_DIRECTORY`, `dir_fd`) and checked the same way.
* **Validation.** Every input a cached value rests on is an `Observation`: the path, its
  modification time (ns), size, inode, device and status-change time (ns). A same-length edit
  that puts the modification time back (`cp -p`, `rsync -t`, `tar`) still moves the status-change
  time, which no user can set; a file replaced by another moves the inode.
* **Files.** A cache file is a header, `HEADER` (the tool's name and `FORMAT`), then a BLAKE2b
  digest of the rest, then the `marshal`ed tuple `(MAGIC, FORMAT, kind, payload)`; anything else
  (corrupt, foreign, from another format) reads as None and is simply rewritten. The digest is
  checked before `marshal` reads a byte: marshal allocates whatever sizes the data declares. (The
  digest is not a key: it guards against damage. Forgery is kept out by the folder's checks.)
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from swarm_handoff import safefs
from swarm_handoff.termsafe import escape_controls

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

ENV_NO_CACHE = "SWARM_HANDOFF_NO_CACHE"
# A file changed less than this long before a cache looked at it may change again within the same
# timestamp tick, keeping its mtime (and, rewritten with the same length, its size): such an input
# is "racy" and the answer resting on it is not stored. Local file systems tick every few ms.
RACY_NS = 50_000_000
FORMAT = 5  # bump when a stored shape changes; older files are then ignored (5: observations of six fields)
MAGIC = "swarm-handoff-cache"
HEADER = b"swarm-handoff-cache\0" + FORMAT.to_bytes(2, "big")
DIGEST_SIZE = 16  # bytes of BLAKE2b over a file's body
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIR_FLAGS = getattr(os, "O_DIRECTORY", 0)
_READ_FLAGS = getattr(os, "O_NONBLOCK", 0) | _NOFOLLOW | getattr(os, "O_BINARY", 0)
# Folders opened as descriptors, and names resolved relative to them: POSIX. Elsewhere (Windows) a
# folder cannot be opened that way; the folders are then made and used by path, unchecked.
_DIR_FDS = os.name == "posix" and os.open in os.supports_dir_fd and os.scandir in os.supports_fd
_BLAKE2B_HEX = 40  # the length of `digest`: cache files are named `{digest}.bin`, and pruning removes nothing else


def cache_folder(env: Mapping[str, str]) -> str | None:
    """The user cache folder (created 0700), or None when caching is off or the folder is unsafe (then one warning)."""
    opened = _open_root(env)
    if opened is None:
        return None
    folder, fd = opened
    if fd is not None:
        os.close(fd)
    return folder


def _open_root(env: Mapping[str, str]) -> tuple[str, int | None] | None:
    """The checked cache folder and a descriptor of it (None where folders are used by path); the caller closes it."""
    if env.get(ENV_NO_CACHE, "") not in ("", "0"):
        return None
    base = env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "swarm-handoff")
    try:
        if not _DIR_FDS:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            return folder, None
        try:
            fd = os.open(folder, os.O_RDONLY | _DIR_FLAGS)
        except FileNotFoundError:  # the first run: made (0700), then opened
            os.makedirs(folder, mode=0o700, exist_ok=True)
            fd = os.open(folder, os.O_RDONLY | _DIR_FLAGS)
    except (OSError, ValueError):
        return None  # no folder can be made (a read-only home): no cache, as a full disk costs only speed
    if _safe(fd, folder, folder):
        return folder, fd
    os.close(fd)
    return None


def subfolder(env: Mapping[str, str], *names: str) -> str | None:
    """The cache folder's subfolder `names[0]/names[1]/...` (each created 0700), each opened without following a
    link and checked; else None."""
    opened = _open_root(env)
    if opened is None:
        return None
    root, fd = opened
    path = os.path.join(root, *names)
    if fd is None:
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
        except OSError:
            return None
        return path
    here = root
    try:
        for name in names:  # one level at a time, each relative to the checked one above it
            here = os.path.join(here, name)
            child = _open_child(fd, name, here)
            os.close(fd)
            fd = child
            if fd is None or not _safe(fd, here, root):
                return None
        return path
    finally:
        if fd is not None:
            os.close(fd)


def _open_child(parent: int, name: str, path: str) -> int | None:
    """The folder `name` in the open folder `parent` (made 0700 on first use), never through a link; else warn."""
    flags = os.O_RDONLY | _DIR_FLAGS | _NOFOLLOW
    try:
        try:
            return os.open(name, flags, dir_fd=parent)
        except FileNotFoundError:  # the store's first use: made (0700), then opened
            try:  # noqa: SIM105 - contextlib is not worth importing on every command's path for this
                os.mkdir(name, 0o700, dir_fd=parent)
            except FileExistsError:  # another process made it meanwhile
                pass
            return os.open(name, flags, dir_fd=parent)
    except OSError:  # a symlink (ELOOP), a file, or no room: this store is not used
        _warn(path, "is not a folder of its own (a symbolic link or a file)", f"remove {path}")
        return None


def _safe(fd: int, path: str, root: str) -> bool:
    """True when the open folder `fd` is the user's own and only the user may write it; else warn once."""
    st = os.fstat(fd)
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    if uid is not None and st.st_uid != uid:
        _warn(path, f"belongs to uid {st.st_uid}, not to you (uid {uid})", f"remove {root} (it is made again, 0700)")
        return False
    if os.name == "posix" and st.st_mode & 0o022:
        _warn(path, f"may be written by group or others (mode {st.st_mode & 0o777:o})", f"chmod 700 {path}")
        return False
    return True


_warned: set[str] = set()


def _warn(path: str, why: str, fix: str) -> None:
    """One line on stderr per folder and process: the cache is not used, and how to fix it."""
    if path in _warned or sys.stderr is None:
        return
    _warned.add(path)
    sys.stderr.write(f"warning: {escape_controls(f'cache folder {path} {why}: running without a cache; fix: {fix}')}\n")
    sys.stderr.flush()


def atomic_write(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace `path` with `data` at once, keeping its permissions (see `safefs.atomic_write`)."""
    safefs.atomic_write(path, data)


def _check(body: bytes | memoryview) -> bytes:
    """The digest a file's body is stored with: BLAKE2b, from the builtin module (hashlib also loads OpenSSL)."""
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - an interpreter built without it
        from hashlib import blake2b
    return blake2b(body, digest_size=DIGEST_SIZE).digest()


def encode(kind: str, payload: Any) -> bytes:
    """A cache file's bytes, digest included, for writers that must know the size (raises ValueError
    for what marshal cannot write)."""
    import marshal

    body = marshal.dumps((MAGIC, FORMAT, kind, payload))
    return HEADER + _check(body) + body


def load(path: str | os.PathLike[str], kind: str) -> Any:
    """Read a cache file of `kind`; anything unreadable, corrupt or foreign gives None."""
    import marshal
    import stat

    try:
        # The tool's own file: never through a link, and never a FIFO (a blocking open would hang
        # every command) or device; the descriptor's fstat is checked before reading.
        fd = os.open(path, os.O_RDONLY | _READ_FLAGS)
        with no_gc(), os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            data = handle.read()
            start = len(HEADER) + DIGEST_SIZE
            if not data.startswith(HEADER):
                return None
            body = memoryview(data)[start:]
            if _check(body) != data[len(HEADER) : start]:
                return None  # damaged: never hand it to marshal, which trusts the lengths it declares
            data = marshal.loads(body)
    except (OSError, ValueError, EOFError, TypeError, MemoryError, RecursionError):
        # (Should a file with a valid digest still declare a huge or deeply nested object: a miss.)
        return None
    if not (isinstance(data, tuple) and len(data) == 4 and data[:3] == (MAGIC, FORMAT, kind)):
        return None
    return data[3]


class _PausedCollector:
    def __enter__(self) -> None:
        import gc

        self.enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc_info: object) -> None:
        import gc

        if self.enabled:
            gc.freeze()  # every young object, ours included, goes to the oldest generation...
            gc.unfreeze()  # ...in constant time, instead of one young pass over all of them
            gc.enable()


def no_gc() -> _PausedCollector:
    """Pause the cyclic collector while building many acyclic objects, then file them as old.

    Disabling the collector only defers its work: the first young-generation pass after it is
    enabled again visits every object just built (docs/performance.md: its cost) and frees
    nothing, since cached answers are acyclic data that lives as long as the answer does. So on
    the way out they are moved to the oldest generation without being visited; a full collection
    still visits them, as it would have anyway.
    """
    return _PausedCollector()


def dump(path: str | os.PathLike[str], kind: str, payload: Any) -> None:
    """Write a cache file of `kind`; a read-only or full cache folder only costs speed, never an error."""
    import contextlib

    with contextlib.suppress(OSError, ValueError):
        atomic_write(path, encode(kind, payload))


ABSENT = (-1, -1, -1, -1, -1)  # the stat part of an observation of a path that does not exist


def stat_of(st: os.stat_result | None) -> tuple[int, int, int, int, int]:
    """The five fields an observation keeps of a stat: (mtime_ns, size, inode, device, ctime_ns); ABSENT for None."""
    if st is None:
        return ABSENT
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_dev, st.st_ctime_ns)


def observe(path: str | os.PathLike[str]) -> tuple[str, int, int, int, int, int]:
    """Stat `path` for a cache: (path, mtime_ns, size, inode, device, ctime_ns), the five -1 when it is absent."""
    text = os.fspath(path)
    try:
        st: os.stat_result | None = os.stat(text)
    except (OSError, ValueError):
        st = None
    return (text, *stat_of(st))


def inputs_unchanged(inputs: Sequence[Sequence[Any]]) -> bool:
    """True when a fresh `observe` of every input gives the recorded observation; absent stays absent."""
    try:
        return all(observe(entry[0]) == tuple(entry) for entry in inputs)
    except (TypeError, IndexError):  # a damaged record: nothing it says can be trusted
        return False


def digest(text: str) -> str:
    """A BLAKE2b hex digest for cache keys: the builtin module, since hashlib also loads OpenSSL."""
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - an interpreter built without it
        from hashlib import blake2b
    return blake2b(text.encode("utf-8", "surrogateescape"), digest_size=20).hexdigest()


def now_ns() -> int:
    """The wall clock in ns, taken before a cache looks at any file (the reference for `racy`)."""
    import time

    return time.time_ns()


def racy(inputs: Sequence[Sequence[Any]], since_ns: int) -> bool:
    """True when an input was modified so shortly before `since_ns` that its stat cannot be trusted.

    As git does for its index: a file whose mtime is not clearly older than the moment we started
    looking could be rewritten within the same timestamp tick without its metadata changing.
    """
    limit = since_ns - RACY_NS
    return any(entry[1] >= limit for entry in inputs)


def prune(folder: str | os.PathLike[str], *, max_files: int, max_bytes: int) -> list[str]:
    """Keep a cache folder bounded: remove the least recently used files past `max_files` or `max_bytes`.

    "Used" is the file's mtime (a reader that reuses an entry touches it). The newest file always
    stays, even alone over the byte bound. Only names of the form the caches write (`{digest}.bin`)
    are looked at, in the folder itself, opened without following a link: a symlink put in the
    folder's place, or anything else in it, is never removed. Safe with several processes at once:
    pruning holds the folder's lock (`safefs.locked`), a file another process removed meanwhile is
    simply gone, and a reader that opened a file before it was removed still reads it whole.
    Temporaries left by a killed writer go too (`safefs.clean_stale_temps`). Best effort: never
    raises; returns what went.
    """
    import stat

    removed: list[str] = []
    try:
        fd = os.open(folder, os.O_RDONLY | _DIR_FLAGS | _NOFOLLOW) if _DIR_FDS else None
    except OSError:
        return removed
    try:
        with safefs.locked(folder):
            safefs.clean_stale_temps(folder)
            files = []
            for entry in os.scandir(folder if fd is None else fd):
                if not cache_file_name(entry.name):
                    continue  # not a name a cache writes: left to its owner
                st = entry.stat(follow_symlinks=False)
                if stat.S_ISREG(st.st_mode):
                    files.append((st.st_mtime_ns, entry.name, st.st_size))
            files.sort(reverse=True)  # most recently used first
            total = 0
            for count, (_, name, size) in enumerate(files):
                total += size
                if count == 0 or (count < max_files and total <= max_bytes):
                    continue
                try:
                    if fd is None:
                        os.unlink(os.path.join(folder, name))
                    else:
                        os.unlink(name, dir_fd=fd)
                    removed.append(name)
                except OSError:
                    pass  # already removed by another process
    except OSError:
        pass
    finally:
        if fd is not None:
            os.close(fd)
    return removed


def cache_file_name(name: str) -> bool:
    """True for a name the caches write in a store: the `digest` of a key, then `.bin`."""
    stem = name[: -len(".bin")]
    return name.endswith(".bin") and len(stem) == _BLAKE2B_HEX and all(c in "0123456789abcdef" for c in stem)


def touch(path: str | os.PathLike[str]) -> None:
    """Mark a cache file as just used, so that `prune` removes it last; a failure only costs its rank."""
    import contextlib

    with contextlib.suppress(OSError):
        os.utime(path)


def path_folders() -> list[str]:
    """`sys.path` made absolute for cache keys; a relative entry (`''` under `python -c`) is dropped when the
    working directory was removed, as Python's own import system then skips it."""
    out = []
    for entry in sys.path:
        try:
            out.append(os.path.abspath(entry))
        except OSError:  # FileNotFoundError from os.getcwd(): nothing can be imported from there either
            continue
    return out
