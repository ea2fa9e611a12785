"""v2.0 payloads: built from a synthesis with the seed's defaults; validation reports every problem."""

from __future__ import annotations

import copy
import datetime as dt
import re

import pytest

from swarm_handoff.api import hookimpl
from swarm_handoff.errors import ErrorCode, Problem
from swarm_handoff.payload.canonical import check_integrity
from swarm_handoff.payload.v2 import build_v2
from swarm_handoff.payload.validate import validate_payload
from swarm_handoff.records import SkillRecord
from swarm_handoff.synthesis import parse_synthesis

NOW = dt.datetime(2026, 2, 4, 19, 30, tzinfo=dt.timezone.utc)
SYNTHESIS = parse_synthesis(
    {
        "original_prompt": "Should we expand into Europe?",
        "reframed_challenge": "Weigh EU entry for a B2B product",
        "problem_type": "strategic",
        "synthesis_summary": "Demand is real; regulation is the risk.",
        "convergence_level": "medium",
        "key_uncertainties": ["compliance cost"],
        "insights": {
            "convergent": [{"theme": "growth", "confidence_score": 7.2, "contributing_archetypes": ["optimist"]}],
            "divergent": [{"archetype": "critic", "insight": "compliance underestimated", "confidence": 4}],
            "blind_spots": ["execution"],
        },
        "research_seeds": {"suggested_terms": [{"term": "GDPR cost", "rationale": "critic"}], "open_questions": ["?"]},
        "user_feedback": "depth on GDPR",
    }
)
TARGET = SkillRecord(
    name="lit-pm", scope="global", source="test", categories=("research",), trigger="--handoff {payload_path}"
)


@pytest.fixture
def session(tmp_path):
    folder = tmp_path / "swarm-session-20260204-183000-a1b2c3d4"
    (folder / "perspectives").mkdir(parents=True)
    for name in ("optimist", "critic", "pragmatist"):
        (folder / "perspectives" / f"{name}.md").write_text(name)
    (folder / "perspectives" / ".DS_Store").write_text("")
    return folder


def test_build_fills_every_field_with_the_seeds_defaults(session, swarm_host):
    payload = build_v2(SYNTHESIS, TARGET, session, now=NOW)
    handoff = payload["handoff"]
    assert handoff["version"] == "2.0"
    assert handoff["timestamp"] == "2026-02-04T19:30:00Z"
    assert handoff["expires_at"] == "2026-02-04T20:30:00Z"
    assert handoff["source"] == {
        "skill": "perspective-swarm",
        "workflow_id": "swarm-session-20260204-183000-a1b2c3d4",
        "session_path": str(session.resolve()),
    }
    assert handoff["target"] == {
        "skill": "lit-pm",
        "invocation": "/lit-pm --handoff {payload_path}",
        "category": "research",
    }
    assert handoff["context"]["synthesis_summary"] == "Demand is real; regulation is the risk."
    assert handoff["insights"]["uncertainties"] == ["compliance cost"]
    assert handoff["research_seeds"]["open_questions"] == ["?"]
    meta = handoff["meta"]
    assert meta["perspectives_completed"] == 3  # the hidden file does not count
    assert meta["handoff_chain"] == ["perspective-swarm"]
    assert meta["user_feedback"] == "depth on GDPR"
    assert meta["convergence_level"] == "medium"
    assert check_integrity(payload).ok
    report = validate_payload(payload, swarm_host)
    assert report.valid, report.problems
    assert report.validators == ("v2-schema", "v2-rules")


def test_a_session_folder_with_another_name_gets_a_fresh_workflow_id(tmp_path, swarm_host):
    payload = build_v2(SYNTHESIS, TARGET, tmp_path, now=NOW)
    assert re.fullmatch(r"swarm-session-20260204-193000-[0-9a-f]{8}", payload["handoff"]["source"]["workflow_id"])
    assert payload["handoff"]["meta"]["perspectives_completed"] == 0


