"""Per-file results a plugin keeps across runs, each valid while its file is unchanged.

A scorer that derives something costly from a file (the router analyses every SKILL.md body) can
keep that work between processes without learning how the core's caches are built: `FileMemo` is
the discovery parse memo's recipe offered to plugins. Each value is stored with the stat of its
file taken *before* the file was read (`get` takes it), and served only while a fresh stat gives the
same modification time (ns), size, inode, device and status-change time (ns): a same-size edit that
restores the modification time (`touch -r`, `cp -p`, a file system with coarse timestamps) still
moves the status-change time, which no user can set. A value whose file changed within
`filecache.RACY_NS` of the memo's creation is not stored at all (it could change again unseen). A
memo also carries its owner's `version`: a memo written by another version is empty to this one.

The memo is one file, `$XDG_CACHE_HOME/swarm-handoff/memo/NAME.bin` (else under `~/.cache`),
written atomically under the folder's lock after merging what another process stored meanwhile, and
bounded by entries and bytes, least recently used first: each write files the entries its run used
last. A run that only reads (every lookup a hit) writes nothing, unless other runs have filed their
entries after its own and the memo was last written over `REFRESH_NS` ago: then it files its
entries last again, so the skills ranked every day are not the first to go, at the cost of one
write an hour at most. A missing, corrupt, foreign or hostile file is an empty memo, never an
error, and a cache folder that cannot be written only costs speed. `SWARM_HANDOFF_NO_CACHE=1`
turns every memo off, as it turns off discovery's caches.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Mapping

from swarm_handoff import filecache, safefs

__all__ = ["MAX_MEMO_BYTES", "MAX_MEMO_ENTRIES", "FileMemo"]

MAX_MEMO_ENTRIES = 20_000
# Discovery's stores stay under ~36 MB at 10,000 skills; a memo's 12 MiB keeps the whole cache folder
# within issue 14's 50 MB (the router's analyses of ~5,000 real skills fit).
MAX_MEMO_BYTES = 12 * 1024 * 1024
_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]{0,63}")
# How old the memo file must be before a run that only read from it writes it again to file its
# entries as recently used: rarely enough that a warm run almost never pays for a write.
REFRESH_NS = 3600 * 10**9
# The shape of a stored memo (its key and entries): a file of another shape is an empty memo.
# 2: the key gained the device and the status-change time.
MEMO_FORMAT = 2

Stat = tuple[int, int, int, int, int]  # (mtime_ns, size, inode, device, ctime_ns)
Entry = tuple[int, int, int, int, int, object]  # a Stat and its value
_STAT_LEN = 5


def _stat(path: str) -> Stat | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_dev, st.st_ctime_ns)


class FileMemo:
    """Values derived from files, kept across processes while each file's stat is unchanged.

    Call `get(path)` first (it takes the stat that guards the value), compute on a miss, `put` the
    result, and `save()` once at the end. Values are plain data that `marshal` can write: None,
    bool, int, float, str, bytes, and tuples, lists, sets, frozensets and dicts of them.
    """

    def __init__(
        self,
        name: str,
        version: str,
        *,
        env: Mapping[str, str] | None = None,
        max_entries: int = MAX_MEMO_ENTRIES,
        max_bytes: int = MAX_MEMO_BYTES,
    ) -> None:
        """Open the memo `name` (lower-case letters, digits, `_.-`) of `version`; off when caching is off."""
        if not _NAME.fullmatch(name):
            raise ValueError(f"FileMemo name {name!r}: use 1-64 lower-case letters, digits, '_', '.' or '-'")
        folder = filecache.cache_folder(os.environ if env is None else env)
        self.path = None if folder is None else os.path.join(folder, "memo", f"{name}.bin")
        self.kind = f"memo:{name}"
        self.version = version
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.since_ns = filecache.now_ns()
        self.entries: dict[str, Entry] = self._load()
        self.seen: dict[str, Stat] = {}
        self.used: dict[str, Entry] = {}  # looked up or stored by this run
        self.dirty = False
        self.hits = 0
        self.misses = 0

    @property
    def enabled(self) -> bool:
        """False when `SWARM_HANDOFF_NO_CACHE` turned caching off: every `get` misses, nothing is kept."""
        return self.path is not None

    def _load(self) -> dict[str, Entry]:
        if self.path is None:
            return {}
        payload = filecache.load(self.path, self.kind)
        if not (isinstance(payload, tuple) and len(payload) == 2 and payload[0] == (MEMO_FORMAT, self.version)):
            return {}
        entries = payload[1]
        return entries if isinstance(entries, dict) else {}

    def get(self, path: str) -> object | None:
        """The value stored for `path` if the file is unchanged since, else None (then compute and `put`)."""
        seen = _stat(path)
        if seen is None or self.path is None:
            self.misses += 1
            return None
        self.seen[path] = seen
        entry = self.entries.get(path)
        if isinstance(entry, tuple) and len(entry) == _STAT_LEN + 1 and entry[:_STAT_LEN] == seen:
            self.hits += 1
            self.used[path] = entry  # kept first when the memo is bounded
            return entry[_STAT_LEN]
        self.misses += 1
        return None

    def put(self, path: str, value: object) -> None:
        """Keep `value` for `path`, guarded by the stat `get(path)` took before the file was read."""
        seen = self.seen.get(path)
        if seen is None or filecache.racy(((path, seen[0], seen[1]),), self.since_ns):
            return  # never looked up, or changed just before: it could change again unseen
        entry: Entry = (*seen, value)
        self.entries[path] = entry
        self.used[path] = entry
        self.dirty = True

    def save(self) -> None:
        """Write what this run added (merged with what is in the file now); never raises for the cache's sake."""
        if self.path is None or not (self.dirty or self._used_long_ago()):
            return
        folder = os.path.dirname(self.path)
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            with safefs.locked(folder):
                current = self._load()  # what other processes stored since this memo was read
                room = max(self.max_entries - len(self.used), 0)
                rest = [(k, v) for k, v in current.items() if k not in self.used]
                kept = dict(rest[len(rest) - room :] if room else [])
                kept.update(self.used)  # this run's entries last: dropped last
                data = self._fit(kept)
                if data is not None:
                    filecache.atomic_write(self.path, data)
                    self.dirty = False
        except (OSError, ValueError):
            return  # a read-only or full cache folder, or a value marshal cannot write: speed only

    def _used_long_ago(self) -> bool:
        """True when this run's entries are not the memo's last ones (other runs filed theirs after) and
        the memo was written over `REFRESH_NS` ago: evicted first, although in use."""
        if self.path is None or not self.used:
            return False
        if set(itertools.islice(reversed(self.entries), len(self.used))) <= self.used.keys():
            return False  # still the last ones filed: the warm path, one small set and no system call
        try:
            return filecache.now_ns() - os.stat(self.path).st_mtime_ns > REFRESH_NS
        except OSError:
            return False

    def _fit(self, entries: dict[str, Entry]) -> bytes | None:
        """The memo as bytes within `max_bytes`, dropping the oldest entries until it fits; None if nothing does."""
        while entries:
            data = filecache.encode(self.kind, ((MEMO_FORMAT, self.version), entries))
            if len(data) <= self.max_bytes:
                return data
            keys = list(entries)
            keep = min(len(keys) - 1, int(len(keys) * self.max_bytes / len(data) * 0.95))  # entries are alike
            entries = {k: entries[k] for k in keys[len(keys) - keep :]} if keep > 0 else {}
        return None
