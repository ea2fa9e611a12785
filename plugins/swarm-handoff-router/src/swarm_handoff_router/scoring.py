"""The router's points: BM25F relevance of a request to each skill, term by term, with its reasons.

A query term's weight in a skill is BM25F-like: per field, the weighted, length-normalised,
saturated (k1) count of the term (name counts most, the body least), summed, multiplied by the
term's IDF over the candidates being ranked. A query word also matches its general-English synonyms
at half weight, and two request words side by side that stand side by side in the skill's name or
description earn a phrase bonus. Clauses a skill's description (or a "when not to use" section of
its body) gives as negative triggers ("not for exact pricing") do not count for it; a query term
found there costs the skill points instead.

`score_index` is the one scoring function: through the index's postings (`index.Index`), it looks
only at the skills that share a word with the request. Analysed documents are scored by indexing
them first (`score_all`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from swarm_handoff.api import Contribution
from swarm_handoff_router.document import BODY, DESCRIPTION, FIELD_B, FIELD_WEIGHTS, FIELDS, NAME, Corpus, Document
from swarm_handoff_router.index import Index, Touched, touched
from swarm_handoff_router.request import Request
from swarm_handoff_router.rerank import Match
from swarm_handoff_router.text import SYNONYM_WEIGHT, SYNONYMS, tokenize

K1 = 1.2
# A request that calls on a skill by name ("use the planner", "hand it to decision-critic") gives it
# this many times the IDF of a word no other skill uses.
NAME_MENTION_WEIGHT = 2.0
# A query term in a negative clause costs this many times its IDF.
NEGATIVE_WEIGHT = 1.5
# ... and this many when only a "when not to use" section of the body says so.
NEGATIVE_BODY_WEIGHT = 0.5
DECIMALS = 3
# Two request words side by side that stand side by side in a skill's name or description ("root
# cause", "writing style") earn this many times the commoner word's IDF on top of the two words: a
# phrase says more than its words apart. Chosen on the dev requests (0.25, 0.5, 1.0, 1.5 tried).
PHRASE_WEIGHT = 1.0
NO_MATCH = "no request word appears in the skill's name, description or body"
NO_COUNTS = (0,) * len(FIELDS)


@functools.lru_cache(maxsize=4096)
def _clause_terms(clause: str) -> frozenset[str]:
    """The stems of a negative clause, once per clause: skills share none, but requests repeat them."""
    return frozenset(tokenize(clause))


def _negative(
    term: str, said: str, idf: float, query_weight: float, in_description_clause: bool, clauses: Sequence[str]
) -> Contribution:
    """The points a term costs a skill whose negative clause names it, and the clause it is in."""
    weight = NEGATIVE_WEIGHT if in_description_clause else NEGATIVE_BODY_WEIGHT
    points = -round(weight * idf * query_weight, DECIMALS)
    clause = next(c for c in clauses if term in _clause_terms(c))
    return Contribution(f"not-for:{term}", points, f'{said} is in a negative trigger: not for "{clause[:80]}"')


def _phrase(first: str, second: str, idf: float, query_weight: float) -> Contribution:
    """The bonus for two request words side by side in a skill's name or description (`idf`: the commoner's)."""
    points = round(PHRASE_WEIGHT * idf * query_weight, DECIMALS)
    reason = (
        f"'{first} {second}' side by side in the name or description; "
        f"idf {idf:.2f} (the commoner word's) x{PHRASE_WEIGHT:g}, request weight {query_weight:g}"
    )
    return Contribution(f"phrase:{first} {second}", points, reason)


def _named(name: str, corpus: Corpus) -> Contribution:
    """The points for a request that calls on the skill by its name."""
    points = round(NAME_MENTION_WEIGHT * corpus.unique_idf(), DECIMALS)
    reason = f"the request names the skill ('{name}'); x{NAME_MENTION_WEIGHT:g} the IDF of a word only it uses"
    return Contribution("named", points, reason)


def score_all(documents: Sequence[Document], synthesis: Any) -> tuple[list[list[Contribution]], list[Match]]:
    """Every analysed document's word contributions for one request: indexed, then scored (`score_index`)."""
    return score_index(Index.of(documents), synthesis)