def test_all_problems_are_collected_in_one_pass(session, swarm_host):
    payload = build_v2(SYNTHESIS, TARGET, session, now=NOW)
    handoff = payload["handoff"]
    del handoff["context"]["original_prompt"]
    del handoff["target"]
    handoff["timestamp"] = "yesterday"
    handoff["context"]["problem_type"] = "vibes"
    handoff["meta"]["convergence_level"] = "total"
    handoff["meta"]["perspectives_completed"] = "three"
    handoff["insights"]["divergent"][0]["confidence"] = 9
    handoff["source"]["workflow_id"] = "session-1"
    report = validate_payload(payload, swarm_host)
    fields = sorted(p.message.split(":")[0] for p in report.errors)
    assert fields == sorted(
        [
            "handoff.target",
            "handoff.context.original_prompt",
            "handoff.timestamp",
            "handoff.context.problem_type",
            "handoff.meta.convergence_level",
            "handoff.meta.perspectives_completed",
            "handoff.insights.divergent[0].confidence",
            "handoff.source.workflow_id",
        ]
    )
    error = report.to_error(target="lit-pm")
    assert error.code == ErrorCode.INVALID_PAYLOAD.value
    assert error.details["missing_fields"] == ["handoff.target", "handoff.context.original_prompt"]
    assert len(error.details["validation_errors"]) == 6
    assert error.details["target_skill"] == "lit-pm"


def test_only_wrong_values_give_validation_failed(session, swarm_host):
    payload = build_v2(SYNTHESIS, TARGET, session, now=NOW)
    payload["handoff"]["context"]["problem_type"] = "implementation"  # a v3.0 type, not v2.0's
    error = validate_payload(payload, swarm_host).to_error()
    assert error.code == "VALIDATION_FAILED"
    assert error.details["missing_fields"] == []


def test_timestamps_need_a_zone_and_a_real_date(session, swarm_host):
    payload = build_v2(SYNTHESIS, TARGET, session, now=NOW)
    for bad in ("2026-02-04T19:30:00", "2026-13-04T19:30:00Z", "2026-02-04 19:30"):
        payload["handoff"]["expires_at"] = bad
        assert [p.message.split(":")[0] for p in validate_payload(payload, swarm_host).errors] == ["handoff.expires_at"]
    payload["handoff"]["expires_at"] = "2026-02-04T20:30:00.25+01:00"
    assert validate_payload(payload, swarm_host).valid


def test_session_must_exist_and_perspective_count_must_match(session, swarm_host):
    payload = build_v2(SYNTHESIS, TARGET, session, now=NOW)
    (session / "perspectives" / "critic.md").unlink()
    [problem] = validate_payload(payload, swarm_host).errors
    assert problem.code == "PAYLOAD_PERSPECTIVES_MISMATCH"
    assert "says 3" in problem.message
    payload["handoff"]["source"]["session_path"] = str(session / "gone")
    [problem] = validate_payload(payload, swarm_host).errors
    assert problem.code == "PAYLOAD_SESSION_UNREADABLE"


def test_a_target_already_in_the_chain_is_only_a_warning(session, swarm_host):
    payload = build_v2(SYNTHESIS, TARGET, session, now=NOW, chain=["perspective-swarm", "lit-pm"])
    report = validate_payload(payload, swarm_host)
    assert report.valid
    [warning] = report.warnings
    assert warning.code == "HANDOFF_LOOP"
    assert "perspective-swarm -> lit-pm -> lit-pm" in warning.message


def test_v1_payloads_validate_as_v2_and_unknown_fields_are_ignored(session, swarm_host):
    payload = build_v2(SYNTHESIS, TARGET, session, now=NOW)
    v1 = copy.deepcopy(payload)
    v1["handoff"]["version"] = "1.0"
    v1["handoff"]["lit_pm_extras"] = {"anything": [1, 2]}
    v1["handoff"]["context"]["extra"] = True
    v1["top_level_note"] = "ignored"
    report = validate_payload(v1, swarm_host)
    assert report.valid, report.problems
    assert report.version == "1.0"


@pytest.mark.parametrize(
    ("document", "found"),
    [(None, "an empty document"), ([1, 2], "a list"), ("text", "a string"), ({"other": 1}, "a mapping without")],
)
def test_documents_that_are_not_payloads_are_invalid_payload(document, found, swarm_host):
    report = validate_payload(document, swarm_host)
    assert found in report.errors[0].message
    assert report.to_error().code == "INVALID_PAYLOAD"


