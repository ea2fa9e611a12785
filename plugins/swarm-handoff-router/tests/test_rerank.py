"""The router's second look: the best candidates re-ordered by how they match, explained, bounded."""

from __future__ import annotations

import re
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarm_handoff.api import Contribution, SkillRecord, parse_synthesis
from swarm_handoff_router.rerank import RERANK_DEPTH, WEIGHTS, Match, features, rerank, top
from swarm_handoff_router.router import route


def words(points: float) -> list[Contribution]:
    return [Contribution("term:x", points, "words")]


def finals(names: list[str], matches: list[Match]) -> dict[str, float]:
    out = rerank(names, [words(m.total) for m in matches], matches)
    return {n: sum(c.points for c in cs) for n, cs in zip(names, out, strict=True)}


def test_a_skill_that_answers_most_of_the_request_passes_one_word_hit_hard() -> None:
    names = ["body-repeater", "answers-it", "other"]
    matches = [
        Match(10.0, matched=1, claimed=0.0, strongest=10.0, positive=10.0),  # one rare word, hit hard, in a body
        Match(9.0, matched=4, claimed=9.0, strongest=3.0, positive=9.0),  # four words its description claims
        Match(2.0, matched=1, claimed=2.0, strongest=2.0, positive=2.0),
    ]
    final = finals(names, matches)
    assert final["answers-it"] > final["body-repeater"] > final["other"]


def test_points_are_never_negative_and_one_of_the_best_gets_none() -> None:
    names = ["a", "b", "c"]
    matches = [Match(10.0, 3, 10.0, 4.0, 10.0), Match(6.0, 2, 3.0, 4.0, 6.0), Match(5.0, 1, 0.0, 5.0, 5.0)]
    out = rerank(names, [words(m.total) for m in matches], matches)
    points = [next(c.points for c in cs if c.factor == "rerank") for cs in out]
    assert min(points) == 0
    assert all(p >= 0 for p in points)


def test_the_reason_says_what_was_weighed_and_how_the_points_follow() -> None:
    names = ["a", "b", "c"]
    matches = [Match(10.0, 3, 10.0, 4.0, 10.0), Match(6.0, 2, 3.0, 4.0, 6.0), Match(5.0, 1, 0.0, 5.0, 5.0)]
    out = rerank(names, [words(m.total) for m in matches], matches)
    reason = next(c.reason for c in out[1] if c.factor == "rerank")
    for part in ("learned score", "share 0.60", "coverage 0.67", "claimed 0.30", "dominance 0.67"):
        assert part in reason
    assert "request words matched, 2, over the most any of them matched, 3" in reason
    zero = [n for n, cs in zip(names, out, strict=True) if next(c.points for c in cs if c.factor == "rerank") == 0]
    assert f"{zero[0]} gets 0 points" in reason
    # The reason's own arithmetic gives the total: scale x learned score - shift.
    total_rule = re.search(r"Total = ([\d.]+) x the score ([-+]) ([\d.e+]+) ", reason)
    learned = re.search(r"learned score (-?[\d.]+)", reason)
    assert total_rule is not None
    assert learned is not None
    total = sum(c.points for c in out[1])
    shift = float(total_rule.group(3)) * (1 if total_rule.group(2) == "-" else -1)
    assert total == pytest.approx(float(total_rule.group(1)) * float(learned.group(1)) - shift, abs=0.01)


def test_with_fewer_than_two_scored_candidates_nothing_changes() -> None:
    names = ["a", "b"]
    contributions = [words(4.0), [Contribution("router", 0, "nothing")]]
    assert rerank(names, contributions, [Match(4.0, 1, 4.0, 4.0, 4.0), Match(0.0)]) == contributions


def test_features_are_ratios_of_the_same_request() -> None:
    f = features(Match(5.0, matched=2, claimed=2.5, strongest=4.0, positive=5.0), best=10.0, most_matched=4)
    assert f == {"share": 0.5, "coverage": 0.5, "claimed": 0.25, "dominance": 0.8}
    assert features(Match(0.0), best=1.0, most_matched=0) == {
        "share": 0.0,
        "coverage": 0.0,
        "claimed": 0.0,
        "dominance": 0.0,
    }


def test_points_that_cancel_sum_to_nothing_not_to_a_float_residue() -> None:
    # 1.258 + 0.055 - 1.313 is 6.2e-17 in floats: such a skill once entered the ten with a
    # dominance of 1e16 and lifted every other candidate by as much.
    cancelling = [
        Contribution("term:a", 1.258, ""),
        Contribution("term:b", 0.055, ""),
        Contribution("not-for:c", -1.313, ""),
    ]
    match = Match.of(cancelling, claimed=1.313)
    assert match.total == 0
    names = ["cancels", "x", "y"]
    matches = [match, Match(2.901, 1, 2.901, 2.901, 2.901), Match(2.437, 1, 2.437, 2.437, 2.437)]
    out = rerank(names, [cancelling, words(2.901), words(2.437)], matches)
    assert not any(c.factor == "rerank" for c in out[0])
    assert max(c.points for cs in out for c in cs) < 10


