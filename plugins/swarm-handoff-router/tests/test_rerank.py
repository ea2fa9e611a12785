"""The router's second look: the best candidates re-ordered by how they match, explained, bounded."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarm_handoff.api import Contribution, SkillRecord, parse_synthesis
from swarm_handoff_router.rerank import RERANK_DEPTH, WEIGHTS, Match, features, rerank
from swarm_handoff_router.router import route

TRAINER = Path(__file__).resolve().parents[3] / "bench" / "train_rerank.py"


def words(points: float) -> list[Contribution]:
    return [Contribution("term:x", points, "words")]


def finals(names: list[str], matches: list[Match]) -> dict[str, float]:
    out = rerank(names, [words(m.total) for m in matches], matches)
    return {n: sum(c.points for c in cs) for n, cs in zip(names, out, strict=True)}


def test_a_skill_that_answers_most_of_the_request_passes_one_word_hit_hard() -> None:
    names = ["body-repeater", "answers-it", "other"]
    matches = [
        Match(10.0, matched=1, claimed=0.0, strongest=10.0),  # one rare word, many times, in a body
        Match(9.0, matched=4, claimed=9.0, strongest=3.0),  # four request words its description claims
        Match(2.0, matched=1, claimed=2.0, strongest=2.0),
    ]
    final = finals(names, matches)
    assert final["answers-it"] > final["body-repeater"] > final["other"]


def test_points_are_never_negative_and_the_weakest_of_the_best_gets_none() -> None:
    names = ["a", "b", "c"]
    matches = [Match(10.0, 3, 10.0, 4.0), Match(6.0, 2, 3.0, 4.0), Match(5.0, 1, 0.0, 5.0)]
    out = rerank(names, [words(m.total) for m in matches], matches)
    points = [next(c.points for c in cs if c.factor == "rerank") for cs in out]
    assert min(points) == 0
    assert all(p >= 0 for p in points)


def test_the_reason_says_what_was_weighed() -> None:
    names = ["a", "b"]
    matches = [Match(10.0, 3, 10.0, 4.0), Match(6.0, 2, 3.0, 4.0)]
    reason = next(c.reason for c in rerank(names, [words(10.0), words(6.0)], matches)[1] if c.factor == "rerank")
    assert "matched 2 of the 3 request words" in reason
    assert "name or description" in reason
    assert "strongest word" in reason
    assert "learned" in reason


def test_with_fewer_than_two_scored_candidates_nothing_changes() -> None:
    names = ["a", "b"]
    contributions = [words(4.0), [Contribution("router", 0, "nothing")]]
    assert rerank(names, contributions, [Match(4.0, 1, 4.0, 4.0), Match(0.0)]) == contributions


def test_features_are_ratios_of_the_same_request() -> None:
    f = features(Match(5.0, matched=2, claimed=2.5, strongest=4.0), best=10.0, most_matched=4)
    assert f == {"share": 0.5, "coverage": 0.5, "claimed": 0.25, "dominance": 0.8}
    assert features(Match(0.0), best=1.0, most_matched=0) == {
        "share": 0.0,
        "coverage": 0.0,
        "claimed": 0.0,
        "dominance": 0.0,
    }


match_strategy = st.builds(
    lambda total, matched, claimed_share, strongest_share: Match(
        total, matched, round(total * claimed_share, 4), round(total * strongest_share, 4)
    ),
    st.floats(min_value=0.0, max_value=100.0, allow_nan=False).map(lambda x: round(x, 4)),
    st.integers(min_value=0, max_value=12),
    st.floats(min_value=0.0, max_value=1.0),
    st.floats(min_value=0.0, max_value=1.0),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(match_strategy, min_size=0, max_size=3 * RERANK_DEPTH))
def test_the_best_are_reordered_among_themselves_and_nobody_below_passes_them(matches: list[Match]) -> None:
    names = [f"s{i:03d}" for i in range(len(matches))]
    final = finals(names, matches)
    scored = sorted((i for i, m in enumerate(matches) if m.total > 0), key=lambda i: (-matches[i].total, names[i]))
    best_ones, rest = scored[:RERANK_DEPTH], scored[RERANK_DEPTH:]
    for i in rest:
        assert final[names[i]] == pytest.approx(matches[i].total)
        assert all(final[names[j]] >= final[names[i]] - 1e-9 for j in best_ones)
    if len(best_ones) >= 2:
        best = matches[best_ones[0]].total
        most = max(matches[j].matched for j in best_ones)
        learned = {j: sum(WEIGHTS[k] * v for k, v in features(matches[j], best, most).items()) for j in best_ones}
        for a in best_ones:
            for b in best_ones:
                if learned[a] > learned[b] + 1e-6:
                    assert final[names[a]] > final[names[b]] - 1e-3


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


@pytest.fixture(scope="module")
def trainer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("train_rerank", TRAINER)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
