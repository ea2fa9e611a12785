"""v3.0 payloads: the schema's rules, the rules beyond it, the token budget, and the real examples."""

from __future__ import annotations

import copy
import datetime as dt
import json
from pathlib import Path

import pytest

from swarm_handoff.payload.build3 import PayloadTooLarge, build_v3, fit_budget, shorten, v3_path
from swarm_handoff.payload.canonical import check_integrity
from swarm_handoff.payload.v3 import estimate_tokens
from swarm_handoff.payload.validate import validate_payload
from swarm_handoff.records import SkillRecord
from swarm_handoff.synthesis import parse_synthesis

# ../shared beside the checkout (CI lays it there), found by walking up from this file.
SHARED = next(
    (p / "shared" for p in Path(__file__).resolve().parents if (p / "shared" / "seeds").is_dir()),
    Path("shared-not-found"),
)
EXAMPLES = SHARED / "spec" / "examples"
NOW = dt.datetime(2026, 2, 8, 10, 15, tzinfo=dt.timezone.utc)
TARGET = SkillRecord(name="skill-editor", scope="global", source="test", categories=("skill-development",))


def synthesis(**overrides):
    data = {
        "original_prompt": "We need a reusable validation skill.",
        "problem_type": "implementation",
        "synthesis_summary": "A shared validator skill would remove duplicated checks in twelve endpoints.",
        "convergence_level": "high",
        "key_uncertainties": ["rule format"],
        "insights": {"convergent": [{"theme": "reuse", "confidence_score": 8}]},
        "research_seeds": {"open_questions": ["Which formats first?"]},
    }
    data.update(overrides)
    return parse_synthesis(data)


@pytest.fixture
def session(tmp_path):
    folder = tmp_path / "session"
    (folder / "perspectives").mkdir(parents=True)
    (folder / "perspectives" / "architect.md").write_text("x")
    return folder


def errors(payload, host):
    return [p.code for p in validate_payload(payload, host).errors]


@pytest.mark.parametrize("name", ["programming-pm-to-skill-editor.json", "skill-editor-to-programming-pm.json"])
def test_the_real_v3_examples_validate(name, swarm_host):
    if not (EXAMPLES / name).is_file():
        pytest.skip(
            "needs ../shared/spec/examples/ (the spec's example payloads), which is not in this repository: "
            "CI lays the project's spec bundle "
            'beside the checkout; see docs/development.md, "Conformance tests"'
        )
    payload = json.loads((EXAMPLES / name).read_text())
    report = validate_payload(payload, swarm_host)
    assert report.valid, [p.message for p in report.problems]
    assert report.validators == ("v3-schema", "v3-rules")


def test_build_gives_a_valid_sealed_v3_payload(session, swarm_host):
    built = build_v3(synthesis(), TARGET, session, source="programming-pm", now=NOW, reason="needs a skill")
    handoff = built.payload["handoff"]
    assert handoff["source"]["skill"] == "programming-pm"
    assert handoff["meta"]["handoff_chain"] == ["programming-pm"]
    assert handoff["meta"]["confidence"] == "high"
    assert handoff["meta"]["token_count"] == estimate_tokens(built.payload)
    assert handoff["payload"]["session"]["artifacts"][0]["path"].endswith("architect.md")
    assert handoff["expires_at"] == "2026-02-08T11:15:00Z"
    assert check_integrity(built.payload).ok
    assert not built.notes
    assert validate_payload(built.payload, swarm_host).valid
    assert v3_path(session, "programming-pm", "skill-editor", NOW) == (
        session / "handoffs" / "programming-pm-to-skill-editor-20260208T101500Z.json"
    )


def test_a_long_summary_is_shortened_to_500_characters(session, swarm_host):
    built = build_v3(synthesis(synthesis_summary="word " * 300), TARGET, session, now=NOW)
    summary = built.payload["handoff"]["context"]["summary"]
    assert len(summary) <= 500
    assert summary.endswith("…")
    assert shorten("short") == "short"


@pytest.fixture
def valid(session):
    return build_v3(synthesis(), TARGET, session, source="programming-pm", now=NOW).payload


def test_summary_over_500_characters_is_refused(valid, swarm_host):
    valid["handoff"]["context"]["summary"] = "x" * 501
    assert errors(valid, swarm_host) == ["PAYLOAD_BAD_VALUE"]


def test_unknown_top_level_fields_are_refused_in_v3(valid, swarm_host):
    valid["handoff"]["extra"] = 1
    valid["other"] = 2
    assert errors(valid, swarm_host) == ["PAYLOAD_UNKNOWN_FIELD", "PAYLOAD_UNKNOWN_FIELD"]


