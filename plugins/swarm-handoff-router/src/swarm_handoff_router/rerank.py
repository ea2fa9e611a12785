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

from collections.abc import Mapping, Sequence

import attrs

from swarm_handoff.api import Contribution

RERANK_DEPTH = 10
DECIMALS = 4
# Learned by bench/train_rerank.py over every request set in bench/routing (1,544 requests,
# 192 skills); see docs/routing.md for the figures with each held-out set left out.
WEIGHTS: Mapping[str, float] = {"share": 5.87, "coverage": 1.73, "claimed": 1.35, "dominance": -2.40}


@attrs.frozen
class Match:
    """What one candidate's word points are made of: the inputs of the features."""

    total: float
    matched: int = 0
    claimed: float = 0.0
    strongest: float = 0.0


def features(match: Match, best: float, most_matched: int) -> dict[str, float]:
    """The four features of one candidate among the best: ratios, so any skill set reads them alike."""
    return {
        "share": match.total / best,
        "coverage": match.matched / most_matched if most_matched else 0.0,
        "claimed": match.claimed / best,
        "dominance": match.strongest / match.total if match.total > 0 else 0.0,
    }


def top(names: Sequence[str], matches: Sequence[Match], depth: int = RERANK_DEPTH) -> list[int]:
    """The indexes of the `depth` best candidates with points, best first (ties by name)."""
    scored = [i for i, match in enumerate(matches) if match.total > 0]
    return sorted(scored, key=lambda i: (-matches[i].total, names[i]))[:depth]


def rerank(
    names: Sequence[str],
    contributions: Sequence[list[Contribution]],
    matches: Sequence[Match],
    weights: Mapping[str, float] = WEIGHTS,
) -> list[list[Contribution]]:
    """Add `rerank` points to the best candidates so their totals follow the learned score."""
    if weights["share"] <= 0:
        # Points are turned into the learned order by scaling with this weight: it must reward points.
        raise ValueError(f"the re-ranking weight of 'share' must be positive, not {weights['share']}")
    best_ones = top(names, matches)
    if len(best_ones) < 2:
        return [list(c) for c in contributions]
    best = matches[best_ones[0]].total
    most = max(matches[i].matched for i in best_ones)
    # total + points = best / w_share x (the learned score): the order of the learned score.
    scale = best / weights["share"]
    found = {i: features(matches[i], best, most) for i in best_ones}
    raw = {i: scale * sum(weights[k] * v for k, v in f.items() if k != "share") for i, f in found.items()}
    floor = min(raw.values())
    out = [list(c) for c in contributions]
    for i in best_ones:
        f = found[i]
        reason = (
            f"among the {len(best_ones)} best by words: matched {matches[i].matched} of the {most} request words "
            f"the best-covered matched (x{weights['coverage']:g}), {f['claimed']:.2f} of the best total from words "
            f"its name or description claims (x{weights['claimed']:g}), its strongest word {f['dominance']:.2f} "
            f"of its points (x{weights['dominance']:g}); weights learned from labelled requests"
        )
        out[i].append(Contribution("rerank", round(raw[i] - floor, DECIMALS), reason))
    return out
