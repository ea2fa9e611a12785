"""The router's index: every skill's analysis and the corpus statistics in one stored, checked value.

Ranking used to rebuild, for every request, each skill's analysed document from the analysis memo
and the corpus statistics from all of them, then score every skill term by term. The index holds
what a ranking needs, once per skill set:

* **postings**: for each stem, the skills that use it and how often in each field (name,
  description, opening, body), packed as arrays, with its document frequency over the fields that
  say what skills are about and over bodies (the corpus statistics);
* the stems of each skill's negative clauses (all of them, and the description's), its phrases
  (two words side by side in its name or description), its field lengths and its clauses' text.

This is the router's one way to score: `Index.of` is the one place the statistics are counted,
and `scoring.score_index` the one scoring function; skills analysed in memory (a test's, a
benchmark's) are indexed with `Index.of` and scored the same way. A request unpacks the postings
of its own words (and their synonyms) only (`touched`), and the skills it touched are scored; a
skill that shares no word with the request (nor a synonym, nor a negative word, nor is named)
gets the "no request word" line without being looked at.

The index is kept in the core's `FileMemo` (`memo/router-index.bin`), under a key made of the
router's code version and what each record's analysis rests on (name, declared name, description,
categories, path), guarded by the stat of every SKILL.md it was built from: a skill edited, added
or removed builds the index again from the per-skill analyses (`analysis_cache`), where only the
changed skills are analysed again. Both memos are sized to the skill set (`memo_bounds`), so a
large tree never evicts its own entries on every run.
"""

from __future__ import annotations

import array
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import attrs

from swarm_handoff.api import FileMemo, SkillRecord
from swarm_handoff_router.analysis_cache import MIN_RECORDS, blake2b, memo_bounds, memo_version
from swarm_handoff_router.document import DESCRIPTION, DF_FIELDS, FIELDS, NAME, Corpus, Document, analyse
from swarm_handoff_router.text import SYNONYMS

if TYPE_CHECKING:
    from swarm_handoff_router.request import Request

MEMO_NAME = "router-index"
# Skill sets whose index is kept at once (one per working tree or scope filter used lately).
MAX_INDEXES = 8
# The shape of a stored index: a stored value of another shape is built again.
INDEX_FORMAT = 2
# Numbers are stored in the narrowest unsigned array that holds them (the memo is read on every
# warm ranking, so its size is load time): skill numbers in two bytes while the set has fewer than
# 65,536 skills, four beyond; a posting's four counts per skill in one byte when all are under 256,
# else two, else four (a body is read up to 64 KiB). The width is not stored: it follows from the
# number of skills, and a posting's from its byte length, which is checked against its skills.
_WIDTHS = {array.array(code).itemsize: code for code in "IHB"}  # bytes per number -> code


class DamagedIndex(ValueError):
    """A stored index whose data is not what `Index.of` builds: it is built again, never trusted."""


@attrs.frozen
class Posting:
    """One stem's skills: how many are about it (df), how many bodies use it, and the counts per field."""

    frequency: int
    mentions: int
    docs: array.array[int]
    counts: array.array[int]  # len(FIELDS) per skill, in FIELDS order


