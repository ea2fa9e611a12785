"""Analysed skills kept across runs: a SKILL.md analysed once is reused until it changes.

Analysing a skill (reading its body, splitting off the negative clauses, stemming every word) is
most of what `rank --scorer router` costs over thousands of skills, and it is a pure function of
the SKILL.md file, of the record discovery made of it, and of this code. So each analysis is kept in
the core's `FileMemo` (`$XDG_CACHE_HOME/swarm-handoff/memo/router.bin`, off with
`SWARM_HANDOFF_NO_CACHE=1`) and reused only while the file's stat (modification and status-change
times, size, inode, device) is the one it was analysed at, the record is the same, and the memo was
written by this very code (its version is a digest of every source file of the router's package
and the Python version, so an upgrade or an edit of any of its modules never reads an older analysis). A damaged or
forged entry (counts that are not positive integers, lengths that are not their sums, fields of
another type) is analysed again.

The skills the memo does not have are analysed by the cold discovery scan's worker processes
(`map_chunks`: forked children, from `MIN_PARALLEL` skills, as many as `SWARM_HANDOFF_JOBS` or the
idle CPUs allow), each sending back the memo's encoding of its documents.

The ranking is unchanged: a document rebuilt from the memo equals the one `Document.of` builds.
The memo's bounds grow with the skill set it serves (`memo_bounds`), so a tree of 10,000 skills
keeps every analysis instead of evicting most of them on each run; and a ranking whose skills did
not change does not read it at all, only the index built from it (`index`).
"""

from __future__ import annotations

import math
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import attrs

from swarm_handoff.api import MIN_PARALLEL, FileMemo, SkillRecord, jobs_from, map_chunks
from swarm_handoff_router.progress import progress

if TYPE_CHECKING:
    from hashlib import blake2b as Blake2b

MEMO_NAME = "router"
# Below this many skills, analysing them costs about what reading a memo of ~2,000 skills does (~0.1 s).
MIN_RECORDS = 50
# What one skill's analysis may take in a memo, at most: the memo's bound grows with the skill set
# (a fixed bound made a 10,000-skill tree evict most of its own analyses on every run). A real
# skill's analysis is 2-6 KiB; the bound leaves room for long bodies (read up to 64 KiB).
BYTES_PER_SKILL = 24 * 1024
# The least a memo is bounded by: the core's default bounds for a `FileMemo`.
MIN_ENTRIES = 20_000
MIN_BYTES = 12 * 1024 * 1024

T = TypeVar("T", bound=attrs.AttrsInstance)
_version: str | None = None


def memo_version() -> str:
    """A digest of the router's analysing code and the Python version: a new one ignores older memos.

    Empty (the memo is then not used) when the code cannot be read: a version that does not follow
    the code could serve an older router's analyses.
    """
    global _version
    if _version is None:
        _version = code_digest(Path(__file__).parent) or ""
    return _version


def blake2b(data: bytes = b"") -> Blake2b:
    """A 32-byte BLAKE2b hash (64 hex digits) from the builtin module: `hashlib` also loads OpenSSL,
    which a warm `route` paid for only to digest the router's code and its records."""
    try:
        from _blake2 import blake2b as builtin
    except ImportError:  # pragma: no cover - an interpreter built without it
        from hashlib import blake2b as builtin
    return builtin(data, digest_size=32)


def code_digest(folder: Path) -> str | None:
    """The digest of every module of the package in `folder`: its `.py` sources, else (an install that ships
    only bytecode, as some packagers and frozen apps do) its `.pyc` files; None when there are neither."""
    digest = blake2b(repr(sys.version_info[:2]).encode())
    for pattern in ("*.py", "*.pyc"):
        files = sorted(path for path in folder.rglob(pattern) if path.is_file())
        if not files:
            continue  # no source at all: the bytecode, top-level and __pycache__ copies alike
        try:
            for path in files:
                data = path.read_bytes()
                name = path.relative_to(folder).as_posix()
                digest.update(f"{name}\0{len(data)}\0".encode() + data)
        except OSError:
            return None  # a module that cannot be read: the version would not follow the code
        return digest.hexdigest()
    return None