def score_index(built: Index, synthesis: Any) -> tuple[list[list[Contribution]], list[Match]]:
    """Every indexed skill's word contributions for one request, and what each total is made of.

    Only the skills sharing a word with the request are looked at, term by term, with what does not
    depend on the skill (IDF, the body share, the synonyms to try, the reason for a given set of
    counts) worked out once per request.
    """
    request = synthesis if isinstance(synthesis, Request) else Request.of(synthesis)
    found, corpus = touched(built, request)
    nothing = Contribution("router", 0, NO_MATCH)
    contributions: list[list[Contribution]] = [[nothing] for _ in range(built.size)]
    matches = [Match(0)] * built.size
    scorer = _RequestScorer(request, corpus)
    for number, skill in found.items():
        contributions[number], matches[number] = scorer.score(
            built.names[number], skill, built.lengths[number], built.clauses[number]
        )
    return contributions, matches


class _RequestScorer:
    """One request's scoring of many skills, with every per-term value computed once."""

    def __init__(self, request: Request, corpus: Corpus) -> None:
        self.request = request
        self.corpus = corpus
        self.average = [corpus.average[field] or 1.0 for field in FIELDS]
        self.b = [FIELD_B[field] for field in FIELDS]
        self.weights = [FIELD_WEIGHTS[field] for field in FIELDS]
        self.idf: dict[str, float] = {}
        self.share: dict[str, float] = {}
        self.reasons: dict[tuple[str, tuple[int, ...], str], str] = {}
        self.said: dict[str, str] = {}
        self.synonyms: dict[str, list[str]] = {}
        for term in request.terms:
            origin = request.origins.get(term)
            self.said[term] = f"'{term}' (for \"{origin}\")" if origin else f"'{term}'"
            self.synonyms[term] = sorted(SYNONYMS.get(term, ()) if not origin else ())
        # A skill is looked at only for the request terms it can score: those it uses, those its
        # negative clauses name, and those a synonym it uses stands in for; in request order (the
        # points are summed in it). A long request (a pasted log) then costs each skill its own
        # words, not the request's.
        self.place = {term: place for place, term in enumerate(request.terms)}
        self.stands_for: dict[str, list[str]] = {}
        for term, synonyms in self.synonyms.items():
            for synonym in synonyms:
                self.stands_for.setdefault(synonym, []).append(term)

    def _idf(self, term: str) -> float:
        """The IDF of `term` over the candidates, once per request."""
        idf = self.idf.get(term)
        if idf is None:
            idf = self.idf[term] = self.corpus.idf(term)
        return idf

    def _share(self, term: str) -> float:
        """The body share of `term` (`Corpus.body_share`), once per request."""
        share = self.share.get(term)
        if share is None:
            share = self.share[term] = self.corpus.body_share(term)
        return share

    def _strength(self, term: str, tfs: tuple[int, ...], norms: list[float]) -> float:
        """Sum over fields of weight x saturated, length-normalised count of `term` (`tfs`, in FIELDS order).

        Each field saturates on its own, so a word a long body repeats forty times can earn at most
        the body's weight: the name and the description, which say what the skill is for, decide.
        """
        total = 0.0
        for place, tf in enumerate(tfs):
            if not tf:
                continue
            norm = norms[place]
            share = self._share(term) if place == BODY else 1.0
            total += share * self.weights[place] * (tf / norm) * (K1 + 1) / (tf / norm + K1)
        return total

    def _reason(self, term: str, tfs: tuple[int, ...], synonym: str, idf: float, query_weight: float) -> str:
        """The reason for a term matched with these counts (of `synonym`, when one stood in), once per request."""
        key = (term, tfs, synonym)
        reason = self.reasons.get(key)
        if reason is None:
            word = synonym or term
            where = [
                f"{FIELDS[place]} {tf}x"
                if place != BODY or self._share(word) == 1.0
                else f"{FIELDS[place]} {tf}x (x{self._share(word):.2f}, the IDF over bodies)"
                for place, tf in enumerate(tfs)
                if tf
            ]
            via = f" as synonym '{synonym}' (x{SYNONYM_WEIGHT})" if synonym else ""
            said = self.said[term]
            reason = f"{said}{via} in {', '.join(where)}; idf {idf:.2f}, request weight {query_weight:g}"
            self.reasons[key] = reason
        return reason

    def score(
        self, name: str, skill: Touched, lengths: tuple[int, ...], clauses: tuple[str, ...]
    ) -> tuple[list[Contribution], Match]:
        """One contribution per request term matched (or contradicted), per shared phrase and for being named."""
        request = self.request
        counts = skill.counts
        zero = NO_COUNTS
        name_at, description_at, body = NAME, DESCRIPTION, BODY
        norms = [1 - b + b * length / average for b, length, average in zip(self.b, lengths, self.average, strict=True)]
        found: list[Contribution] = []
        claimed = 0.0
        # A skill word already matched, exactly or as a synonym, is not credited again through a
        # synonym: "blog post" must not count "essay" twice.
        terms = request.terms
        credited = counts.keys() & terms.keys()
        looked = credited | (skill.negative & terms.keys())
        stands_for = self.stands_for
        for word in counts:
            if word in stands_for:
                looked.update(stands_for[word])
        for term in sorted(looked, key=self.place.__getitem__):
            query_weight = terms[term]
            tfs = counts.get(term, zero)
            in_description_clause = term in skill.described
            # A word its negative clause names costs the skill points, unless its name or description
            # claims the word, or (for a body's "when not to use" section) its own body uses it.
            claims = tfs[name_at] or tfs[description_at]
            if term in skill.negative and not claims and (in_description_clause or not tfs[body]):
                said, idf = self.said[term], self._idf(term)
                found.append(_negative(term, said, idf, query_weight, in_description_clause, clauses))
                continue
            strength = self._strength(term, tfs, norms) if tfs is not zero else 0.0
            used, synonym, idf = tfs, "", self._idf(term)
            # A synonym the name or description uses, at reduced weight, when it says more than the
            # word itself ("pattern" once in a long body, "regex" in the name). (Not for a word an
            # idiom stands for: a synonym of a stand-in is too far from what was said.)
            best = None
            for other in self.synonyms[term]:
                other_tfs = counts.get(other)
                if other_tfs is None or other in credited or not (other_tfs[name_at] or other_tfs[description_at]):
                    continue
                option = self._strength(other, other_tfs, norms)
                if best is None or option > best[0]:  # the first of the strongest
                    best = (option, other, other_tfs)
            if best is not None:
                synonym_strength, other, other_tfs = best
                synonym_idf = min(idf, self._idf(other))
                if synonym_idf * synonym_strength * SYNONYM_WEIGHT > idf * strength:
                    credited.add(other)
                    strength, used, synonym, idf = synonym_strength * SYNONYM_WEIGHT, other_tfs, other, synonym_idf
            if not strength:
                continue
            points = round(idf * strength * query_weight, DECIMALS)
            found.append(Contribution(f"term:{term}", points, self._reason(term, used, synonym, idf, query_weight)))
            if used[name_at] or used[description_at]:
                claimed += points
        if skill.pairs:  # most skills share no phrase with the request: not one lookup per request phrase
            for (first, second), query_weight in request.phrases.items():
                if (first, second) in skill.pairs:
                    found.append(_phrase(first, second, min(self._idf(first), self._idf(second)), query_weight))
        if request.names(name):
            found.append(_named(name, self.corpus))
            claimed += found[-1].points  # the request used the skill's own name: the strongest claim there is
        if not found:
            return [Contribution("router", 0, NO_MATCH)], Match(0)
        return found, Match.of(found, claimed)
