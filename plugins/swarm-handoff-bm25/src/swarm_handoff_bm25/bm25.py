"""BM25 (Okapi) relevance of a skill's description and categories to the synthesis text.

The query is the synthesis: its prompt, reframed challenge, summary, uncertainties, open questions,
suggested search terms and blind spots. Each skill is one document: its description plus its
categories (`skill-development` counts as `skill` and `development`). Document frequencies come
from every candidate of the ranking request, so a word every skill uses ("workflow") weighs little
and a rare one weighs a lot. Each matched query term is one contribution, so `--explain` shows
exactly which words earned which points.

The statistics are counted inside `score_many`, once per request, from the candidates it is given:
the scorer keeps nothing between requests (it is frozen), so rankings one after another, or at the
same time, cannot see each other's candidates.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from swarm_handoff.api import Contribution, SkillRecord

if TYPE_CHECKING:
    from swarm_handoff.api import RankingRequest

# Okapi BM25's usual constants: k1 bounds how much repeating a word helps, b how much long
# descriptions are discounted.
K1 = 1.2
B = 0.75
DECIMALS = 3

# A word is a run of letters and digits of any script: "zürich" stays one word, not "rich".
_TOKEN = re.compile(r"[^\W_]+")
# Words that say nothing about the kind of work; kept short on purpose, so domain words survive.
STOPWORDS = frozenset(
    """a all also an and any are as at be but by can could do does for from has have how if in
    into is it its just more most no not of on one only or other our own same should so some such
    than that the their them then there these this to two very was we what when which who why will
    with would you your""".split()  # noqa: SIM905 - a word list reads better as text
)


# Suffix rules (suffix -> replacement): the longest that fits is applied once, so "implementation",
# "implementing" and "implement" meet, as do "retries" and "retry", "scheduler" and "schedule".
# Far cruder than a real stemmer, and predictable: a contribution's factor shows the stem.
SUFFIXES: tuple[tuple[str, str], ...] = tuple(
    sorted(
        [(suffix, "") for suffix in ("ations", "ation", "ings", "ing", "ions", "ion", "ers", "er", "ed")]
        + [(suffix, "") for suffix in ("es", "ly", "ive", "is", "s", "e")]
        + [("ies", "y"), ("ities", "ity")],
        key=lambda rule: len(rule[0]),
        reverse=True,
    )
)
MIN_STEM = 3


def stem(word: str) -> str:
    """Strip one common English suffix, keeping at least three letters."""
    for suffix, replacement in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) + len(replacement) >= MIN_STEM:
            return word[: -len(suffix)] + replacement
    return word


def tokenize(text: str) -> list[str]:
    """Lower-case, stemmed words and numbers, without stopwords or one-letter tokens."""
    text = text if text.isascii() else unicodedata.normalize("NFKC", text)  # one spelling of each letter
    return [stem(t) for t in _TOKEN.findall(text.lower()) if len(t) > 1 and t not in STOPWORDS]


def document_tokens(record: SkillRecord) -> list[str]:
    """The words BM25 matches for one skill: its description, then its categories."""
    return tokenize(" ".join([record.description, *record.categories]))


def query_text(synthesis: Any) -> str:
    """Join the synthesis fields that describe the problem, in the order a reader meets them."""
    parts: list[str] = [synthesis.original_prompt, synthesis.reframed_challenge, synthesis.synthesis_summary]
    parts += synthesis.key_uncertainties
    parts += synthesis.open_questions
    parts += [str(t.get("term", "")) for t in synthesis.suggested_terms]
    parts += synthesis.blind_spots
    return " ".join(p for p in parts if p)


def query_terms(synthesis: Any) -> list[str]:
    """Distinct query words in first-seen order (a word repeated in the synthesis counts once)."""
    return list(dict.fromkeys(tokenize(query_text(synthesis))))


@attrs.frozen
class Corpus:
    """Document count, average length and document frequencies over the ranked candidates."""

    size: int
    average_length: float
    frequencies: Mapping[str, int]

    @classmethod
    def of(cls, documents: Iterable[Sequence[str]]) -> Corpus:
        """Count once over every candidate's tokens."""
        docs = list(documents)
        frequencies: Counter[str] = Counter()
        for doc in docs:
            frequencies.update(set(doc))
        total = sum(len(doc) for doc in docs)
        return cls(len(docs), total / len(docs) if docs else 0.0, dict(frequencies))

    def idf(self, term: str) -> float:
        """Lucene's smoothed IDF: always positive, largest for words few skills use."""
        df = self.frequencies.get(term, 0)
        return math.log(1 + (self.size - df + 0.5) / (df + 0.5))


def term_score(tf: int, length: int, idf: float, average_length: float, k1: float = K1, b: float = B) -> float:
    """One term's BM25 weight in one document."""
    norm = 1 - b + b * (length / average_length if average_length else 1.0)
    return idf * tf * (k1 + 1) / (tf + k1 * norm)


@attrs.frozen
class BM25Scorer:
    """Scores candidates by BM25 against the synthesis, one contribution per matched term."""

    k1: float = K1
    b: float = B

    def score_many(self, candidates: Sequence[SkillRecord], request: RankingRequest) -> list[list[Contribution]]:
        """Every candidate of one request, in order: the corpus statistics are theirs, counted once."""
        documents = [document_tokens(c) for c in candidates]
        corpus = Corpus.of(documents)
        terms = query_terms(request.synthesis)
        return [self._explain(doc, terms, corpus) for doc in documents]

    def score(self, candidate: SkillRecord, request: RankingRequest) -> list[Contribution]:
        """One candidate on its own, as a corpus of one (ranking calls `score_many` with them all)."""
        return self.score_many((candidate,), request)[0]

    def _explain(self, doc: Sequence[str], terms: Sequence[str], corpus: Corpus) -> list[Contribution]:
        """One contribution per query term found in `doc`, or one zero contribution saying none was."""
        counts = Counter(doc)
        found: list[Contribution] = []
        for term in terms:
            tf = counts.get(term, 0)
            if not tf:
                continue
            idf = corpus.idf(term)
            points = round(term_score(tf, len(doc), idf, corpus.average_length, self.k1, self.b), DECIMALS)
            reason = f"'{term}' appears {tf}x in description/categories ({len(doc)} words); idf {idf:.2f}"
            found.append(Contribution(f"term:{term}", points, reason))
        if not found:
            return [Contribution("bm25", 0, "no synthesis word appears in the description or categories")]
        return found