@attrs.frozen
class Index:
    """What ranking a request against one skill set needs, in plain data the memo can keep."""

    names: tuple[str, ...]
    lengths: tuple[tuple[int, ...], ...]  # per skill, in FIELDS order
    clauses: tuple[tuple[str, ...], ...]  # per skill, its negative clauses as written
    average: tuple[float, ...]  # per field, over every skill
    postings: Mapping[str, tuple[int, int, bytes, bytes]]
    negatives: Mapping[str, bytes]  # stem -> skills with it in a negative clause
    description_negatives: Mapping[str, bytes]  # stem -> skills with it in a description's clause
    pairs: Mapping[str, bytes]  # "first second" -> skills with the two side by side

    @property
    def size(self) -> int:
        """The number of skills indexed."""
        return len(self.names)

    @classmethod
    def of(cls, documents: Sequence[Document]) -> Index:
        """Index analysed documents (their order is the skills' numbers)."""
        rows: dict[str, tuple[list[int], list[int]]] = {}
        frequency: Counter[str] = Counter()
        mentions: Counter[str] = Counter()
        negatives: dict[str, list[int]] = {}
        described: dict[str, list[int]] = {}
        pairs: dict[str, list[int]] = {}
        totals = [0] * len(FIELDS)
        for number, doc in enumerate(documents):
            fields = doc.fields
            for place, field in enumerate(FIELDS):
                totals[place] += doc.lengths[field]
            # The counts in FIELDS order, spelt out; a fifth field fails here, loudly.
            one, two, three, four = (fields[field] for field in FIELDS)
            # The words a skill claims (its name, description or opening: what its IDF counts) are
            # few; the rest of its words are its body's alone, so their counts are (0, 0, 0, n),
            # written without looking the word up in the three small fields (this loop runs once
            # per skill-word, and three lookups a word were a third of building the index).
            claimed = set().union(*(fields[field].keys() for field in DF_FIELDS))
            for word in claimed:
                row = rows.get(word)
                if row is None:
                    row = rows[word] = ([], [])
                row[0].append(number)
                row[1].extend((one.get(word, 0), two.get(word, 0), three.get(word, 0), four.get(word, 0)))
            for word, count in four.items():
                if word in claimed:
                    continue
                row = rows.get(word)
                if row is None:
                    row = rows[word] = ([], [])
                row[0].append(number)
                row[1].extend((0, 0, 0, count))
            frequency.update(claimed)
            mentions.update(four.keys())
            for word in doc.negative_terms:
                negatives.setdefault(word, []).append(number)
            for word in doc.description_negative_terms:
                described.setdefault(word, []).append(number)
            for first, second in doc.pairs:
                pairs.setdefault(f"{first} {second}", []).append(number)
        count = len(documents) or 1
        code = _docs_code(len(documents))
        return cls(
            names=tuple(doc.name for doc in documents),
            lengths=tuple(tuple(doc.lengths[f] for f in FIELDS) for doc in documents),
            clauses=tuple(tuple(doc.negative) for doc in documents),
            average=tuple(total / count for total in totals),
            postings={
                word: (frequency[word], mentions[word], _pack(code, docs), _pack(_code(max(tfs)), tfs))
                for word, (docs, tfs) in rows.items()
            },
            negatives={word: _pack(code, docs) for word, docs in negatives.items()},
            description_negatives={word: _pack(code, docs) for word, docs in described.items()},
            pairs={pair: _pack(code, docs) for pair, docs in pairs.items()},
        )

    def posting(self, word: str) -> Posting | None:
        """The unpacked posting of one stem, or None when no skill uses it."""
        stored = self.postings.get(word)
        if stored is None:
            return None
        if not (isinstance(stored, tuple) and len(stored) == 4):
            raise DamagedIndex("a posting of another shape")
        frequency, mentions, docs, counts = stored
        numbers = _unpack(_docs_code(self.size), docs)
        if not isinstance(counts, bytes) or not numbers:
            raise DamagedIndex("a posting without skills or counts")
        width, rest = divmod(len(counts), len(numbers) * len(FIELDS))
        if rest or width not in _WIDTHS:
            raise DamagedIndex("a posting's counts do not match its skills")
        tfs = _unpack(_WIDTHS[width], counts)
        if not (type(frequency) is int and type(mentions) is int and 0 <= frequency <= self.size and mentions >= 0):
            raise DamagedIndex("a posting's frequencies out of range")
        # Four counts per skill follow from the width check above, and unsigned arrays hold no
        # negative count: only the skill numbers are left to check.
        if max(numbers) >= self.size:
            raise DamagedIndex("a posting's skills out of range")
        return Posting(frequency, mentions, numbers, tfs)

    def to_state(self) -> tuple[object, ...]:
        """The index as plain data for the memo."""
        return (
            INDEX_FORMAT,
            self.names,
            self.lengths,
            self.clauses,
            self.average,
            dict(self.postings),
            dict(self.negatives),
            dict(self.description_negatives),
            dict(self.pairs),
        )

    @classmethod
    def from_state(cls, state: object) -> Index:
        """Rebuild an index `to_state` wrote; raises ValueError for anything else (a damaged or forged memo)."""
        if not (isinstance(state, tuple) and len(state) == 9 and state[0] == INDEX_FORMAT):
            raise DamagedIndex("not a router index")
        _, names, lengths, clauses, average, postings, negatives, described, pairs = state
        size = len(names) if isinstance(names, tuple) else -1
        if not (
            size >= 0
            and all(isinstance(name, str) for name in names)
            and isinstance(lengths, tuple)
            and len(lengths) == size
            and all(_counts(row, len(FIELDS)) for row in lengths)
            and isinstance(clauses, tuple)
            and len(clauses) == size
            and all(isinstance(c, tuple) and all(isinstance(s, str) for s in c) for c in clauses)
            and isinstance(average, tuple)
            and len(average) == len(FIELDS)
            and all(type(a) is float and math.isfinite(a) and a >= 0 for a in average)
        ):
            raise DamagedIndex("a router index of another shape")
        index = cls(names, lengths, clauses, average, postings, negatives, described, pairs)
        index.check()
        return index

    def check(self) -> None:
        """Raise ValueError unless the tables are dicts keyed by text (each posting is checked when unpacked)."""
        for table in (self.postings, self.negatives, self.description_negatives, self.pairs):
            if not isinstance(table, dict) or not all(isinstance(key, str) for key in table):
                raise DamagedIndex("a router index table of another shape")

    def skills(self, table: Mapping[str, bytes], key: str) -> array.array[int]:
        """The skill numbers `table` holds for `key` (none when absent); ValueError for a damaged entry."""
        docs = table.get(key)
        if docs is None:
            return array.array(_docs_code(self.size))
        numbers = _unpack(_docs_code(self.size), docs)
        if numbers and max(numbers) >= self.size:
            raise DamagedIndex("a posting's skills out of range")
        return numbers


def _counts(row: object, width: int) -> bool:
    """True for a tuple of `width` non-negative ints."""
    return isinstance(row, tuple) and len(row) == width and all(type(n) is int and n >= 0 for n in row)


