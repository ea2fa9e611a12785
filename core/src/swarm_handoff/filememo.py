"""The one memo type: values derived from files, kept across runs while what they rest on is unchanged.

Discovery's parse memo (each SKILL.md's record), the router's analyses (a plugin, through
`swarm_handoff.api.FileMemo`) and the entry-point scan all keep their work here, so validation,
bounds and eviction are written once. Each value is stored with the `filecache.Observation`s it
rests on, taken *before* the files were read: its own file's (`get`/`put`), or any inputs the
caller observed (`recall`/`keep`, the entry-point scan's folders and `entry_points.txt` files). It
is served only while a fresh observation of every one is the same: modification time (ns), size,
inode, device and status-change time (ns), so a same-size edit that restores the modification time
(`touch -r`, `cp -p`, `rsync -t`, `tar`) still moves the status-change time, which no user can set.
A value resting on a file changed within `filecache.RACY_NS` of the memo's creation is not stored at
all (it could change again unseen). A memo also carries its owner's `version`: a memo written by
another version is empty to this one.

The memo is one file, `memo/NAME.bin` in the checked cache folder (`filecache.subfolder`), written
atomically under the folder's lock after merging what another process stored meanwhile, and
bounded by entries and bytes, least recently used first: each write files the entries its run used
last. A run that only reads (every lookup a hit) writes nothing, unless other runs have filed their
entries after its own and the memo was last written over `REFRESH_NS` ago: then it files its
entries last again, so the skills ranked every day are not the first to go, at the cost of one
write an hour at most. A missing, corrupt, foreign or hostile file is an empty memo, never an
error, and a cache folder that cannot be written only costs speed. `SWARM_HANDOFF_NO_CACHE=1`
turns every memo off.

A memo whose entries belong to settings that never meet in one run (the entry-point scan: one
per `sys.path`) is kept in parts: with `part=KEY` a run reads and writes only `memo/NAME/DIGEST.bin`
(DIGEST of KEY), so it never decodes what other settings stored. The folder is bounded by
`filecache.prune`, as the result store is: at most `max_parts` files and `max_bytes` in all, least
recently used first (its mtime; a run that only reads touches its part at most once per
`REFRESH_NS`). A part's write removes `memo/NAME.bin`, where earlier versions kept the whole memo.
"""

from __future__ import annotations

import itertools
import os
import re
from typing import TYPE_CHECKING

from swarm_handoff import filecache, safefs

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

__all__ = ["MAX_MEMO_BYTES", "MAX_MEMO_ENTRIES", "MAX_MEMO_PARTS", "FileMemo"]

MAX_MEMO_ENTRIES = 20_000
# Discovery's result store stays under 20 MiB; a memo's 12 MiB keeps the whole cache folder within
# issue 14's 50 MB with the parse memo and the router's analyses (~5,000 real skills fit in each).
MAX_MEMO_BYTES = 12 * 1024 * 1024
# A memo kept in parts (one file per part, `part=`) holds at most this many files, least recently used
# removed first, and at most `max_bytes` in all: as much room as a memo of one file.
MAX_MEMO_PARTS = 64
_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]{0,63}")
# How old the memo file must be before a run that only read from it writes it again to file its
# entries as recently used: rarely enough that a warm run almost never pays for a write.
REFRESH_NS = 3600 * 10**9
# The shape of a stored memo (its key and entries): a file of another shape is an empty memo.
# 3: each entry is (observations, value), the observations of six fields (`filecache.observe`).
MEMO_FORMAT = 3

Observation = tuple[str, int, int, int, int, int]  # filecache.observe: path, mtime_ns, size, inode, device, ctime_ns
Entry = tuple[tuple[Observation, ...], object]  # what a value rests on, and the value


