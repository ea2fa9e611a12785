"""registry-v3: each factor of the 0-100 table moves the score by exactly its points."""

from __future__ import annotations

import attrs
import pytest

from swarm_handoff.ranking import HistoryCounts, RankingRequest
from swarm_handoff.records import SkillRecord
from swarm_handoff.seed_scorers import REGISTRY_V3_CATEGORIES, RegistryV3Scorer, offered_inputs
from swarm_handoff.synthesis import parse_synthesis

BASE_SYNTHESIS = {"original_prompt": "Ship the importer", "problem_type": "implementation"}
# A v2 skill with nothing in common with the request: it scores 0 on every factor.
BASE_SKILL = SkillRecord(name="target", scope="global", source="test", categories=("writing",))


def request(chain=(), autonomy=None, history=None, offered=None, **synthesis):
    return RankingRequest(
        synthesis=parse_synthesis({**BASE_SYNTHESIS, **synthesis}),
        chain=chain,
        autonomy=autonomy,
        history=history,
        offered_inputs=offered,
    )


def breakdown(record, req):
    return {c.factor: c.points for c in RegistryV3Scorer().score(record, req)}


def moved(record_before, record_after, req_before, req_after=None):
    before = breakdown(record_before, req_before)
    after = breakdown(record_after, req_after or req_before)
    return {k: after[k] - before[k] for k in before if after[k] != before[k]}


def test_the_baseline_scores_zero_on_all_six_factors():
    assert breakdown(BASE_SKILL, request()) == dict.fromkeys(
        [
            "category_match",
            "schema_compatibility",
            "input_compatibility",
            "previous_success",
            "autonomy_match",
            "loop_penalty",
        ],
        0,
    )


@pytest.mark.parametrize(("problem_type", "table"), sorted(REGISTRY_V3_CATEGORIES.items()))
def test_category_direct_is_40_and_partial_is_20(problem_type, table):
    direct, partial = table
    req = request(problem_type=problem_type)
    for category in direct:
        assert moved(BASE_SKILL, attrs.evolve(BASE_SKILL, categories=(category,)), req) == {"category_match": 40}
    for category in partial:
        assert moved(BASE_SKILL, attrs.evolve(BASE_SKILL, categories=(category,)), req) == {"category_match": 20}


def test_a_direct_category_wins_over_a_partial_one_and_does_not_add_up():
    req = request(problem_type="research")
    both = attrs.evolve(BASE_SKILL, categories=("analysis", "Research"))
    assert breakdown(both, req)["category_match"] == 40


def test_schema_3_0_is_20_and_universal_is_10():
    v3 = attrs.evolve(BASE_SKILL, schema_version="3.0")
    universal = attrs.evolve(BASE_SKILL, schema_type="universal")
    assert moved(BASE_SKILL, v3, request()) == {"schema_compatibility": 20}
    assert moved(BASE_SKILL, universal, request()) == {"schema_compatibility": 10}
    # 3.0 and universal together still earn the factor's maximum, 20.
    assert breakdown(attrs.evolve(v3, schema_type="universal"), request())["schema_compatibility"] == 20
    assert breakdown(attrs.evolve(BASE_SKILL, protocol_version="3.0"), request())["schema_compatibility"] == 20


def test_input_direct_is_20_when_every_requirement_is_offered():
    skill = attrs.evolve(BASE_SKILL, input_requirements=("specification", "requirements"))
    assert moved(skill, skill, request(), request(offered=("specification", "requirements", "x"))) == {
        "input_compatibility": 20
    }


def test_input_partial_is_10_when_some_requirements_are_offered():
    skill = attrs.evolve(BASE_SKILL, input_requirements=("specification", "requirements"))
    assert moved(skill, skill, request(), request(offered=("requirements",))) == {"input_compatibility": 10}


def test_inputs_offered_by_a_synthesis_follow_its_filled_fields():
    skill = attrs.evolve(BASE_SKILL, input_requirements=("research-questions",))
    bare = request()
    rich = request(research_seeds={"open_questions": ["Why?"]})
    assert "research-questions" not in offered_inputs(bare.synthesis)
    assert moved(skill, skill, bare, rich) == {"input_compatibility": 20}


def test_no_input_requirements_earn_nothing():
    assert breakdown(BASE_SKILL, request(offered=("anything",)))["input_compatibility"] == 0


def test_previous_success_is_10_with_a_successful_history():
    history = {"target": HistoryCounts(successes=1)}
    assert moved(BASE_SKILL, BASE_SKILL, request(), request(history=history)) == {"previous_success": 10}
    # Failures that outweigh the successes, or another skill's history, earn nothing.
    assert breakdown(BASE_SKILL, request(history={"target": {"successes": 1, "failures": 2}}))["previous_success"] == 0
    assert breakdown(BASE_SKILL, request(history={"other": {"successes": 5}}))["previous_success"] == 0


@pytest.mark.parametrize(("preference", "declared"), [("autonomous", True), ("supervised", False)])
def test_autonomy_match_is_10_when_meta_autonomous_matches(preference, declared):
    skill = attrs.evolve(BASE_SKILL, meta={"autonomous": declared})
    assert moved(skill, skill, request(), request(autonomy=preference)) == {"autonomy_match": 10}
    opposite = attrs.evolve(BASE_SKILL, meta={"autonomous": not declared})
    assert breakdown(opposite, request(autonomy=preference))["autonomy_match"] == 0
    assert breakdown(BASE_SKILL, request(autonomy=preference))["autonomy_match"] == 0


def test_loop_penalty_is_minus_30_when_the_target_is_in_the_chain():
    req = request(chain=("perspective-swarm", "target"))
    assert moved(BASE_SKILL, BASE_SKILL, request(chain=("perspective-swarm",)), req) == {"loop_penalty": -30}


def test_the_seed_maximum_is_100():
    skill = SkillRecord(
        name="target",
        scope="global",
        source="t",
        categories=("implementation",),
        schema_version="3.0",
        input_requirements=("synthesis",),
        meta={"autonomous": True},
    )
    req = request(autonomy="autonomous", history={"target": {"successes": 3}})
    assert sum(breakdown(skill, req).values()) == 100
