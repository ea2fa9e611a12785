""" "No skill fits": how strongly the best skill's words answer a request, against a fitted threshold."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import attrs

from swarm_handoff_router.document import unique_idf
from swarm_handoff_router.request import Request
from swarm_handoff_router.rerank import Match
from swarm_handoff_router.scoring import DECIMALS

# "No skill fits": the evidence that the best skill can take the request, a linear score over three
# features of its word match (not of any one skill): log(1 + its word points), the points its name
# or description claim over what the request's words would be worth if one skill alone used each
# (`Request` weights x the IDF of a word one skill uses), and the share of the request's words it
# matched. Below ABSTAIN_THRESHOLD the answer is "no skill fits". Weights and threshold are fitted
# by `python bench/calibrate_abstain.py` on the `skills: []` requests of some sets and reported on
# the others (docs/routing.md); abstaining on a request a skill can take is the costlier mistake,
# so the threshold maximises F0.5 (precision counts twice) on the calibration sets.
EVIDENCE_WEIGHTS: Mapping[str, float] = {"points": 0.854, "claimed": 3.296, "coverage": 4.979}
ABSTAIN_THRESHOLD = 4.894


@attrs.frozen
class Evidence:
    """How strongly the best skill's words answer the request, and whether that is too weak to name one."""

    score: float
    threshold: float
    features: Mapping[str, float]
    best: str | None

    @property
    def abstain(self) -> bool:
        """True when no skill is a good enough match: the answer should say so."""
        return self.score < self.threshold

    def reason(self) -> str:
        """One sentence saying why the answer abstains (or does not)."""
        said = ", ".join(f"{k} {v:.3f}" for k, v in self.features.items())
        if self.best is None:  # nothing matched: "evidence 0.000 for no skill" said it backwards
            return (
                "no skill shares a word with the request: "
                f"evidence {self.score:.3f} is below the threshold {self.threshold:g}"
            )
        verdict = "below" if self.abstain else "at or above"
        return (
            f"evidence {self.score:.3f} for the best match ({self.best}) is {verdict} the threshold {self.threshold:g} "
            f"({' + '.join(f'{w:g} x {k}' for k, w in EVIDENCE_WEIGHTS.items())}; {said})"
        )


def evidence_features(matches: Sequence[Match], request: Request, size: int) -> tuple[dict[str, float], int | None]:
    """The three features of the best match by word points (see EVIDENCE_WEIGHTS), and its number."""
    best = max(range(len(matches)), key=lambda i: matches[i].total, default=None)
    if best is None or matches[best].total <= 0:
        return {"points": 0.0, "claimed": 0.0, "coverage": 0.0}, None
    match = matches[best]
    worth = sum(request.terms.values()) * unique_idf(size) or 1.0
    coverage = match.matched / len(request.terms) if request.terms else 0.0
    return {"points": math.log1p(match.total), "claimed": match.claimed / worth, "coverage": coverage}, best


def evidence(matches: Sequence[Match], request: Request, names: Sequence[str]) -> Evidence:
    """The evidence of one ranking's best match, against ABSTAIN_THRESHOLD."""
    features, best = evidence_features(matches, request, len(names))
    score = round(math.fsum(EVIDENCE_WEIGHTS[k] * v for k, v in features.items()), DECIMALS)
    return Evidence(score, ABSTAIN_THRESHOLD, features, names[best] if best is not None else None)