def encode(value: object) -> object:
    """A document's field as plain data `marshal` can write, tagged so that `decode` rebuilds its type."""
    if isinstance(value, Counter):
        return ("c", dict(value))
    if isinstance(value, frozenset):
        return ("f", tuple(value))
    if isinstance(value, Mapping):
        return ("m", {key: encode(item) for key, item in value.items()})
    if isinstance(value, tuple):
        if all(isinstance(item, str) for item in value):  # the negative clauses: kept as they are
            return ("s", value)
        return ("t", tuple(encode(item) for item in value))
    if value is None or isinstance(value, str | int | float):
        return ("v", value)
    raise TypeError(f"cannot keep a {type(value).__name__} in the analysis memo")


def decode(data: object) -> object:
    """Rebuild what `encode` wrote; anything else raises (the entry is then analysed again)."""
    if not (isinstance(data, tuple) and len(data) == 2):
        raise ValueError("not an encoded value")
    tag, value = data
    if tag == "c" and isinstance(value, dict):
        return Counter(value)  # its counts are checked with the document's lengths, by `_consistent`
    if tag == "f" and isinstance(value, tuple):  # members only looked up: any hashable is harmless
        return frozenset(value)
    if tag == "m" and isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {key: decode(item) for key, item in value.items()}
    if tag == "s" and isinstance(value, tuple) and all(isinstance(item, str) for item in value):
        return value
    if tag == "t" and isinstance(value, tuple):
        return tuple(decode(item) for item in value)
    if tag == "v" and (
        value is None or isinstance(value, str | int) or (type(value) is float and math.isfinite(value))
    ):
        return value
    raise ValueError(f"unknown tag {tag!r}")


def to_state(document: attrs.AttrsInstance) -> dict[str, object]:
    """Every attrs field of a document, encoded."""
    return {field.name: encode(getattr(document, field.name)) for field in attrs.fields(type(document))}


def shape(data: object) -> object:
    """The shape of an encoded value (tags, mapping keys, plain types), not its contents."""
    if not (isinstance(data, tuple) and len(data) == 2):
        raise ValueError("not an encoded value")
    tag, value = data
    if tag == "m" and isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return ("m", tuple(sorted((key, shape(item)) for key, item in value.items())))
    if tag == "v":
        return ("v", type(value).__name__)
    return (tag,)


def state_shape(state: object) -> object:
    """The shape of a whole document state: field names and the shape of each."""
    if not (isinstance(state, dict) and all(isinstance(name, str) for name in state)):
        raise ValueError("not a document state")
    return tuple(sorted((name, shape(value)) for name, value in state.items()))


def from_state(cls: type[T], state: object, expected: object = None) -> T:
    """The document `to_state` described; raises when the state does not fit `cls` (or the `expected` shape).

    `expected` is the `state_shape` of a document this code just built: a stored state of any other
    shape (a damaged or forged memo) is refused before anything is built from it.
    """
    if not isinstance(state, dict):
        raise ValueError("not a document state")
    names = {field.name for field in attrs.fields(cls)}
    if set(state) != names:
        raise ValueError("a document of another shape")
    if expected is not None and state_shape(state) != expected:
        raise ValueError("a document of another shape")
    document = cls(**{name: decode(value) for name, value in state.items()})
    if not _consistent(document):
        raise ValueError("field lengths that are not the sums of the field's counts")
    return document


def _consistent(document: object) -> bool:
    """A document's word counts are positive ints and its `lengths` their totals, as analysis makes them.

    A forged count that is NaN, inf, negative or zero would be a NaN, negative or divided-by-zero
    point in a ranking, and a forged length would bend every score's length normalisation. Two
    passes over the counts, both in C: their sum (a float among them makes it a float, a string
    raises) and their minimum.
    """
    fields, lengths = getattr(document, "fields", None), getattr(document, "lengths", None)
    if not (isinstance(fields, Mapping) and isinstance(lengths, Mapping)) or fields.keys() != lengths.keys():
        return fields is None and lengths is None  # a document without counted fields: nothing to relate
    for name, counts in fields.items():
        total = sum(counts.values())  # a TypeError for a count that is not a number
        if type(total) is not int or type(lengths[name]) is not int or total != lengths[name]:
            return False
        if counts and min(counts.values()) < 1:  # not only when the total is non-zero: {a: 5, b: -5} sums to 0
            return False
    return True


def memo_bounds(records: int) -> tuple[int, int]:
    """The (entries, bytes) bounds of a memo for `records` skills: the core's defaults, or more for a larger set."""
    return max(MIN_ENTRIES, 2 * records), max(MIN_BYTES, BYTES_PER_SKILL * records)


