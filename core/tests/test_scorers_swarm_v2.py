"""swarm-v2: each of the five factors moves the score by exactly its points, and only it."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from swarm_handoff.ranking import RankingRequest
from swarm_handoff.records import SkillRecord
from swarm_handoff.seed_scorers import (
    IMPLEMENTATION_KEYWORDS,
    SWARM_V2_CATEGORY_MAP,
    SwarmV2Scorer,
)
from swarm_handoff.synthesis import parse_synthesis

# A synthesis and a skill that earn nothing: every test flips one thing and measures the change.
BASE_SYNTHESIS = {
    "original_prompt": "What should we do about the billing service?",
    "problem_type": "decision",
    "synthesis_summary": "Opinions differ on the plan.",
    "convergence_level": "high",
    "key_uncertainties": ["cost"],
}
BASE_SKILL = SkillRecord(name="target", scope="global", source="test", categories=("writing",))


def request(**changes):
    return RankingRequest(synthesis=parse_synthesis({**BASE_SYNTHESIS, **changes}))


def breakdown(record, req):
    return {c.factor: c.points for c in SwarmV2Scorer().score(record, req)}


def delta(before, after):
    """The factors whose points changed, with the change."""
    return {k: after[k] - before[k] for k in before if after[k] != before[k]}


def test_the_baseline_earns_nothing_and_lists_every_factor():
    points = breakdown(BASE_SKILL, request())
    assert points == dict.fromkeys(
        ["category_match", "uncertainty", "implementation", "low_convergence", "project_scope"], 0
    )


@pytest.mark.parametrize(("problem_type", "categories"), sorted(SWARM_V2_CATEGORY_MAP.items()))
def test_category_match_adds_3_for_each_mapped_category(problem_type, categories):
    req = request(problem_type=problem_type)
    before = breakdown(BASE_SKILL, req)
    for category in categories:
        after = breakdown(attrs.evolve(BASE_SKILL, categories=("writing", category)), req)
        assert delta(before, after) == {"category_match": 3}


def test_every_problem_type_the_synthesis_accepts_has_a_category_mapping():
    # issue 17: the v3.0 types (research, implementation, verification) used to score every skill 0
    from swarm_handoff.synthesis import PROBLEM_TYPES, PROBLEM_TYPES_V3

    assert set(SWARM_V2_CATEGORY_MAP) == {*PROBLEM_TYPES, *PROBLEM_TYPES_V3}


@pytest.mark.parametrize("problem_type", ["implementation", "research", "verification"])
def test_v3_problem_types_match_their_own_category(problem_type):
    req = request(problem_type=problem_type)
    skill = attrs.evolve(BASE_SKILL, categories=(problem_type,))
    [contribution] = [c for c in SwarmV2Scorer().score(skill, req) if c.factor == "category_match"]
    assert contribution.points == 3
    assert f"problem_type {problem_type} maps to {problem_type}" == contribution.reason


def test_an_unknown_problem_type_still_says_it_has_no_mapping():
    req = request(problem_type="decision")
    req = attrs.evolve(req, synthesis=attrs.evolve(req.synthesis, problem_type="astrology"))
    [contribution] = [c for c in SwarmV2Scorer().score(BASE_SKILL, req) if c.factor == "category_match"]
    assert contribution.points == 0
    assert "no category mapping" in contribution.reason


def test_uncertainty_adds_2_at_three_uncertainties_with_research():
    skill = attrs.evolve(BASE_SKILL, categories=("writing", "research"), scope="global")
    # Only the count changes between the two requests, so only the uncertainty factor may move.
    req_two = request(problem_type="creative", key_uncertainties=["a", "b"])
    req_three = request(problem_type="creative", key_uncertainties=["a", "b", "c"])
    assert delta(breakdown(skill, req_two), breakdown(skill, req_three)) == {"uncertainty": 2}
    # Without the research category, three uncertainties earn nothing.
    assert breakdown(BASE_SKILL, req_three)["uncertainty"] == 0


@pytest.mark.parametrize("keyword", IMPLEMENTATION_KEYWORDS)
def test_implementation_adds_2_per_keyword_with_the_category(keyword):
    skill = attrs.evolve(BASE_SKILL, categories=("implementation",))
    before = breakdown(skill, request())
    after = breakdown(skill, request(synthesis_summary=f"We should {keyword.upper()} it next."))
    assert delta(before, after) == {"implementation": 2}
    assert breakdown(BASE_SKILL, request(synthesis_summary=f"{keyword} it"))["implementation"] == 0


def test_implementation_keywords_match_as_substrings_as_the_seed_does():
    skill = attrs.evolve(BASE_SKILL, categories=("implementation",))
    assert breakdown(skill, request(synthesis_summary="Decode the logs."))["implementation"] == 2


@pytest.mark.parametrize("level", ["low", "none"])
def test_low_convergence_adds_2_with_research(level):
    skill = attrs.evolve(BASE_SKILL, categories=("research",))
    req_high = request(problem_type="creative", convergence_level="high")
    req_low = request(problem_type="creative", convergence_level=level)
    assert delta(breakdown(skill, req_high), breakdown(skill, req_low)) == {"low_convergence": 2}
    assert breakdown(BASE_SKILL, req_low)["low_convergence"] == 0


def test_medium_or_missing_convergence_adds_nothing():
    skill = attrs.evolve(BASE_SKILL, categories=("research",))
    for changes in ({"convergence_level": "medium"}, {"convergence_level": None}):
        assert breakdown(skill, request(**changes))["low_convergence"] == 0


@pytest.mark.parametrize("scope", ["git-root", "global", "installed", "registry"])
def test_project_scope_adds_1_over_every_other_scope(scope):
    before = breakdown(attrs.evolve(BASE_SKILL, scope=scope), request())
    after = breakdown(attrs.evolve(BASE_SKILL, scope="project"), request())
    assert delta(before, after) == {"project_scope": 1}


def test_all_five_factors_make_ten():
    skill = attrs.evolve(BASE_SKILL, scope="project", categories=("research", "implementation"))
    req = request(key_uncertainties=["a", "b", "c"], convergence_level="none", synthesis_summary="build a prototype")
    assert sum(breakdown(skill, req).values()) == 10


@given(
    problem_type=st.sampled_from([*sorted(SWARM_V2_CATEGORY_MAP), "research"]),
    categories=st.lists(st.sampled_from(["research", "analysis", "implementation", "creative", "x"]), max_size=4),
    uncertainties=st.integers(0, 6),
    level=st.sampled_from(["high", "medium", "low", "none", None]),
    scope=st.sampled_from(["project", "git-root", "global", "installed", "registry"]),
)
def test_the_score_is_always_between_0_and_10(problem_type, categories, uncertainties, level, scope):
    skill = SkillRecord(name="s", scope=scope, source="t", categories=tuple(categories))
    req = request(problem_type=problem_type, key_uncertainties=["u"] * uncertainties, convergence_level=level)
    points = breakdown(skill, req)
    assert 0 <= sum(points.values()) <= 10
    assert len(points) == 5