def test_an_unknown_version_names_the_supported_ones(swarm_host):
    report = validate_payload({"handoff": {"version": "9.9"}}, swarm_host)
    [problem] = report.errors
    assert problem.code == "PAYLOAD_UNSUPPORTED_VERSION"
    assert "1.0, 2.0" in (problem.hint or "")


def test_third_party_validators_add_problems_and_a_raising_one_is_reported(session, swarm_host, register_plugin):
    class NoEmptyReason:
        versions = ("2.0",)

        def validate(self, payload):
            if not payload["handoff"]["meta"].get("handoff_reason"):
                return [Problem("HOUSE_RULE", "handoff.meta.handoff_reason: our team always gives a reason")]
            return []

    class Broken:
        versions = ("2.0",)

        def validate(self, payload):
            raise KeyError("oops")

    class Plugin:
        @hookimpl
        def swarm_handoff_payload_validators(self, register):
            register("house-rule", NoEmptyReason)
            register("broken", Broken)

    register_plugin(Plugin(), "house")
    payload = build_v2(SYNTHESIS, TARGET, session, now=NOW)
    report = validate_payload(payload, swarm_host)
    assert [p.code for p in report.errors] == ["HOUSE_RULE", "PAYLOAD_VALIDATOR_FAILED"]
    assert "KeyError" in report.errors[1].message


def test_a_trailing_newline_does_not_satisfy_a_pattern():
    from swarm_handoff.payload.schema import _ecma_end

    assert re.search(_ecma_end(r"^sha256:[a-f0-9]{64}$"), "sha256:" + "a" * 64)
    assert not re.search(_ecma_end(r"^sha256:[a-f0-9]{64}$"), "sha256:" + "a" * 64 + "\n")


def test_a_swarm_of_six_perspectives_hands_off(session, swarm_host):
    """Issue 26 point 12: the v2.0 JSON schema's cap of 5 is relaxed; the count must match the files."""
    for name in ("historian", "economist", "engineer"):
        (session / "perspectives" / f"{name}.md").write_text(name)
    payload = build_v2(SYNTHESIS, TARGET, session, now=NOW)
    assert payload["handoff"]["meta"]["perspectives_completed"] == 6
    assert validate_payload(payload, swarm_host).valid
    payload["handoff"]["meta"]["perspectives_completed"] = 7  # still checked against the session
    [problem] = validate_payload(payload, swarm_host).errors
    assert problem.code == "PAYLOAD_PERSPECTIVES_MISMATCH"
    payload["handoff"]["meta"]["perspectives_completed"] = -1
    assert "PAYLOAD_BAD_VALUE" in {p.code for p in validate_payload(payload, swarm_host).errors}


@pytest.mark.parametrize("name", ["lit pm", "x;touch pwned", "a$(id)b", "it's", "tab\there"])
def test_the_v2_invocation_quotes_the_skill_name_for_a_shell(tmp_path, name):
    """Issue 25: a v2.0 skill's name is not checked as a file name, so the invocation must quote it."""
    import shlex
    from pathlib import Path

    from swarm_handoff.payload.handoff_checks import substitute

    (tmp_path / "perspectives").mkdir()
    record = SkillRecord(name=name, scope="global", source="test", trigger="--handoff {payload_path}")
    payload = build_v2(SYNTHESIS, record, tmp_path)
    invocation = payload["handoff"]["target"]["invocation"]
    assert shlex.split(invocation.replace("{payload_path}", "P")) == [f"/{name}", "--handoff", "P"]
    line = substitute(record, Path("/s/handoff payload.yaml"))
    assert shlex.split(line) == [f"/{name}", "--handoff", "/s/handoff payload.yaml"]


def test_a_plain_skill_name_is_left_as_it_was():
    record = SkillRecord(name="lit-pm", scope="global", source="test", trigger="--handoff {payload_path}")
    from swarm_handoff.payload.v2 import invocation_for

    assert invocation_for(record) == "/lit-pm --handoff {payload_path}"