def analyse_cached(
    records: Iterable[SkillRecord],
    analyse_one: Callable[[SkillRecord], T],
    cls: type[T],
    observed: list[tuple[str, int, int, int, int, int]] | None = None,
) -> list[T]:
    """`analyse_one(record)` for each record, reusing the analyses of unchanged SKILL.md files.

    `observed`, when given, receives the observation of each SKILL.md taken before it was read
    (what a value built from these analyses rests on); nothing when the memo is off.
    """
    records = list(records)
    if len(records) < MIN_RECORDS:
        return [analyse_one(record) for record in records]
    version = memo_version()
    if not version:
        return _each(records, analyse_one)
    entries, size = memo_bounds(len(records))
    memo = FileMemo(MEMO_NAME, version, max_entries=entries, max_bytes=size)
    if not memo.enabled:
        return _each(records, analyse_one)
    expected = state_shape(to_state(analyse_one(_REFERENCE)))
    documents: list[T | None] = []
    missed: list[SkillRecord] = []
    parent = os.getpid()
    with progress(len(records), "analysing skills") as advance:
        for record in records:
            document = _stored(memo, record, cls, expected)
            documents.append(document)
            if document is None:
                missed.append(record)
            else:
                advance(1)

        made: dict[int, T] = {}  # the documents this process analysed itself: not rebuilt from their states

        def analysed(chunk: list[SkillRecord]) -> list[object]:
            """Each record's analysis as memo data (None: a document the memo cannot keep)."""
            here = os.getpid() == parent
            states: list[object] = []
            for record in chunk:
                document = analyse_one(record)
                try:
                    states.append(to_state(document))
                except TypeError:
                    states.append(None)
                if here:  # a forked child draws nothing: the terminal is the parent's
                    made[id(record)] = document
                    advance(1)
            return states

        # The cold scan's mechanism (`map_chunks`: forked children, as many as `SWARM_HANDOFF_JOBS` or
        # the idle CPUs allow, from `MIN_PARALLEL` tasks): analysing a body is pure Python, so only
        # processes share it out.
        jobs = jobs_from(os.environ) if len(missed) >= MIN_PARALLEL else 1
        states = iter(map_chunks(analysed, missed, jobs))
        every = [
            document
            if document is not None
            else _kept(memo, record, next(states), made.get(id(record)), analyse_one, cls)
            for record, document in zip(records, documents, strict=True)
        ]
    memo.save()
    if observed is not None:
        observed.extend(memo.seen.values())
    return every


def _each(records: list[SkillRecord], analyse_one: Callable[[SkillRecord], T]) -> list[T]:
    """Analyse every record, with progress on a terminal's stderr."""
    documents = []
    with progress(len(records), "analysing skills") as advance:
        for record in records:
            documents.append(analyse_one(record))
            advance(1)
    return documents


# Analysed once per ranking to learn the shape of a document this code builds (no file is read).
_REFERENCE = SkillRecord(name="shape", scope="global", source="router", description="shape; not for shapes")


def _stored(memo: FileMemo, record: SkillRecord, cls: type[T], expected: object) -> T | None:
    """One record's document from the memo when its SKILL.md and record are unchanged, else None.

    The file's stat is taken here, before anything reads it: what a later `_kept` stores rests on it.
    """
    path = record.path
    if not path or not path.endswith("SKILL.md"):
        return None
    stored = memo.get(path)
    if isinstance(stored, tuple) and len(stored) == 2 and stored[0] == record.to_row():
        try:
            return from_state(cls, stored[1], expected)
        except (TypeError, ValueError, KeyError, AttributeError):
            pass  # a damaged or forged entry: analysed again, and overwritten
    return None


def _kept(
    memo: FileMemo,
    record: SkillRecord,
    state: object,
    document: T | None,
    analyse_one: Callable[[SkillRecord], T],
    cls: type[T],
) -> T:
    """The document of a fresh analysis (`document` made here, or `state` from a child), kept in the memo."""
    if state is None:  # a field the memo cannot keep: the analysis is given, not kept
        return analyse_one(record) if document is None else document
    if document is None:  # analysed by a child: rebuilt from what it sent
        document = from_state(cls, state)
    if record.path and record.path.endswith("SKILL.md"):
        memo.put(record.path, (record.to_row(), state))
    return document
