"""The router's points: BM25F relevance of a request to each skill, term by term, with its reasons.

A query term's weight in a skill is BM25F-like: per field, the weighted, length-normalised,
saturated (k1) count of the term (name counts most, the body least), summed, multiplied by the
term's IDF over the candidates being ranked. A query word also matches its general-English synonyms
at half weight, and two request words side by side that stand side by side in the skill's name or
description earn a phrase bonus. Clauses a skill's description (or a "when not to use" section of
its body) gives as negative triggers ("not for exact pricing") do not count for it; a query term
found there costs the skill points instead.

`score_all` scores whole documents (`document.Document`); `score_index` gives the same points and
reasons through the index's postings, looking only at the skills that share a word with the request.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from swarm_handoff.api import Contribution
from swarm_handoff_router.document import FIELD_B, FIELD_WEIGHTS, Corpus, Document
from swarm_handoff_router.index import FIELDS, Index, Touched, touched
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
# A request with more distinct words than this is matched against each skill's own vocabulary
# instead of word by word (identical points; see `_within_reach`).
LONG_REQUEST = 64
NO_MATCH = "no request word appears in the skill's name, description or body"


def _strength(doc: Document, term: str, corpus: Corpus) -> tuple[float, list[str]]:
    """Sum over fields of weight x saturated, length-normalised count of `term`, and where it was.

    Each field saturates on its own, so a word a long body repeats forty times can earn at most the
    body's weight: the name and the description, which say what the skill is for, decide.
    """
    total = 0.0
    where: list[str] = []
    for field, weight in FIELD_WEIGHTS.items():
        tf = doc.fields[field].get(term, 0)
        if not tf:
            continue
        average = corpus.average[field] or 1.0
        norm = 1 - FIELD_B[field] + FIELD_B[field] * doc.lengths[field] / average
        share = corpus.body_share(term) if field == "body" else 1.0
        total += share * weight * (tf / norm) * (K1 + 1) / (tf / norm + K1)
        where.append(f"{field} {tf}x" if share == 1.0 else f"{field} {tf}x (x{share:.2f}, the IDF over bodies)")
    return total, where


def _claims(doc: Document, term: str) -> bool:
    """True when the skill's name or description (negative clauses removed) uses `term`."""
    return bool(doc.fields["name"].get(term) or doc.fields["description"].get(term))


@functools.lru_cache(maxsize=4096)
def _clause_terms(clause: str) -> frozenset[str]:
    """The stems of a negative clause, once per clause: skills share none, but requests repeat them."""
    return frozenset(tokenize(clause))


def _uses(doc: Document, term: str) -> bool:
    """True when the skill's own text (its body outside the 'when not to use' parts) uses `term`."""
    return bool(doc.fields["body"].get(term))


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


def _within_reach(
    doc: Document, request: Request
) -> tuple[Mapping[str, float], Iterable[tuple[tuple[str, str], float]]]:
    """The request terms and phrases a skill can match at all, in request order.

    A short request is looked at whole. A long one (a pasted log, a 100 KB prompt) is cut to the
    words the skill has, their synonyms and its negative words, so ranking thousands of skills costs
    each one its own vocabulary, not the request's: the same points, far fewer looks.
    """
    if len(request.terms) <= LONG_REQUEST:
        return request.terms, request.phrases.items()
    terms = {t: request.terms[t] for t in sorted(doc.reach & request.terms.keys(), key=request.term_order.__getitem__)}
    pairs = sorted(doc.pairs & request.phrases.keys(), key=request.phrase_order.__getitem__)
    return terms, [(pair, request.phrases[pair]) for pair in pairs]


def score_document(doc: Document, request: Request, corpus: Corpus) -> list[Contribution]:
    """One contribution per request term matched (or contradicted), per shared phrase and for being named."""
    return _score(doc, request, corpus)[0]


