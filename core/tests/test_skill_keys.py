"""Issue 25: loop detection compares skill names as a reader does (NFKC, case-folded, trimmed, no Cf)."""

from __future__ import annotations

import datetime as dt

import pytest

from swarm_handoff.errors import SwarmError
from swarm_handoff.payload.continuation import check_loop_rules
from swarm_handoff.skill_keys import in_chain, same_skill, skill_key

SPELLINGS = [
    "Next",
    "next ",
    " NEXT",
    "\uff4e\uff45\uff58\uff54",
    "\uff2e\uff45\uff58\uff54\u3000",
    # Format characters (Unicode category Cf) are invisible: zero-width space, word joiner, soft hyphen.
    "ne\u200bxt",
    "next\u2060",
    "ne\u00adxt",
    "\ufeffNext\u200b ",
]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_every_spelling_of_one_name_has_one_key(spelling):
    assert skill_key(spelling) == "next"
    assert same_skill(spelling, "next")
    assert in_chain("next", ["origin", spelling])


def test_an_invisible_character_does_not_make_another_skill():
    assert same_skill("beta\u200b", "beta")
    assert skill_key("b\u2060e\u00adta") == "beta"


def test_different_names_stay_different():
    assert not same_skill("next", "nexts")
    assert not in_chain("next", ["origin", 7, None])


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_continued_chain_loop_rules_see_through_spellings(spelling):
    never = lambda _message: False  # noqa: E731
    with pytest.raises(SwarmError) as caught:
        check_loop_rules(("origin", spelling), "next", "origin", "", never)
    assert caught.value.code == "PAYLOAD_REENTRY_NEEDS_REASON"
    with pytest.raises(SwarmError) as caught:
        check_loop_rules(("origin", "alpha"), "next", spelling, "", never)
    assert caught.value.code == "PAYLOAD_SELF_HANDOFF"


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_the_v3_validator_sees_through_spellings(tmp_path, spelling, swarm_host):
    from swarm_handoff.payload.build3 import build_v3
    from swarm_handoff.payload.validate import validate_payload
    from swarm_handoff.records import SkillRecord
    from swarm_handoff.synthesis import parse_synthesis

    synthesis = parse_synthesis({"original_prompt": "Why?", "problem_type": "analytical", "synthesis_summary": "So."})
    target = SkillRecord(name="next", scope="global", source="test")
    moment = dt.datetime(2026, 2, 8, 10, 15, tzinfo=dt.timezone.utc)
    payload = build_v3(synthesis, target, tmp_path, source="origin", chain=(spelling, "origin"), now=moment).payload
    codes = {p.code for p in validate_payload(payload, swarm_host).problems}
    assert "PAYLOAD_REENTRY_NEEDS_REASON" in codes
    assert "HANDOFF_LOOP" in codes
    selfish = build_v3(synthesis, target, tmp_path, source=spelling.strip(), now=moment).payload
    assert "PAYLOAD_SELF_HANDOFF" in {p.code for p in validate_payload(selfish, swarm_host).problems}


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_registry_v3_penalises_a_target_whatever_the_spelling_in_the_chain(spelling):
    from swarm_handoff.ranking import RankingRequest
    from swarm_handoff.records import SkillRecord
    from swarm_handoff.seed_scorers import RegistryV3Scorer
    from swarm_handoff.synthesis import parse_synthesis

    request = RankingRequest(
        synthesis=parse_synthesis({"original_prompt": "Ship it", "problem_type": "implementation"}),
        chain=("perspective-swarm", spelling),
    )
    record = SkillRecord(name="next", scope="global", source="test")
    points = {c.factor: c.points for c in RegistryV3Scorer().score(record, request)}
    assert points["loop_penalty"] == -30
