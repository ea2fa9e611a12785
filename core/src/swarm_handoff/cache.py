"""The user-level discovery caches, validated by file metadata so that an answer is never stale.

Two layers live under `$XDG_CACHE_HOME/swarm-handoff` (else `~/.cache/swarm-handoff`):

* the *parse index*: each SKILL.md's parsed frontmatter keyed by its path, mtime and size, so that a
  changed tree re-parses only the files that changed;
* the *result cache*: the whole merged answer per (working directory, config folder, installed
  sources), with every input the sources reported as (path, mtime_ns, size). It is reused only when
  a fresh `stat` of each input gives the same pair (a skill folder added or removed changes its
  parent's mtime; an edit in place changes the file's own mtime and size).

Files are `marshal`ed plain data (fast to load; a corrupt or foreign file is ignored and rewritten)
and written atomically. `SWARM_HANDOFF_NO_CACHE=1` turns both layers off.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from swarm_handoff import filecache
from swarm_handoff.errors import Problem, Severity
from swarm_handoff.filecache import (
    ENV_NO_CACHE,
    atomic_write,
    cache_folder,
    digest,
    dump,
    inputs_unchanged,
    load,
    no_gc,
)
from swarm_handoff.records import Scope, SkillRecord

__all__ = ["ENV_NO_CACHE", "ParseIndex", "ResultCache", "atomic_write", "cache_dir", "inputs_unchanged", "no_gc"]

MAX_PARSE_ENTRIES = 100_000


def cache_dir(env: Mapping[str, str]) -> Path | None:
    """The user cache folder, or None when caching is turned off."""
    folder = cache_folder(env)
    return Path(folder) if folder is not None else None


def problem_to_state(p: Problem) -> tuple[Any, ...]:
    """A problem as a marshal-able tuple."""
    return (p.code, p.message, p.path, p.line, p.column, p.hint, p.severity.value)


def problem_from_state(t: Sequence[Any]) -> Problem:
    """Rebuild a problem from `problem_to_state`."""
    return Problem(t[0], t[1], path=t[2], line=t[3], column=t[4], hint=t[5], severity=Severity(t[6]))


class ParseIndex:
    """SKILL.md path -> (mtime_ns, size, what a source made of it), shared by every working directory.

    Sources store marshal-able values: the frontmatter scan stores the record row (`record_to_row`),
    so an unchanged file costs neither parsing nor interpreting its metadata again.
    """

    def __init__(self, path: Path | None, *, use: bool = True, since_ns: int | None = None) -> None:
        self.path = path
        self.use = use  # False (--refresh): parse everything again, but keep other folders' entries
        self.since_ns = filecache.now_ns() if since_ns is None else since_ns  # when this scan began
        loaded = load(path, "parse") if path is not None else None
        self.entries: dict[str, tuple[Any, ...]] = loaded if isinstance(loaded, dict) else {}
        self.dirty = False
        self.hits = 0
        self.misses = 0

    def lookup(self, path: str, mtime_ns: int, size: int) -> Any:
        """The value stored for `path` if its mtime and size are unchanged, else None."""
        entry = self.entries.get(path) if self.use else None
        if entry is None or entry[0] != mtime_ns or entry[1] != size:
            self.misses += 1
            return None
        self.hits += 1
        return entry[2]

    def store(self, path: str, mtime_ns: int, size: int, value: Any) -> None:
        """Remember what was made of `path`, keyed on the stat taken before reading it."""
        if filecache.racy(((path, mtime_ns, size),), self.since_ns):
            return  # changed just before the scan: it could change again unseen, so parse it next time
        self.entries[path] = (mtime_ns, size, value)
        self.dirty = True

    def save(self) -> None:
        """Write the index if it changed; the oldest entries go first when it grows too large."""
        if self.path is None or not self.dirty:
            return
        if len(self.entries) > MAX_PARSE_ENTRIES:
            keep = list(self.entries.items())[-MAX_PARSE_ENTRIES:]
            self.entries = dict(keep)
        dump(self.path, "parse", self.entries)
        self.dirty = False


def result_key(*parts: str) -> str:
    """A file-name-safe key for the result cache."""
    return digest("\0".join(parts))


class ResultCache:
    """Whole discovery answers, one file per key, each with the inputs that validate it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def get(self, key: str) -> tuple[Any, Any] | None:
        """The stored (inputs, state) for `key` when every input is unchanged, else None."""
        payload = load(self.folder / f"{key}.bin", "result")
        if not isinstance(payload, tuple) or len(payload) != 2:
            return None
        return payload if inputs_unchanged(payload[0]) else None

    def drop(self, key: str) -> None:
        """Forget `key` (the latest answer could not be cached, so an older one must not be served)."""
        with contextlib.suppress(OSError):
            (self.folder / f"{key}.bin").unlink()

    def put(self, key: str, inputs: Sequence[tuple[str, int, int]], state: Any) -> None:
        """Store `state` with the inputs observed while computing it."""
        dump(self.folder / f"{key}.bin", "result", (tuple(inputs), state))


