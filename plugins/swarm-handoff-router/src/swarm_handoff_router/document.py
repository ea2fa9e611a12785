"""A skill as the router reads it, and the statistics of the skills ranked together.

A `Document` is one skill's stem counts per field (`FIELDS`: name, description, the opening of the
body, the body), its negative clauses and the word pairs of its name and description; the index
(`index.Index.of`) is built from documents and counts the statistics the candidates of one ranking
share, which a request reads as a `Corpus` (document frequencies, average field lengths).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping

import attrs

from swarm_handoff.api import SkillRecord
from swarm_handoff_router.analysis_cache import analyse_cached
from swarm_handoff_router.text import pairs, split_negative, split_negative_sections, tokenize

# Field weights and length normalisation: a name word is strong evidence, a description word good
# evidence, a body word weak (bodies are long and mention neighbouring tasks).
# The opening of the body (its first OPENING_WORDS content words, which say what the skill is for)
# is a field of its own, on top of the body it is part of: chosen on the dev requests (60 and 120
# words, weights 0.2 and 0.3 tried), it helped on the other two sets as well. The name's weight
# went from 2 to 1.5 once the IDF counted only what skills are about (1, 1.5 and 2 tried on every
# set: 1.5 was as good or better on each).
# The one list of fields, in the order the index stores each skill's counts and lengths.
FIELDS = ("name", "description", "opening", "body")
FIELD_WEIGHTS: Mapping[str, float] = dict(zip(FIELDS, (1.5, 1.0, 0.3, 0.4), strict=True))
FIELD_B: Mapping[str, float] = dict(zip(FIELDS, (0.3, 0.75, 0.75, 0.75), strict=True))
# Where a field's count sits in the index's per-skill count tuples (a word the name or the
# description uses is one the skill claims).
NAME, DESCRIPTION, BODY = (FIELDS.index(field) for field in ("name", "description", "body"))
OPENING_WORDS = 120
# A word's IDF counts the skills that are about it (their name, description or the opening of the
# body), not every skill whose long body mentions it in passing: "pattern" appears in many bodies
# but is what only a few skills are for. Measured on every request set (and a validation set not
# used to build the rest): better top-1 and MRR everywhere than counting the whole body.
DF_FIELDS = FIELDS[:-1]  # every field but the body (the last): the index counts a body-only word as (0, 0, 0, n)
# How much of a SKILL.md body is read: the opening of a long body says what the skill is for.
BODY_MAX_BYTES = 64 * 1024


@attrs.frozen
class Document:
    """One skill as the router sees it: stem counts per field, and its negative clauses."""

    name: str
    fields: Mapping[str, Counter[str]]
    lengths: Mapping[str, int]
    negative: tuple[str, ...]
    negative_terms: frozenset[str]
    description_negative_terms: frozenset[str]
    pairs: frozenset[tuple[str, str]] = frozenset()

    @classmethod
    def of(cls, record: SkillRecord, body: str | None = None) -> Document:
        """Analyse a record (reading its SKILL.md body from `record.path` unless `body` is given)."""
        text = read_body(record.path) if body is None else body
        description, negative = split_negative(record.description)
        body_text, body_negative = split_negative_sections(text)
        names = " ".join(dict.fromkeys(n for n in (record.name, record.declared_name) if n))
        tokens = {
            "name": tokenize(names.replace("-", " ").replace("_", " ").replace(":", " ")),
            "description": tokenize(" ".join([description, *record.categories])),
            "body": tokenize(body_text),
        }
        tokens["opening"] = tokens["body"][:OPENING_WORDS]
        clauses = tuple(negative + body_negative)
        negative_terms = frozenset(t for clause in clauses for t in tokenize(clause))
        return cls(
            record.name,
            {field: Counter(words) for field, words in tokens.items()},
            {field: len(words) for field, words in tokens.items()},
            clauses,
            negative_terms,
            frozenset(t for clause in negative for t in tokenize(clause)),
            frozenset(pairs(tokens["name"]) | pairs(tokens["description"])),
        )


def read_body(path: str | None) -> str:
    """The SKILL.md text after its frontmatter (bounded); empty when there is no readable file."""
    if not path or not path.endswith("SKILL.md"):
        return ""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(BODY_MAX_BYTES)
    except OSError:
        return ""
    text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n")
    if text.startswith("\ufeff"):
        text = text[1:]
    if text.startswith("---"):
        close = text.find("\n---", 3)
        text = text[close + 4 :] if close >= 0 else ""
    return text


@attrs.frozen
class Corpus:
    """What a request reads of its candidates' statistics (counted by `index.Index.of`): size, the
    document frequencies and body mentions of its words, average field lengths."""

    size: int
    frequencies: Mapping[str, int]
    average: Mapping[str, float]
    mentions: Mapping[str, int] = attrs.field(factory=dict)

    def body_share(self, term: str) -> float:
        """How much a body match is worth next to a claim: the word's IDF over every body, over its IDF."""
        df = max(self.mentions.get(term, 0), self.frequencies.get(term, 0))
        return math.log(1 + (self.size - df + 0.5) / (df + 0.5)) / self.idf(term)

    def idf(self, term: str) -> float:
        """Lucene's smoothed IDF: positive, largest for words few skills use."""
        df = self.frequencies.get(term, 0)
        return math.log(1 + (self.size - df + 0.5) / (df + 0.5))

    def unique_idf(self) -> float:
        """The IDF of a word exactly one candidate uses: what naming one skill is worth."""
        return unique_idf(self.size)


def unique_idf(size: int) -> float:
    """The IDF of a word exactly one of `size` skills uses (Lucene's smoothed IDF at df 1)."""
    return math.log(1 + (size - 0.5) / 1.5)


def analyse(
    records: Iterable[SkillRecord], observed: list[tuple[str, int, int, int, int, int]] | None = None
) -> list[Document]:
    """Analyse every record once (bodies read from disk); unchanged SKILL.md files come from the memo.

    `observed` receives the stat of each SKILL.md taken before it was read (see `analyse_cached`).
    """
    return analyse_cached(records, Document.of, Document, observed)