def _score(doc: Document, request: Request, corpus: Corpus) -> tuple[list[Contribution], Match]:
    """The contributions of one skill and what they are made of (for the re-ranking of the best)."""
    found: list[Contribution] = []
    claimed = 0.0
    terms, phrases = _within_reach(doc, request)
    # A skill word already matched, exactly or as a synonym, is not credited again through a synonym:
    # "blog post" must not count "essay" twice.
    credited = {term for term in terms if any(counts.get(term) for counts in doc.fields.values())}
    for term, query_weight in terms.items():
        origin = request.origins.get(term)
        said = f"'{term}' (for \"{origin}\")" if origin else f"'{term}'"
        in_description_clause = term in doc.description_negative_terms
        if term in doc.negative_terms and not _claims(doc, term) and (in_description_clause or not _uses(doc, term)):
            found.append(_negative(term, said, corpus.idf(term), query_weight, in_description_clause, doc.negative))
            continue
        strength, where = _strength(doc, term, corpus)
        via = ""
        idf = corpus.idf(term)
        # A synonym the name or description uses, at reduced weight, when it says more than the word
        # itself ("pattern" once in a long body, "regex" in the name).
        # (Not for a word an idiom stands for: a synonym of a stand-in is too far from what was said.)
        options = [
            (_strength(doc, s, corpus), s)
            for s in sorted(SYNONYMS.get(term, ()) if not origin else ())
            if _claims(doc, s) and s not in credited
        ]
        if options:
            (synonym_strength, synonym_where), synonym = max(options, key=lambda item: item[0][0])
            synonym_idf = min(idf, corpus.idf(synonym))
            if synonym_idf * synonym_strength * SYNONYM_WEIGHT > idf * strength:
                credited.add(synonym)
                strength, where, idf = synonym_strength * SYNONYM_WEIGHT, synonym_where, synonym_idf
                via = f" as synonym '{synonym}' (x{SYNONYM_WEIGHT})"
        if not strength:
            continue
        points = round(idf * strength * query_weight, DECIMALS)
        reason = f"{said}{via} in {', '.join(where)}; idf {idf:.2f}, request weight {query_weight:g}"
        found.append(Contribution(f"term:{term}", points, reason))
        if any(place.startswith(("name ", "description ")) for place in where):
            claimed += points
    for (first, second), query_weight in phrases:
        if (first, second) in doc.pairs:
            found.append(_phrase(first, second, min(corpus.idf(first), corpus.idf(second)), query_weight))
    if request.names(doc.name):
        found.append(_named(doc.name, corpus))
        claimed += found[-1].points  # the request used the skill's own name: the strongest claim there is
    if not found:
        return [Contribution("router", 0, NO_MATCH)], Match(0)
    return found, Match.of(found, claimed)


def score_all(documents: Sequence[Document], synthesis: Any) -> tuple[list[list[Contribution]], list[Match]]:
    """Every document's word contributions for one request, and what each total is made of."""
    corpus = Corpus.of(documents)
    request = Request.of(synthesis)
    scored = [_score(doc, request, corpus) for doc in documents]
    return [c for c, _ in scored], [m for _, m in scored]