def test_a_skill_that_negative_triggers_cut_down_cannot_swamp_the_others() -> None:
    # Its strongest word is many times its net total; its features stay within [0, 1].
    cut = [Contribution("term:a", 8.52, ""), Contribution("not-for:b", -8.17, "")]
    match = Match.of(cut, claimed=8.52)
    assert all(0 <= v <= 1 for v in features(match, best=6.16, most_matched=2).values())
    names = ["invoice-reader", "tax-helper", "cut-down"]
    matches = [Match(6.16, 2, 5.1, 4.0, 6.16), Match(2.48, 1, 2.48, 2.48, 2.48), match]
    out = rerank(names, [words(6.16), words(2.48), cut], matches)
    lifts = [next(c.points for c in cs if c.factor == "rerank") for cs in out]
    assert max(lifts) < 2 * 6.16


def test_candidates_tied_with_the_tenth_all_get_the_second_look() -> None:
    names = [f"twin{i}" for i in range(RERANK_DEPTH + 2)]
    matches = [Match(5.0, 2, 5.0, 2.5, 5.0) for _ in names]
    out = rerank(names, [words(5.0) for _ in names], matches)
    assert all(any(c.factor == "rerank" for c in cs) for cs in out)


points = st.floats(min_value=-20.0, max_value=20.0, allow_nan=False).map(lambda x: round(x, 3))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(points, max_size=6), max_size=2 * RERANK_DEPTH + 4))
def test_any_points_give_bounded_features_and_a_faithful_order(candidates: list[list[float]]) -> None:
    names = [f"s{i:03d}" for i in range(len(candidates))]
    contributions = [[Contribution(f"term:w{k}", p, "") for k, p in enumerate(c)] for c in candidates]
    matches = [Match.of(cs, claimed=sum(c.points for c in cs[:1] if c.points > 0)) for cs in contributions]
    out = rerank(names, contributions, matches)
    final = {n: sum(c.points for c in cs) for n, cs in zip(names, out, strict=True)}
    best_ones = set(top(names, matches))
    if len(best_ones) < 2:
        return
    best = max(m.total for m in matches)
    most = max(matches[j].matched for j in best_ones)
    for i, name in enumerate(names):
        lift = sum(c.points for c in out[i] if c.factor == "rerank")
        assert lift >= 0
        if i in best_ones:
            assert all(0 <= v <= 1 + 1e-9 for v in features(matches[i], best, most).values())
        else:
            assert lift == 0
            assert all(final[names[j]] >= final[name] - 1e-3 for j in best_ones)
    scale = best / WEIGHTS["share"]
    learned = {j: sum(WEIGHTS[k] * v for k, v in features(matches[j], best, most).items()) for j in best_ones}
    for a in best_ones:
        for b in best_ones:
            # The totals' differences are the learned scores' (scaled), up to rounding points to 4 decimals.
            gap = final[names[a]] - final[names[b]]
            assert gap == pytest.approx(scale * (learned[a] - learned[b]), abs=5e-4)


def skill(name: str, description: str) -> SkillRecord:
    return SkillRecord(name=name, scope="global", source="test", description=description)


def test_route_adds_the_second_look_and_can_leave_it_out() -> None:
    skills = (
        skill("release-notes", "Write release notes from merged changes."),
        skill("changelog-keeper", "Keep the changelog of a project up to date for each release."),
        skill("poet", "Write poems."),
    )
    prompt = "write the release notes for this version"
    synthesis = parse_synthesis({"original_prompt": prompt, "problem_type": "research"})
    looked = route(skills, synthesis)
    plain = route(skills, synthesis, second_look=False)
    assert any(c.factor == "rerank" for cs in looked for c in cs)
    assert not any(c.factor == "rerank" for cs in plain for c in cs)
    assert [c for c in looked[0] if c.factor != "rerank"] == plain[0]


def test_the_trainer_learns_which_feature_tells_right_from_wrong(trainer: ModuleType) -> None:
    # Synthetic requests: in half the right skill leads by points, in the other half it is second by
    # points but covers more of the request. Both weights must come out positive, and the learned
    # weights must put the covering skill first where points alone put it second.
    names = [f"s{i}" for i in range(4)]
    rows = []
    for k in range(40):
        right = 0 if k % 2 else 1
        matches = [
            Match(10.0 - i + (k % 3) * 0.1, matched=1 + 3 * (i == right and right == 1), claimed=1.0, strongest=1.0)
            for i in range(4)
        ]
        rows.append({"want": {right}, "matches": matches, "contributions": [words(m.total) for m in matches]})
    weights = trainer.train(names, rows)
    assert weights["share"] > 0
    assert weights["coverage"] > 0
    covering = rows[0]
    assert covering["want"] == {1}
    assert trainer.rank_of(names, covering, None) == 2
    assert trainer.rank_of(names, covering, weights) == 1


def test_weights_that_do_not_reward_points_are_refused() -> None:
    with pytest.raises(ValueError, match="share"):
        rerank(["a", "b"], [words(2.0), words(1.0)], [Match(2.0, 1), Match(1.0, 1)], {**WEIGHTS, "share": 0.0})