def test_token_count_over_2000_and_a_payload_over_budget_are_refused(valid, swarm_host):
    over = copy.deepcopy(valid)
    over["handoff"]["meta"]["token_count"] = 2001
    assert errors(over, swarm_host) == ["PAYLOAD_BAD_VALUE"]
    big = copy.deepcopy(valid)
    big["handoff"]["payload"]["working"]["notes"] = "y" * 8100
    assert errors(big, swarm_host) == ["PAYLOAD_TOKEN_BUDGET"]


def test_no_self_handoff(valid, swarm_host):
    valid["handoff"]["target"]["skill"] = "programming-pm"
    assert "PAYLOAD_SELF_HANDOFF" in errors(valid, swarm_host)


def test_reentering_a_skill_in_the_chain_needs_a_reason(valid, swarm_host):
    valid["handoff"]["meta"]["handoff_chain"] = ["programming-pm", "skill-editor"]
    report = validate_payload(valid, swarm_host)
    assert [p.code for p in report.errors] == ["PAYLOAD_REENTRY_NEEDS_REASON"]
    assert [p.code for p in report.warnings] == ["HANDOFF_LOOP"]
    valid["handoff"]["meta"]["handoff_reason"] = "the skill needs a second pass"
    assert errors(valid, swarm_host) == []


def test_chains_over_five_need_approval_and_over_ten_are_refused(valid, swarm_host):
    meta = valid["handoff"]["meta"]
    meta["handoff_chain"] = ["programming-pm", "a", "b", "c", "d"]
    assert errors(valid, swarm_host) == []
    meta["handoff_chain"].append("e")
    assert errors(valid, swarm_host) == ["PAYLOAD_CHAIN_NEEDS_APPROVAL"]
    meta["user_approved"] = True
    assert errors(valid, swarm_host) == []
    meta["handoff_chain"] += ["f", "g", "h", "i", "j"]
    assert errors(valid, swarm_host) == ["PAYLOAD_CHAIN_TOO_LONG"]


def test_source_must_start_the_chain(valid, swarm_host):
    valid["handoff"]["meta"]["handoff_chain"] = ["someone-else"]
    assert errors(valid, swarm_host) == ["PAYLOAD_SOURCE_NOT_CHAIN_START"]


def test_timestamp_must_come_before_expiry(valid, swarm_host):
    valid["handoff"]["expires_at"] = valid["handoff"]["timestamp"]
    assert errors(valid, swarm_host) == ["PAYLOAD_EXPIRES_BEFORE_CREATED"]


def test_v3_times_and_trace_id_follow_the_strict_forms(valid, swarm_host):
    valid["handoff"]["timestamp"] = "2026-02-08t10:15:00z"
    valid["handoff"]["trace_id"] = "not-a-uuid"
    assert errors(valid, swarm_host) == ["PAYLOAD_BAD_VALUE", "PAYLOAD_BAD_VALUE"]


def test_budget_drops_optional_fields_first(session):
    payload = build_v3(synthesis(), TARGET, session, now=NOW).payload
    payload["handoff"]["tracing"]["tags"] = {"padding": "z" * 7000}
    built = fit_budget(payload, session / "side.json")
    assert "tracing" not in built.payload["handoff"]
    assert built.notes == ("dropped optional field tracing to fit 2000 tokens",)
    assert not built.side_files


def test_budget_then_moves_session_content_to_references(session, swarm_host):
    many = [{"theme": f"theme {i} " + "detail " * 20, "confidence_score": 5} for i in range(60)]
    built = build_v3(synthesis(insights={"convergent": many}), TARGET, session, now=NOW)
    handoff = built.payload["handoff"]
    assert "session" not in handoff["payload"]
    [(side_path, content)] = built.side_files
    assert content["session"]["state"]["convergent"] == many
    assert handoff["payload"]["references"]["files"][-1]["path"] == str(side_path)
    assert built.notes[-1].startswith("moved payload.session")
    assert handoff["meta"]["token_count"] <= 2000
    assert validate_payload(built.payload, swarm_host).valid


def test_budget_fails_clearly_when_the_working_tier_alone_is_too_big(session):
    with pytest.raises(PayloadTooLarge) as caught:
        build_v3(synthesis(reframed_challenge="r" * 9000), TARGET, session, now=NOW)
    assert caught.value.code == "VALIDATION_FAILED"
    assert "over the 2000-token cap" in caught.value.message
    assert caught.value.payload["handoff"]["payload"]["working"]["reframed_challenge"] == "r" * 9000