def score_index(built: Index, synthesis: Any) -> tuple[list[list[Contribution]], list[Match]]:
    """`score_all` through an index: only the skills sharing a word with the request are looked at.

    The same points and reasons as `_score` gives each whole document (a test compares the two on
    every labelled request), computed term by term with what does not depend on the skill (IDF,
    the body share, the synonyms to try, the reason for a given set of counts) worked out once.
    """
    request = synthesis if isinstance(synthesis, Request) else Request.of(synthesis)
    found, frequencies, mentions = touched(built, request)
    corpus = Corpus(built.size, frequencies, dict(zip(FIELDS, built.average, strict=True)), mentions)
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
    """`_score` for one request over many skills, with every per-term value computed once."""

    def __init__(self, request: Request, corpus: Corpus) -> None:
        self.request = request
        self.corpus = corpus
        self.average = [corpus.average[field] or 1.0 for field in FIELD_WEIGHTS]
        self.b = [FIELD_B[field] for field in FIELD_WEIGHTS]
        self.weights = [FIELD_WEIGHTS[field] for field in FIELD_WEIGHTS]
        self.fields = list(FIELD_WEIGHTS)
        self.body = self.fields.index("body")
        self.idf: dict[str, float] = {}
        self.share: dict[str, float] = {}
        self.reasons: dict[tuple[str, tuple[int, ...], str], str] = {}
        self.said: dict[str, str] = {}
        self.synonyms: dict[str, list[str]] = {}
        for term in request.terms:
            origin = request.origins.get(term)
            self.said[term] = f"'{term}' (for \"{origin}\")" if origin else f"'{term}'"
            self.synonyms[term] = sorted(SYNONYMS.get(term, ()) if not origin else ())

    def _idf(self, term: str) -> float:
        idf = self.idf.get(term)
        if idf is None:
            idf = self.idf[term] = self.corpus.idf(term)
        return idf

    def _share(self, term: str) -> float:
        share = self.share.get(term)
        if share is None:
            share = self.share[term] = self.corpus.body_share(term)
        return share

    def _strength(self, term: str, tfs: tuple[int, ...], norms: list[float]) -> float:
        """`_strength` from a skill's counts of `term` and its length norms (the same arithmetic)."""
        total = 0.0
        for place, tf in enumerate(tfs):
            if not tf:
                continue
            norm = norms[place]
            share = self._share(term) if place == self.body else 1.0
            total += share * self.weights[place] * (tf / norm) * (K1 + 1) / (tf / norm + K1)
        return total

    def _reason(self, term: str, tfs: tuple[int, ...], synonym: str, idf: float, query_weight: float) -> str:
        """The reason `_score` gives for a term matched with these counts (of `synonym`, when one stood in)."""
        key = (term, tfs, synonym)
        reason = self.reasons.get(key)
        if reason is None:
            word = synonym or term
            where = [
                f"{self.fields[place]} {tf}x"
                if place != self.body or self._share(word) == 1.0
                else f"{self.fields[place]} {tf}x (x{self._share(word):.2f}, the IDF over bodies)"
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
        """The contributions of one skill, as `_score` gives them for its whole document."""
        request = self.request
        counts = skill.counts
        zero = (0, 0, 0, 0)
        norms = [1 - b + b * length / average for b, length, average in zip(self.b, lengths, self.average, strict=True)]
        found: list[Contribution] = []
        claimed = 0.0
        credited = counts.keys() & request.terms.keys()
        body = self.body
        for term, query_weight in request.terms.items():
            tfs = counts.get(term)
            if tfs is None:
                if not (self.synonyms[term] or term in skill.negative):
                    continue  # nothing of it in this skill: no points, as `_score` finds the long way
                tfs = zero
            in_description_clause = term in skill.described
            if term in skill.negative and not (tfs[0] or tfs[1]) and (in_description_clause or not tfs[body]):
                said, idf = self.said[term], self._idf(term)
                found.append(_negative(term, said, idf, query_weight, in_description_clause, clauses))
                continue
            strength = self._strength(term, tfs, norms) if tfs is not zero else 0.0
            used, synonym, idf = tfs, "", self._idf(term)
            best = None
            for other in self.synonyms[term]:
                other_tfs = counts.get(other)
                if other_tfs is not None and (other_tfs[0] or other_tfs[1]) and other not in credited:
                    option = self._strength(other, other_tfs, norms)
                    if best is None or option > best[0]:  # the first of the strongest, as `max` picks
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
            if used[0] or used[1]:
                claimed += points
        for (first, second), query_weight in request.phrases.items():
            if (first, second) in skill.pairs:
                found.append(_phrase(first, second, min(self._idf(first), self._idf(second)), query_weight))
        if request.names(name):
            found.append(_named(name, self.corpus))
            claimed += found[-1].points
        if not found:
            return [Contribution("router", 0, NO_MATCH)], Match(0)
        return found, Match.of(found, claimed)
