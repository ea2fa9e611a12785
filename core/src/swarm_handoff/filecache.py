"""Cache files validated by file metadata: the part of the caches that start-up can afford.

This module imports only the standard library's cheapest modules (no typing, pathlib, hashlib or
tempfile at import time), because the CLI's answer replay (`cli/answers.py`) runs before anything
else is imported. `cache.py` builds the discovery caches on top of it.

A cache file is a header, `HEADER` (the tool's name and `FORMAT`) then a digest of the rest, then
the `marshal`ed tuple `(MAGIC, FORMAT, kind, payload)`; anything else (corrupt, foreign, from another
format) reads as None and is simply rewritten. The digest is checked before `marshal` reads a byte:
marshal allocates whatever sizes the data declares, so a damaged length field could make it allocate
gigabytes before failing. (The digest is not a key: someone who can write the cache folder can
write a file that passes it; that user can already change what the tool runs.)
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: importing typing costs ~10 ms of start-up
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

ENV_NO_CACHE = "SWARM_HANDOFF_NO_CACHE"
# A file changed less than this long before a cache looked at it may change again within the same
# timestamp tick, keeping its mtime (and, rewritten with the same length, its size): such an input
# is "racy" and the answer resting on it is not stored. Local file systems tick every few ms.
RACY_NS = 50_000_000
FORMAT = 4  # bump when a stored shape changes; older files are then ignored (4: the digest header)
MAGIC = "swarm-handoff-cache"
HEADER = b"swarm-handoff-cache\0" + FORMAT.to_bytes(2, "big")
DIGEST_SIZE = 16  # see `_check`
CRC_FROM = 1 << 20  # bodies this long or longer are checked with CRC-32 (see `_check`)
_READ_FLAGS = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)


def cache_folder(env: Mapping[str, str]) -> str | None:
    """The user cache folder as text, or None when caching is turned off (`SWARM_HANDOFF_NO_CACHE`)."""
    if env.get(ENV_NO_CACHE, "") not in ("", "0"):
        return None
    base = env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".cache")
    return os.path.join(base, "swarm-handoff")


def atomic_write(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace `path` with `data` at once, keeping its permissions (see `safefs.atomic_write`)."""
    from swarm_handoff import safefs  # as cheap to import as this module: no typing, pathlib or tempfile

    safefs.atomic_write(path, data)


def _check(body: bytes | memoryview) -> bytes:
    """The digest a file's body is stored with, chosen by its size so that checking stays cheap.

    Small bodies (replayed answers, most stores): BLAKE2b, from the builtin module `digest` already
    loads on every command's path. From `CRC_FROM` on (a 10,000-skill result is ~4 MB): zlib's
    CRC-32 and the body's length, as good against a damaged file and 5x faster (BLAKE2b cost ~3 % of
    a warm discover over 10,000 skills, CRC-32 0.6 % plus ~1 ms to import zlib, which would be 2 % of
    a replayed answer). Neither is a key (see the module's docstring).
    """
    size = len(body)
    if size < CRC_FROM:
        try:
            from _blake2 import blake2b
        except ImportError:  # pragma: no cover - an interpreter built without it
            from hashlib import blake2b
        return blake2b(body, digest_size=DIGEST_SIZE).digest()
    import zlib

    return zlib.crc32(body).to_bytes(4, "big") + size.to_bytes(DIGEST_SIZE - 4, "big")


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
    enabled again visits every object just built (~30 ms for a 10,000-skill answer) and frees
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


def observe(path: str | os.PathLike[str]) -> tuple[str, int, int]:
    """Stat `path` for a cache key: (path, mtime_ns, size), or (path, -1, -1) when it is absent."""
    text = os.fspath(path)
    try:
        st = os.stat(text)
    except OSError:
        return (text, -1, -1)
    return (text, st.st_mtime_ns, st.st_size)


def inputs_unchanged(inputs: Sequence[Sequence[Any]]) -> bool:
    """True when a fresh stat of every input gives the recorded (mtime_ns, size); absent stays absent."""
    stat = os.stat
    for path, mtime_ns, size in inputs:
        try:
            st = stat(path)
        except OSError:
            if mtime_ns != -1:
                return False
            continue
        if st.st_mtime_ns != mtime_ns or st.st_size != size:
            return False
    return True


def digest(text: str) -> str:
    """A BLAKE2b hex digest for cache keys: the builtin module, since hashlib also loads OpenSSL (~7 ms)."""
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
    return any(mtime_ns >= limit for _, mtime_ns, _ in inputs)


def prune(folder: str | os.PathLike[str], *, max_files: int, max_bytes: int) -> list[str]:
    """Keep a cache folder bounded: remove the least recently used files past `max_files` or `max_bytes`.

    "Used" is the file's mtime (a reader that reuses an entry touches it). The newest file always
    stays, even alone over the byte bound. Safe with several processes at once: pruning holds the
    folder's lock (`safefs.locked`), a file another process removed meanwhile is simply gone, and
    a reader that opened a file before it was removed still reads it whole. Temporaries left by a
    killed writer go too (`safefs.clean_stale_temps`). Best effort: never raises; returns what went.
    """
    from swarm_handoff import safefs

    removed: list[str] = []
    try:
        with safefs.locked(folder):
            safefs.clean_stale_temps(folder)
            files = []
            for entry in os.scandir(folder):
                if entry.name.startswith(".") or not entry.is_file(follow_symlinks=False):
                    continue  # temporaries and anything not ours are left to their owners
                st = entry.stat(follow_symlinks=False)
                files.append((st.st_mtime_ns, entry.name, st.st_size, entry.path))
            files.sort(reverse=True)  # most recently used first
            total = 0
            for count, (_, name, size, path) in enumerate(files):
                total += size
                if count == 0 or (count < max_files and total <= max_bytes):
                    continue
                try:
                    os.unlink(path)
                    removed.append(name)
                except OSError:
                    pass  # already removed by another process, or not ours to remove
    except OSError:
        pass
    return removed


def touch(path: str | os.PathLike[str]) -> None:
    """Mark a cache file as just used, so that `prune` removes it last; a failure only costs its rank."""
    import contextlib

    with contextlib.suppress(OSError):
        os.utime(path)


def site_dirs() -> list[str]:
    """The sys.path folders distributions are installed into: installing or removing one changes their mtime."""
    return [p for p in sys.path if os.path.basename(p.rstrip(os.sep)) in ("site-packages", "dist-packages")]


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
