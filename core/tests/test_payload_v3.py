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
    # issue 17: a count far from the estimate is also reported (PAYLOAD_TOKEN_COUNT_OFF)
    assert errors(over, swarm_host) == ["PAYLOAD_BAD_VALUE", "PAYLOAD_TOKEN_COUNT_OFF"]
    big = copy.deepcopy(valid)
    big["handoff"]["payload"]["working"]["notes"] = "y" * 8100
    big["handoff"]["meta"]["token_count"] = estimate_tokens(big)  # honest count, still over the cap
    assert errors(big, swarm_host) == ["PAYLOAD_BAD_VALUE", "PAYLOAD_TOKEN_BUDGET"]


def test_no_self_handoff(valid, swarm_host):
    valid["handoff"]["target"]["skill"] = "programming-pm"
    assert "PAYLOAD_SELF_HANDOFF" in errors(valid, swarm_host)


def test_reentering_a_skill_in_the_chain_needs_a_reason(valid, swarm_host):
    valid["handoff"]["meta"]["handoff_chain"] = ["skill-editor", "programming-pm"]
    report = validate_payload(valid, swarm_host)
    assert [p.code for p in report.errors] == ["PAYLOAD_REENTRY_NEEDS_REASON"]
    assert [p.code for p in report.warnings] == ["HANDOFF_LOOP"]
    valid["handoff"]["meta"]["handoff_reason"] = "the skill needs a second pass"
    assert errors(valid, swarm_host) == []


def test_chains_over_five_need_approval_and_over_ten_are_refused(valid, swarm_host):
    meta = valid["handoff"]["meta"]
    meta["handoff_chain"] = ["a", "b", "c", "d", "programming-pm"]
    assert errors(valid, swarm_host) == []
    meta["handoff_chain"].insert(0, "e")
    assert errors(valid, swarm_host) == ["PAYLOAD_CHAIN_NEEDS_APPROVAL"]
    meta["user_approved"] = True
    assert errors(valid, swarm_host) == []
    meta["handoff_chain"][:0] = ["f", "g", "h", "i", "j"]
    assert errors(valid, swarm_host) == ["PAYLOAD_CHAIN_TOO_LONG"]


def test_source_must_end_the_chain(valid, swarm_host):
    # issue 17, point 4: each skill appends itself when it hands on (workflow-discovery.md), so the
    # source is the chain's last entry; a continued chain starts with its origin
    valid["handoff"]["meta"]["handoff_chain"] = ["someone-else"]
    assert errors(valid, swarm_host) == ["PAYLOAD_SOURCE_NOT_CHAIN_END"]
    valid["handoff"]["meta"]["handoff_chain"] = ["programming-pm", "someone-else"]
    assert errors(valid, swarm_host) == ["PAYLOAD_SOURCE_NOT_CHAIN_END"]
    valid["handoff"]["meta"]["handoff_chain"] = ["someone-else", "programming-pm"]
    assert errors(valid, swarm_host) == []


def test_timestamp_must_come_before_expiry(valid, swarm_host):
    valid["handoff"]["expires_at"] = valid["handoff"]["timestamp"]
    assert errors(valid, swarm_host) == ["PAYLOAD_EXPIRES_BEFORE_CREATED"]


def test_v3_times_and_trace_id_follow_the_strict_forms(valid, swarm_host):
    valid["handoff"]["timestamp"] = "2026-02-08t10:15:00z"
    valid["handoff"]["trace_id"] = "not-a-uuid"
    assert errors(valid, swarm_host) == ["PAYLOAD_BAD_VALUE", "PAYLOAD_BAD_VALUE"]


def test_budget_drops_optional_fields_first(session):
    payload = build_v3(synthesis(), TARGET, session, now=NOW).payload
    payload["handoff"]["context"]["success_criteria"] = ["z" * 7000]
    built = fit_budget(payload, session / "side.json")
    assert "success_criteria" not in built.payload["handoff"]["context"]
    assert built.notes == ("dropped optional field context.success_criteria to fit 2000 tokens",)
    assert "tracing" in built.payload["handoff"]
    assert not built.side_files


def test_budget_drops_tracing_last(session):
    # issue 17, point 4: tracing links a hop to its parent, so every other repair comes first
    payload = build_v3(synthesis(), TARGET, session, now=NOW).payload
    payload["handoff"]["tracing"]["tags"] = {"padding": "z" * 7000}
    built = fit_budget(payload, session / "side.json")
    handoff = built.payload["handoff"]
    assert "tracing" not in handoff
    assert built.notes[-1] == "dropped optional field tracing to fit 2000 tokens"
    steps = " | ".join(built.notes)
    for earlier in ("context.focus_areas", "context.known_gaps", "context.original_prompt", "moved payload.session"):
        assert earlier in steps
        assert steps.index(earlier) < steps.index("tracing")


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


