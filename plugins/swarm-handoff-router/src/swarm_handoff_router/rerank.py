"""The router's second look: its best candidates re-ordered by how they match, not only how much.

Word points alone favour a skill that one rare request word hits hard (a long body repeating it)
over one whose name and description answer most of the request. Among the RERANK_DEPTH best by
points, each candidate gets four features of its match, all relative to the other candidates of the
same request, so they mean the same on any set of skills:

* `share`: its points over the best candidate's;
* `coverage`: how many distinct request words it matched, over the most any of them matched;
* `claimed`: the points of words its name or description claims, over the best candidate's points;
* `dominance`: its strongest single word's points over its own total.

A linear score over them (WEIGHTS) orders the candidates; each gets the points that make its total
follow that order (`rerank` points, never negative, so a candidate below the RERANK_DEPTH cannot
pass one of them). The weights are learned, not chosen: a pairwise logistic regression over every
labelled request in bench/routing (`python bench/train_rerank.py`, which prints them and how each
held-out set fares when it is left out of the training). Nothing about any one skill is learned:
the four features are the same arithmetic for every skill and every request.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import attrs

from swarm_handoff.api import Contribution

RERANK_DEPTH = 10
DECIMALS = 4
# Learned by bench/train_rerank.py over every request set in bench/routing (1,544 requests,
# 192 skills); see docs/routing.md for the figures with each held-out set left out.
WEIGHTS: Mapping[str, float] = {"share": 5.95, "coverage": 1.44, "claimed": 1.31, "dominance": -2.94}


@attrs.frozen
class Match:
    """What one candidate's points are made of: the inputs of the features."""

    total: float
    matched: int = 0
    claimed: float = 0.0
    strongest: float = 0.0
    positive: float = 0.0

    @classmethod
    def of(cls, contributions: Sequence[Contribution], claimed: float) -> Match:
        """The match of one candidate from its contributions (totals rounded as the points are)."""
        gains = [c.points for c in contributions if c.points > 0]
        matched = sum(1 for c in contributions if c.factor.startswith("term:") and c.points > 0)
        # Rounded: points that cancel ("+1.258 +0.055 -1.313") must sum to 0, not to a float residue.
        total = round(math.fsum(c.points for c in contributions), DECIMALS)
        return cls(total, matched, round(claimed, DECIMALS), max(gains, default=0.0), round(math.fsum(gains), DECIMALS))


def features(match: Match, best: float, most_matched: int) -> dict[str, float]:
    """The four features of one candidate among the best: ratios in [0, 1], so any skill set reads them alike."""
    return {
        "share": match.total / best,
        "coverage": match.matched / most_matched if most_matched else 0.0,
        # What a skill's negative triggers took away is not claimed either: at most its own total.
        "claimed": min(match.claimed, match.total) / best,
        "dominance": match.strongest / match.positive if match.positive > 0 else 0.0,
    }


def top(
    names: Sequence[str], matches: Sequence[Match], priorities: Sequence[float] | None = None, depth: int = RERANK_DEPTH
) -> list[int]:
    """The `depth` best candidates with points, best first in the host's order, and any tied with the last."""
    ranks = priorities or [0] * len(names)
    scored = sorted(
        (i for i, match in enumerate(matches) if match.total > 0), key=lambda i: (-matches[i].total, ranks[i], names[i])
    )
    if len(scored) <= depth:
        return scored
    last = matches[scored[depth - 1]].total
    return [i for i in scored if matches[i].total >= last]


def rerank(
    names: Sequence[str],
    contributions: Sequence[list[Contribution]],
    matches: Sequence[Match],
    weights: Mapping[str, float] = WEIGHTS,
    *,
    priorities: Sequence[float] | None = None,
) -> list[list[Contribution]]:
    """Add `rerank` points to the best candidates so their totals follow the learned score.

    `priorities` are the candidates' scope priorities, which the host sorts equal totals by.
    """
    if not weights["share"] > 0:
        # Points are turned into the learned order by scaling with this weight: it must reward points.
        raise ValueError(f"the re-ranking weight of 'share' must be positive, not {weights['share']}")
    best_ones = top(names, matches, priorities)
    if len(best_ones) < 2:
        return [list(c) for c in contributions]
    best = matches[best_ones[0]].total
    most = max(matches[i].matched for i in best_ones)
    found = {i: features(matches[i], best, most) for i in best_ones}
    learned = {i: sum(weights[k] * v for k, v in f.items()) for i, f in found.items()}
    # total + points = scale x learned - shift: the ten follow the learned score. The shift is the
    # smallest lift any of them needs, so no one gets negative points and a skill below the ten (no
    # rerank points, no more word points than any of the ten) passes none of them.
    scale = best / weights["share"]
    lowest = min(best_ones, key=lambda i: (learned[i] * scale - matches[i].total, names[i]))
    shift = learned[lowest] * scale - matches[lowest].total
    out = [list(c) for c in contributions]
    sign = "-" if shift >= 0 else "+"
    for i in best_ones:
        f = found[i]
        terms = " + ".join(f"{weights[k]:g} x {k} {v:.2f}" for k, v in f.items()).replace("+ -", "- ")
        reason = (
            f"second look at the {len(best_ones)} best by words: learned score {learned[i]:.3f} = {terms} "
            f"(share: its points over the best's; coverage: request words matched, {matches[i].matched}, over "
            f"the most any of them matched, {most}; claimed: points from words its name or description uses, "
            f"over the best's; dominance: its strongest point over all its gains). Total = {scale:.4g} x the "
            f"score {sign} {abs(shift):.4g} (the same for all of them; {names[lowest]} gets 0 points)"
        )
        out[i].append(Contribution("rerank", round(learned[i] * scale - matches[i].total - shift, DECIMALS), reason))
    return out
