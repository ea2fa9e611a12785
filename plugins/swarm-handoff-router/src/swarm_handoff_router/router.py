"""The `router` scorer: every skill ranked for a request in words, and whether any fits.

The points come from `scoring` (BM25F over each skill's name, description and body, honouring its
"not for ..." triggers), through the stored `index` of the skill set, then the best few are
re-ranked (`rerank`); `evidence` says whether the best is good enough to name.

Statistics (document frequencies, average field lengths) come from the candidates of the one
request being ranked, built afresh for each request inside `score_many`, which the host calls
once per ranking with every candidate: the scorer holds no state between requests. `score` (one
candidate) ranks that candidate on its own, as a set of one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from swarm_handoff.api import Contribution, SkillRecord
from swarm_handoff_router.document import Document
from swarm_handoff_router.evidence import Evidence, evidence
from swarm_handoff_router.index import DamagedIndex, Index, build
from swarm_handoff_router.request import Request
from swarm_handoff_router.rerank import Match, rerank
from swarm_handoff_router.scoring import score_index

if TYPE_CHECKING:
    from swarm_handoff.api import RankingRequest


def route(
    records: Sequence[SkillRecord],
    synthesis: Any,
    documents: Sequence[Document] | None = None,
    *,
    second_look: bool = True,
) -> list[list[Contribution]]:
    """Score every record for one request, through the index of its skills.

    Without `documents`, the index is the stored one (`index.build`); with `documents` (analysed
    in memory, from `analyse`), it is built of them: the same scoring either way.
    `second_look=False` gives the word points alone (what the re-ranking weights are learned from).
    """
    if documents is not None:
        built = Index.of(documents)
        contributions, matches = score_index(built, synthesis)
        names = list(built.names)
    else:
        names, contributions, matches, _ = _indexed(records, synthesis)
    if not second_look:
        return contributions
    return rerank(names, contributions, matches, priorities=[r.priority for r in records])


def route_with_evidence(records: Sequence[SkillRecord], synthesis: Any) -> tuple[list[list[Contribution]], Evidence]:
    """`route` through the index, with the evidence that the best skill fits (for "no skill fits")."""
    names, contributions, matches, request = _indexed(records, synthesis)
    ranked = rerank(names, contributions, matches, priorities=[r.priority for r in records])
    return ranked, evidence(matches, request, names)


def _indexed(
    records: Sequence[SkillRecord], synthesis: Any
) -> tuple[list[str], list[list[Contribution]], list[Match], Request]:
    """The word contributions and matches of every record through the (stored) index."""
    request = Request.of(synthesis)
    built = build(records)
    try:
        contributions, matches = score_index(built, request)
    except DamagedIndex:  # a stored posting found damaged once unpacked: built again, and stored anew
        built = build(records, fresh=True)
        contributions, matches = score_index(built, request)
    return list(built.names), contributions, matches, request


class RouterScorer:
    """The `router` scorer component: stateless; `score_many` ranks a request's candidates together."""

    def score_many(self, candidates: Sequence[SkillRecord], request: RankingRequest) -> list[list[Contribution]]:
        """Contributions for every candidate of one request, in order (statistics built once)."""
        return route(candidates, request.synthesis)

    def score(self, candidate: SkillRecord, request: RankingRequest) -> list[Contribution]:
        """Contributions for one candidate on its own (ranking calls `score_many` with them all)."""
        return self.score_many((candidate,), request)[0]