def test_budget_fails_clearly_when_nothing_is_left_to_shrink(session):
    payload = build_v3(synthesis(), TARGET, session, now=NOW).payload
    # many short texts: nothing to drop, move out or summarise (each is under the last summary step)
    payload["handoff"]["payload"]["working"] = {f"note{i}": "w" * 100 for i in range(90)}
    with pytest.raises(PayloadTooLarge) as caught:
        fit_budget(payload, session / "side.json")
    assert caught.value.code == "VALIDATION_FAILED"
    assert "over the 2000-token cap" in caught.value.message
    assert caught.value.payload["handoff"]["payload"]["working"]["note0"] == "w" * 100


def test_budget_third_step_keeps_working_only_then_summarises_with_a_marker(session, swarm_host):
    # issue 17, point 5: this synthesis used to fail (PayloadTooLarge); now it shrinks, losing nothing
    long = "r" * 9000
    built = build_v3(synthesis(reframed_challenge=long), TARGET, session, now=NOW)
    handoff = built.payload["handoff"]
    working = handoff["payload"]["working"]
    assert "[summarised by swarm-handoff:" in working["reframed_challenge"]
    assert "of 9000 characters kept" in working["reframed_challenge"]
    assert set(handoff["payload"]) == {"working", "references"}
    [(side_path, content)] = built.side_files
    assert content["working"]["reframed_challenge"] == long  # the full text is kept beside the payload
    assert content["session"]["state"]["convergent"]  # moved out by step 2, before the third step
    assert handoff["payload"]["references"]["files"] == [
        {**handoff["payload"]["references"]["files"][0], "path": str(side_path)}
    ]
    assert any(n.startswith("summarised payload.working.reframed_challenge") for n in built.notes)
    assert handoff["meta"]["token_count"] <= 2000
    assert validate_payload(built.payload, swarm_host).valid


def test_working_only_step_runs_before_summarising(session):
    payload = build_v3(synthesis(), TARGET, session, now=NOW).payload
    payload["handoff"]["payload"].setdefault("references", {})["urls"] = [
        {"url": f"https://example.org/{i}", "description": "d" * 80} for i in range(80)
    ]
    built = fit_budget(payload, session / "side.json")
    [(_, content)] = built.side_files
    assert len(content["payload"]["references"]["urls"]) == 80
    assert not any(n.startswith("summarised") for n in built.notes)
    assert built.payload["handoff"]["payload"]["working"] == payload["handoff"]["payload"]["working"]


def test_token_count_within_30_percent_of_the_estimate_passes(valid, swarm_host):
    estimate = estimate_tokens(valid)
    valid["handoff"]["meta"]["token_count"] = int(estimate * 1.29)
    assert "PAYLOAD_TOKEN_COUNT_OFF" not in errors(valid, swarm_host)
    valid["handoff"]["meta"]["token_count"] = int(estimate * 1.31) + 1
    assert "PAYLOAD_TOKEN_COUNT_OFF" in errors(valid, swarm_host)
    valid["handoff"]["meta"]["token_count"] = int(estimate * 0.69)
    assert "PAYLOAD_TOKEN_COUNT_OFF" in errors(valid, swarm_host)


@pytest.mark.parametrize("name", ["programming-pm-to-skill-editor.json", "skill-editor-to-programming-pm.json"])
def test_real_writers_token_count_is_within_30_percent_of_the_estimate(name):
    if not (EXAMPLES / name).is_file():
        pytest.skip(
            "needs ../shared/spec/examples/ (the spec's example payloads), which is not in this repository: "
            'CI lays the project\'s spec bundle beside the checkout; see docs/development.md, "Conformance tests"'
        )
    text = (EXAMPLES / name).read_text()
    payload = json.loads(text)
    declared = payload["handoff"]["meta"]["token_count"]
    assert abs(declared - len(text) / 4) < 2  # how the real writer counted: the indented file / 4
    compact = len(json.dumps(payload, separators=(",", ":"), ensure_ascii=False)) / 4
    assert declared > 1.3 * compact  # so an estimate over compact JSON would refuse a real writer
    assert abs(declared - estimate_tokens(payload)) <= 0.05 * estimate_tokens(payload)


def test_build_v3_takes_exactly_draft_v3s_parameters():
    """One keyword list for both (build_v3 finishes what draft_v3 drafts): help() shows the real ones."""
    import inspect

    from swarm_handoff.payload.build3 import Built, draft_v3

    built, drafted = inspect.signature(build_v3), inspect.signature(draft_v3)
    assert list(built.parameters.values()) == list(drafted.parameters.values())
    assert built.return_annotation in (Built, "Built")
    assert build_v3.__name__ == "build_v3"
    assert "draft_v3" in (build_v3.__doc__ or "")