def record_from_data(d: Mapping[str, Any]) -> SkillRecord:
    """Rebuild a record from `SkillRecord.to_data()` (cache files, session files)."""
    return SkillRecord(
        name=d["skill"],
        scope=Scope(d["scope"]),
        source=d.get("source", "cache"),
        path=d.get("path"),
        declared_name=d.get("declared_name"),
        eligible=d.get("eligible", True),
        description=d.get("description") or "",
        categories=d.get("categories") or (),
        trigger=d.get("trigger") or "{payload_path}",
        protocol_version=str(d.get("protocol_version") or "2.0"),
        health_check=d.get("health_check"),
        requires=d.get("requires") or (),
        optional_consumes=d.get("optional_consumes") or (),
        accepts_from=d.get("accepts_from") or (),
        provides_to=d.get("provides_to") or (),
        schema_version=d.get("schema_version"),
        schema_type=d.get("schema_type"),
        input_requirements=d.get("input_requirements") or (),
        output_types=d.get("output_types") or (),
        legacy=d.get("legacy", False),
        meta=d.get("meta") or {},
        problems=tuple(problem_from_data(p) for p in d.get("problems", ())),
    )


def problem_from_data(p: Mapping[str, Any]) -> Problem:
    """Rebuild a problem from `Problem.to_data()`."""
    return Problem(
        p["code"], p["message"], p.get("path"), p.get("line"), p.get("column"), p.get("hint"), Severity(p["severity"])
    )


# Field order of a record row in the result cache (compact tuples load several times faster than dicts).
_ROW = (
    "name", "source", "path", "declared_name", "eligible", "description", "categories", "trigger",
    "protocol_version", "health_check", "requires", "optional_consumes", "accepts_from", "provides_to",
    "schema_version", "schema_type", "input_requirements", "output_types", "legacy",
)  # fmt: skip


def record_to_row(r: SkillRecord) -> tuple[Any, ...]:
    """A record as a marshal-able tuple: scope, the `_ROW` fields, meta, problems."""
    return (
        r.scope.value,
        *(getattr(r, f) for f in _ROW),
        dict(r.meta),
        tuple(problem_to_state(p) for p in r.problems),
    )


_SCOPES = {s.value: s for s in Scope}
_NEW = SkillRecord.__new__
_SET = object.__setattr__


def _slot_setter(name: str) -> Any:
    """The slot's own setter (past the frozen `__setattr__`), about twice as fast as `object.__setattr__`."""
    return SkillRecord.__dict__[name].__set__  # SkillRecord is slotted (attrs.frozen)


_SET_SCOPE, _SET_META, _SET_PROBLEMS = (_slot_setter(n) for n in ("scope", "meta", "problems"))
_ROW_SETTERS = tuple((_slot_setter(name), index) for index, name in enumerate(_ROW, 1))


def record_from_row(row: Sequence[Any], scope: Scope | None = None) -> SkillRecord:
    """Rebuild a record from `record_to_row` (optionally in another scope: the same file seen from elsewhere).

    Rows were built from valid records, so the attrs converters are skipped: setting the slots
    directly halves the cost, which dominates a repeated discovery of thousands of skills.
    """
    if len(row) != len(_ROW) + 3 or not isinstance(row[-2], dict):
        raise ValueError("not a record row")
    record = _NEW(SkillRecord)
    _SET_SCOPE(record, scope or _SCOPES[row[0]])
    for set_slot, index in _ROW_SETTERS:
        set_slot(record, row[index])
    _SET_META(record, row[-2])
    _SET_PROBLEMS(record, tuple(problem_from_state(p) for p in row[-1]) if row[-1] else ())
    return record