class FileMemo:
    """Values derived from files, kept across processes while every observation they rest on is unchanged.

    Per file: call `get(path)` first (it takes the observation that guards the value), compute on a
    miss, `put` the result. Resting on several inputs: `recall(key)`, and on a miss `keep(key, value,
    inputs)` with the inputs observed before reading them. Then `save()` once at the end. Values are
    plain data that `marshal` can write: None, bool, int, float, str, bytes, and tuples, lists,
    sets, frozensets and dicts of them.
    """

    def __init__(
        self,
        name: str,
        version: str,
        *,
        env: Mapping[str, str] | None = None,
        max_entries: int = MAX_MEMO_ENTRIES,
        max_bytes: int = MAX_MEMO_BYTES,
        since_ns: int | None = None,
        part: str | None = None,
        max_parts: int = MAX_MEMO_PARTS,
    ) -> None:
        """Open the memo `name` (lower-case letters, digits, `_.-`) of `version`; off when caching is off.

        With `part`, only that part of the memo is read and written: the file `memo/NAME/DIGEST.bin`
        (DIGEST of `part`), one of at most `max_parts` files holding `max_bytes` in all.
        """
        if not _NAME.fullmatch(name):
            raise ValueError(f"FileMemo name {name!r}: use 1-64 lower-case letters, digits, '_', '.' or '-'")
        places = ("memo",) if part is None else ("memo", name)
        folder = filecache.subfolder(os.environ if env is None else env, *places)
        file_name = f"{name}.bin" if part is None else f"{filecache.digest(part)}.bin"
        self.path = None if folder is None else os.path.join(folder, file_name)
        self.part = part
        self.max_parts = max_parts
        self.kind = f"memo:{name}"
        self.version = version
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.since_ns = filecache.now_ns() if since_ns is None else since_ns  # before any file was looked at
        self.entries: dict[str, Entry] = self._load()
        self.seen: dict[str, Observation] = {}
        self.used: dict[str, Entry] = {}  # looked up or stored by this run
        self.dirty = False
        self.hits = 0
        self.misses = 0

    @property
    def enabled(self) -> bool:
        """False when `SWARM_HANDOFF_NO_CACHE` (or an unsafe cache folder) turned caching off: nothing is kept."""
        return self.path is not None

    def _load(self) -> dict[str, Entry]:
        if self.path is None:
            return {}
        payload = filecache.load(self.path, self.kind)
        if not (isinstance(payload, tuple) and len(payload) == 2 and payload[0] == (MEMO_FORMAT, self.version)):
            return {}
        entries = payload[1]
        return entries if isinstance(entries, dict) else {}

    def get(self, path: str, seen: Observation | None = None) -> object | None:
        """The value stored for `path` if the file is unchanged since, else None (then compute and `put`).

        `seen` is an observation of `path` the caller already took before reading it (discovery's `watch`).
        """
        seen = filecache.observe(path) if seen is None else seen
        if seen[1:] == filecache.ABSENT or self.path is None:
            self.misses += 1
            return None
        self.seen[path] = seen
        entry = self.entries.get(path)
        if isinstance(entry, tuple) and len(entry) == 2 and entry[0] == (seen,):
            self.hits += 1
            self.used[path] = entry  # kept first when the memo is bounded
            return entry[1]
        self.misses += 1
        return None

    def put(self, path: str, value: object) -> None:
        """Keep `value` for `path`, guarded by the observation `get(path)` took before the file was read."""
        seen = self.seen.get(path)
        if seen is not None:
            self.keep(path, value, (seen,))

    def recall(self, key: str) -> object | None:
        """The value kept under `key` if a fresh observation of every input it rests on is unchanged, else None."""
        entry = self.entries.get(key) if self.path is not None else None
        if isinstance(entry, tuple) and len(entry) == 2 and filecache.inputs_unchanged(entry[0]):
            self.hits += 1
            self.used[key] = entry
            return entry[1]
        self.misses += 1
        return None

    def keep(self, key: str, value: object, inputs: Sequence[Observation]) -> None:
        """Keep `value` under `key`, resting on `inputs` (observed before they were read); not if one is racy."""
        if self.path is None or filecache.racy(inputs, self.since_ns):
            return  # off, or changed just before: it could change again unseen
        entry: Entry = (tuple(inputs), value)
        self.entries[key] = entry
        self.used[key] = entry
        self.dirty = True

    def save(self) -> None:
        """Write what this run added (merged with what is in the file now); never raises for the cache's sake."""
        if self.path is None:
            return
        if not (self.dirty or self._used_long_ago()):
            if self.part is not None and self.used:
                self._mark_used()
            return
        folder = os.path.dirname(self.path)
        try:
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
        if self.part is not None:
            self._bound_parts(folder)

    def _mark_used(self) -> None:
        """A read-only run of a part files it as used (its mtime), at most once per `REFRESH_NS`: pruning goes by it."""
        assert self.path is not None
        try:
            if filecache.now_ns() - os.stat(self.path).st_mtime_ns > REFRESH_NS:
                filecache.touch(self.path)
        except OSError:
            return

    def _bound_parts(self, folder: str) -> None:
        """Keep a memo in parts within `max_parts` files and `max_bytes`, and remove the one file an older
        version kept the whole memo in (`memo/NAME.bin`)."""
        filecache.prune(folder, max_files=self.max_parts, max_bytes=self.max_bytes)
        try:
            os.unlink(f"{folder}.bin")
        except OSError:
            return  # none (the usual case), or another process removed it

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