def _docs_code(size: int) -> str:
    """The array code of skill numbers in an index of `size` skills."""
    return "H" if size <= 1 << 16 else "I"


def _code(largest: int) -> str:
    """The narrowest unsigned array code that holds numbers up to `largest`."""
    return "B" if largest < 1 << 8 else "H" if largest < 1 << 16 else "I"


def _pack(code: str, numbers: list[int]) -> bytes:
    """Numbers as the bytes of an array of `code` (machine order: the memo is this machine's)."""
    return array.array(code, numbers).tobytes()


def _unpack(code: str, data: object) -> array.array[int]:
    """The array `_pack` wrote; ValueError for bytes that are not one."""
    if not isinstance(data, bytes):
        raise DamagedIndex("a posting that is not bytes")
    numbers = array.array(code)
    try:
        numbers.frombytes(data)
    except ValueError as exc:  # a length that is not a multiple of the item size
        raise DamagedIndex(f"a damaged posting: {exc}") from exc
    return numbers


# -- the store ------------------------------------------------------------------------------------------


def index_key(records: Sequence[SkillRecord], version: str) -> str:
    """What an index of `records` rests on besides their files: the code and each analysis' inputs."""
    digest = blake2b(version.encode())
    for record in records:
        parts = (record.name, record.declared_name or "", record.description, *record.categories)
        digest.update(repr((parts, record.path or "")).encode("utf-8", "surrogatepass"))
    return f"index:{len(records)}:{digest.hexdigest()}"


def build(records: Sequence[SkillRecord], *, fresh: bool = False) -> Index:
    """The index of `records`: from the memo when no skill (nor the code) changed, else built and kept.

    `fresh` builds it again even when one is stored (the stored one turned out damaged).
    """
    records = list(records)
    version = memo_version() if len(records) >= MIN_RECORDS else ""
    if not version:
        return Index.of(analyse(records))
    _, size = memo_bounds(len(records))
    memo = FileMemo(MEMO_NAME, version, max_entries=MAX_INDEXES, max_bytes=size)
    if not memo.enabled:
        return Index.of(analyse(records))
    key = index_key(records, version)
    stored = None if fresh else memo.recall(key)
    if stored is not None:
        try:
            return Index.from_state(stored)
        except DamagedIndex:
            pass  # damaged or forged: build it again and overwrite it
    observed: list[tuple[str, int, int, int, int, int]] = []
    documents = analyse(records, observed=observed)
    index = Index.of(documents)
    if len(observed) == sum(1 for r in records if r.path and r.path.endswith("SKILL.md")):
        memo.keep(key, index.to_state(), observed)  # every file it rests on observed before it was read
        memo.save()
    return index


# -- scoring a request through the postings -------------------------------------------------------------


@attrs.define
class Touched:
    """One skill a request can score: its counts of the request's words (and synonyms), per field,
    the request's words in its negative clauses (all, and the description's) and its shared phrases."""

    counts: dict[str, tuple[int, ...]] = attrs.field(factory=dict)
    negative: set[str] = attrs.field(factory=set)
    described: set[str] = attrs.field(factory=set)
    pairs: set[tuple[str, str]] = attrs.field(factory=set)


def touched(index: Index, request: Request) -> tuple[dict[int, Touched], Corpus]:
    """The skills a request can score at all, by skill number, holding only the words it can ask about;
    with the statistics of those words (document frequencies, body mentions, average field lengths)."""
    words = set(request.terms)
    for term in request.terms:
        words |= SYNONYMS.get(term, frozenset())
    found: dict[int, Touched] = {}
    frequencies: dict[str, int] = {}
    mentions: dict[str, int] = {}
    width = len(FIELDS)
    name_at, description_at = NAME, DESCRIPTION
    for word in sorted(words):
        posting = index.posting(word)
        if posting is None:
            continue
        frequencies[word] = posting.frequency
        mentions[word] = posting.mentions
        asked = word in request.terms
        # Each skill's counts as a tuple, cut from the flat array in C (`zip` over one iterator).
        for doc, tfs in zip(posting.docs, zip(*[iter(posting.counts)] * width, strict=True), strict=True):
            skill = found.get(doc)
            if skill is None:
                if not asked and not (tfs[name_at] or tfs[description_at]):
                    continue  # a synonym only counts where the name or description claims it
                skill = found[doc] = Touched()
            skill.counts[word] = tfs
    for word in words:
        for doc in index.skills(index.negatives, word):
            found.setdefault(doc, Touched()).negative.add(word)
        for doc in index.skills(index.description_negatives, word):
            found.setdefault(doc, Touched()).described.add(word)
    for first, second in request.phrases:
        for doc in index.skills(index.pairs, f"{first} {second}"):
            if doc in found:  # both words are in its name or description: it is touched already
                found[doc].pairs.add((first, second))
    for number, name in enumerate(index.names):
        if number not in found and request.names(name):
            found[number] = Touched()
    return found, Corpus(index.size, frequencies, dict(zip(FIELDS, index.average, strict=True)), mentions)
