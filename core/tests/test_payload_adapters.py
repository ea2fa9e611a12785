"""Adapters: 2.0 -> 3.0, 3.0 -> 2.0 listing what it drops, and the matrix's refusals as errors."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from swarm_handoff.errors import SwarmError
from swarm_handoff.payload.build3 import build_v3
from swarm_handoff.payload.canonical import check_integrity
from swarm_handoff.payload.convert import convert_payload
from swarm_handoff.payload.v2 import build_v2
from swarm_handoff.payload.validate import validate_payload
from swarm_handoff.records import SkillRecord
from swarm_handoff.synthesis import parse_synthesis

NOW = dt.datetime(2026, 2, 4, 19, 30, tzinfo=dt.timezone.utc)
TARGET = SkillRecord(name="lit-pm", scope="global", source="test", categories=("research",))
SYNTHESIS = parse_synthesis(
    {
        "original_prompt": "Expand to Europe?",
        "reframed_challenge": "EU entry",
        "problem_type": "strategic",
        "synthesis_summary": "Regulation is the risk.",
        "convergence_level": "medium",
        "key_uncertainties": ["GDPR cost"],
        "insights": {"convergent": [{"theme": "growth"}], "divergent": [{"archetype": "critic", "insight": "cost"}]},
        "research_seeds": {"suggested_terms": [{"term": "GDPR"}], "open_questions": ["How much?"]},
        "user_feedback": "depth",
    }
)


@pytest.fixture
def session(tmp_path):
    folder = tmp_path / "swarm-session-20260204-183000-a1b2c3d4"
    (folder / "perspectives").mkdir(parents=True)
    (folder / "perspectives" / "critic.md").write_text("c")
    return folder


def test_upgrade_gives_a_valid_sealed_v3_payload_and_lists_extensions_it_drops(session, swarm_host):
    v2 = build_v2(SYNTHESIS, TARGET, session, now=NOW, reason="depth")
    v2["handoff"]["lit_pm_extension"] = {"x": 1}
    v2["handoff"]["context"]["mood"] = "keen"
    result = convert_payload(v2, "3.0", swarm_host)
    v3 = result.payload
    assert validate_payload(v3, swarm_host).valid, validate_payload(v3, swarm_host).problems
    assert check_integrity(v3).ok
    assert result.dropped == ("handoff.lit_pm_extension", "handoff.context.mood")
    handoff = v3["handoff"]
    assert handoff["context"]["summary"] == "Regulation is the risk."
    assert handoff["context"]["known_gaps"] == ["GDPR cost"]
    assert handoff["meta"]["handoff_chain"] == ["perspective-swarm"]
    assert handoff["meta"]["handoff_reason"] == "depth"
    assert handoff["payload"]["session"]["state"]["divergent"] == [{"archetype": "critic", "insight": "cost"}]
    # converting twice gives the same payload (the trace id is derived, not random)
    assert convert_payload(v2, "3.0", swarm_host).payload == v3


def test_v1_payloads_upgrade_like_v2(session, swarm_host):
    v1 = build_v2(SYNTHESIS, TARGET, session, now=NOW)
    v1["handoff"]["version"] = "1.0"
    result = convert_payload(v1, "3.0", swarm_host)
    assert result.source_version == "1.0"
    assert validate_payload(result.payload, swarm_host).valid


def test_downgrade_lists_every_field_it_drops_and_round_trips_the_context(session, swarm_host):
    v2 = build_v2(SYNTHESIS, TARGET, session, now=NOW)
    v3 = convert_payload(v2, "3.0", swarm_host).payload
    result = convert_payload(v3, "2.0", swarm_host)
    back = result.payload["handoff"]
    for dropped in ("handoff.schema_type", "handoff.trace_id", "handoff.tracing", "handoff.source.phase"):
        assert dropped in result.dropped
    assert "handoff.meta.token_count" in result.dropped
    assert "handoff.meta.confidence" in result.dropped
    assert back["context"] == v2["handoff"]["context"]
    assert back["insights"]["convergent"] == v2["handoff"]["insights"]["convergent"]
    assert back["research_seeds"] == v2["handoff"]["research_seeds"]
    assert back["meta"]["convergence_level"] == "medium"
    assert check_integrity(result.payload).ok
    assert validate_payload(result.payload, swarm_host).valid


def test_a_v3_payload_built_by_us_downgrades(session, swarm_host):
    v3 = build_v3(SYNTHESIS, TARGET, session, now=NOW).payload
    result = convert_payload(v3, "2.0", swarm_host)
    assert "handoff.payload.session.artifacts" in result.dropped
    assert validate_payload(result.payload, swarm_host).valid


def test_a_downgrade_that_cannot_be_valid_v2_is_refused_with_reasons(swarm_host):
    example = (
        next(
            (p / "shared" for p in Path(__file__).resolve().parents if (p / "shared" / "seeds").is_dir()),
            Path("shared-not-found"),
        )
        / "spec/examples/programming-pm-to-skill-editor.json"
    )
    if not example.is_file():
        pytest.skip(
            "needs ../shared/spec/examples/ (the spec's example payloads), which is not in this repository: "
            "CI lays the project's spec bundle "
            'beside the checkout; see docs/development.md, "Conformance tests"'
        )
    with pytest.raises(SwarmError) as caught:
        convert_payload(json.loads(example.read_text()), "2.0", swarm_host)
    error = caught.value
    assert error.code == "SCHEMA_INCOMPATIBLE"
    fields = {m.split(":")[0] for m in error.details["validation_errors"]}
    # the source and the workflow id are carried now (issue 26 point 12); a v3.0-only problem type is not
    assert fields == {"handoff.context.problem_type"}


@pytest.mark.parametrize(("version", "to"), [("1.2", "3.0"), ("3.0", "1.2"), ("2.0", "9.0")])
def test_incompatible_pairs_are_clear_errors(version, to, swarm_host):
    with pytest.raises(SwarmError) as caught:
        convert_payload({"handoff": {"version": version}}, to, swarm_host)
    assert caught.value.code == "SCHEMA_INCOMPATIBLE"
    assert caught.value.recoverable is False


def test_same_version_is_returned_unchanged(swarm_host):
    payload = {"handoff": {"version": "3.0", "x": 1}}
    assert convert_payload(payload, "3.0", swarm_host).payload == payload
    with pytest.raises(SwarmError, match=r"no handoff\.version"):
        convert_payload([1], "3.0", swarm_host)


def test_a_downgrade_from_another_source_passes_v2_rules_and_keeps_who_handed_off(session, swarm_host):
    """Issue 26 point 12: the 3.0 -> 2.0 result is a payload v2.0's own rules accept, warnings included."""
    v3 = build_v3(SYNTHESIS, TARGET, session, source="skill-editor", now=NOW).payload
    v3["handoff"]["source"]["workflow_id"] = "session-20260207-183000-12345"  # a v3.0 id in no v2.0 form
    v3["handoff"]["meta"].pop("payload_hash", None)
    result = convert_payload(v3, "2.0", swarm_host)
    back = result.payload["handoff"]
    report = validate_payload(result.payload, swarm_host)
    assert report.valid, report.problems
    assert not report.warnings, report.problems
    assert back["source"]["skill"] == "perspective-swarm"  # v2.0 knows one origin
    assert back["meta"]["handoff_chain"][-1] == "skill-editor"  # who handed off, where the seed records it
    assert back["meta"]["converted_from"] == "3.0"
    assert back["source"]["workflow_id"].startswith("swarm-session-20260204-193000-")
    again = convert_payload(v3, "2.0", swarm_host).payload["handoff"]["source"]["workflow_id"]
    assert again == back["source"]["workflow_id"]  # derived, so converting twice agrees
    assert any("skill-editor" in n and "perspective-swarm" in n for n in result.notes)
    assert any("session-20260207-183000-12345" in n for n in result.notes)
