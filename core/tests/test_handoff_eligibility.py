"""Issue 17, points 1-3: who may receive a hand-off, in which schema version, and what it requires."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from swarm_handoff.errors import SwarmError
from swarm_handoff.history import open_history
from swarm_handoff.payload.io import load_payload_file
from swarm_handoff.payload.lifecycle import HandoffOptions, hand_off
from swarm_handoff.payload.validate import validate_file
from swarm_handoff.records import SkillRecord

SYNTHESIS = """
original_prompt: Build a plugin loader for the editor.
problem_type: {problem_type}
synthesis_summary: Implement the loader in two steps.
convergence_level: high
"""


def _skill(name: str, **fields: object) -> SkillRecord:
    return SkillRecord(name=name, scope="global", source="test", categories=("implementation",), **fields)


RECORDS = (
    _skill("legacy-any", legacy=True),  # v2.0 accepts_handoff: true, so accepts everyone
    _skill("editor-only", accepts_from=("skill-editor",), protocol_version="3.0", schema_version="3.0"),
    _skill(
        "v3-any",
        accepts_from=("*",),
        protocol_version="3.0",
        requires=("context.original_prompt",),
        optional_consumes=("context.focus_areas",),
    ),
    _skill("needs-missing", accepts_from=("*",), protocol_version="3.0", requires=("context.does_not_exist",)),
    _skill("pm-internal", accepts_from=("*",), protocol_version="3.0", schema_version="1.2"),
)


@pytest.fixture
def world(handoff_world):
    """A session, a synthesis, a config folder and the five skills above."""
    return handoff_world(RECORDS, SYNTHESIS.format(problem_type="strategic"))


def handoff(swarm_cli, world, *extra):
    args = ["handoff", *extra, "--synthesis", str(world["synthesis"]), "--session", str(world["session"])]
    return swarm_cli(*args, "--format", "json")


def options(world, target, **kwargs):
    return HandoffOptions(target=target, synthesis=world["synthesis"], session=world["session"], **kwargs)


# ---- 1. accepts_from enforced ------------------------------------------------------------------


def test_source_not_in_accepts_from_is_refused_naming_the_accepted_sources(swarm_cli, world):
    result = handoff(swarm_cli, world, "editor-only", "--source", "programming-pm")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "SOURCE_NOT_ACCEPTED"
    assert "skill-editor" in error["message"]
    assert "--override-accepts-from" in error["hint"]
    assert not list(world["session"].rglob("*.json"))  # nothing written


def test_default_source_is_checked_too(world):
    with pytest.raises(SwarmError) as caught:
        hand_off(options(world, "editor-only"))  # perspective-swarm is not skill-editor
    assert caught.value.code == "SOURCE_NOT_ACCEPTED"
    assert caught.value.details["accepts_from"] == ["skill-editor"]


def test_accepted_source_hands_off(swarm_cli, world):
    result = handoff(swarm_cli, world, "editor-only", "--source", "skill-editor")
    assert result.exit_code == 0, result.output
    assert result.json()["version"] == "3.0"


def test_override_is_recorded_in_payload_and_history(swarm_cli, world):
    result = handoff(swarm_cli, world, "editor-only", "--source", "programming-pm", "--override-accepts-from")
    assert result.exit_code == 0, result.output
    data = result.json()
    payload = json.loads(Path(data["payload_path"]).read_text())
    override = payload["handoff"]["meta"]["eligibility_override"]
    assert override == {
        "source": "programming-pm",
        "accepts_from": ["skill-editor"],
        "option": "--override-accepts-from",
    }
    assert any("--override-accepts-from" in note for note in data["notes"])
    assert swarm_cli("validate", data["payload_path"], "--format", "json").exit_code == 0
    with open_history(world["config"]) as history:
        row = history.list()[0]
    assert row.eligibility_override is not None
    assert "programming-pm" in row.eligibility_override
    assert "skill-editor" in row.eligibility_override


def test_v2_accepts_handoff_counts_as_star(world):
    result = hand_off(options(world, "legacy-any"))
    assert result.version == "2.0"


# ---- 2. compatibility decides the version ----------------------------------------------------------


def test_target_version_decides_by_default(world):
    assert hand_off(options(world, "v3-any")).version == "3.0"
    assert hand_off(options(world, "legacy-any")).version == "2.0"


def test_v3_source_to_v2_target_is_down_converted_with_dropped_fields(swarm_cli, world):
    result = handoff(swarm_cli, world, "legacy-any", "--source", "skill-editor")
    assert result.exit_code == 0, result.output
    data = result.json()
    assert data["version"] == "2.0"
    assert "handoff.trace_id" in data["dropped"]
    assert "handoff.tracing" in data["dropped"]
    assert "warning: dropped handoff.tracing" in result.stderr
    payload = Path(data["payload_path"])
    assert payload.name == "handoff-payload.yaml"
    report = validate_file(payload)
    assert report.valid, report.problems  # v2.0's own rules accept it (issue 26)
    assert not report.warnings, report.problems
    written = load_payload_file(payload)["handoff"]
    assert written["source"]["skill"] == "perspective-swarm"
    assert written["meta"]["handoff_chain"][-1] == "skill-editor"  # the real source, where the seed records it
    assert written["meta"]["converted_from"] == "3.0"
    assert any("skill-editor is the last entry of meta.handoff_chain" in n for n in data["notes"])


def test_v12_target_is_refused_with_the_matrix_words(swarm_cli, world):
    result = handoff(swarm_cli, world, "pm-internal")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "SCHEMA_INCOMPATIBLE"
    assert "programming-pm internal schema (incompatible)" in error["message"]


def test_forced_schema_warns_when_partial(swarm_cli, world):
    result = handoff(swarm_cli, world, "legacy-any", "--schema", "3.0")
    assert result.exit_code == 0, result.output
    assert result.json()["version"] == "3.0"
    assert "SCHEMA_PARTIAL" in result.stderr
    assert any(w["code"] == "SCHEMA_PARTIAL" for w in result.json()["warnings"])


def test_forced_schema_to_v12_is_still_refused(world):
    with pytest.raises(SwarmError) as caught:
        hand_off(options(world, "pm-internal", schema="3.0"))
    assert caught.value.code == "SCHEMA_INCOMPATIBLE"


def test_v3_only_problem_type_chooses_v3_when_target_reads_it(world):
    world["synthesis"].write_text(SYNTHESIS.format(problem_type="research"))
    assert hand_off(options(world, "v3-any")).version == "3.0"


def test_v3_only_problem_type_to_v2_target_says_exactly_what_to_change(swarm_cli, world):
    world["synthesis"].write_text(SYNTHESIS.format(problem_type="research"))
    result = handoff(swarm_cli, world, "legacy-any")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "PROBLEM_TYPE_NOT_IN_V2"
    assert f"in {world['synthesis']}, change problem_type: research to one of" in error["hint"]
    assert "decision, creative, analytical, strategic" in error["hint"]
    forced = handoff(swarm_cli, world, "v3-any", "--schema", "2.0")
    assert forced.json()["error"]["code"] == "PROBLEM_TYPE_NOT_IN_V2"
    assert "drop --schema 2.0" in forced.json()["error"]["hint"]


# ---- 3. requires / optional_consumes -------------------------------------------------------------


def test_missing_required_path_fails_naming_it_and_keeps_the_payload(swarm_cli, world):
    result = handoff(swarm_cli, world, "needs-missing")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "VALIDATION_FAILED"
    assert "context.does_not_exist" in error["message"]
    assert error["details"]["missing_fields"] == ["context.does_not_exist"]
    assert error["payload_preserved"]
    assert Path(error["payload_preserved"]).is_file()


def test_present_requirement_passes_and_missing_optional_is_a_note(world):
    result = hand_off(options(world, "v3-any"))
    assert any("context.focus_areas" in note and "optional_consumes" in note for note in result.notes)


# ---- 1. the registry seed's Step 4 queries on discover and rank --------------------------------------


def test_discover_accepts_from_leaves_out_targets_and_all_lists_why(swarm_cli, world):
    data = swarm_cli("discover", "--accepts-from", "programming-pm", "--format", "json").json()
    names = [w["skill"] for w in data["workflows"]]
    assert "editor-only" not in names
    assert "legacy-any" in names  # accepts_handoff: true counts as "*"
    assert "excluded" not in data
    full = swarm_cli("discover", "--accepts-from", "programming-pm", "--all", "--format", "json").json()
    [left] = [e for e in full["excluded"] if e["skill"] == "editor-only"]
    assert "accepts_from: skill-editor" in left["excluded_because"][0]
    text = swarm_cli("discover", "--accepts-from", "programming-pm", "--all").stdout
    assert "left out by the query:" in text
    assert "editor-only" in text


def test_discover_schema_version_and_input_combine_with_category(swarm_cli, world):
    data = swarm_cli("discover", "--schema-version", "3.0", "--category", "implementation", "--format", "json").json()
    names = {w["skill"] for w in data["workflows"]}
    assert "pm-internal" not in names  # reads 1.2: a 3.0 payload is "no"
    assert "legacy-any" not in names  # reads 2.0: a 3.0 payload is only partial
    assert "v3-any" in names
    none = swarm_cli("discover", "--input", "specification", "--format", "json").json()
    assert none["workflows"] == []


def test_rank_takes_the_queries_and_shows_compatibility_and_duration(swarm_cli, world):
    result = swarm_cli(
        "rank",
        "--synthesis",
        str(world["synthesis"]),
        "--accepts-from",
        "programming-pm",
        "--all",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    data = result.json()
    shown = {w["skill"]: w for w in data["workflows"]}
    assert "editor-only" not in shown
    assert [e["skill"] for e in data["excluded"]] == ["editor-only"]
    assert shown["legacy-any"]["compatibility"]["status"] == "yes"
    assert shown["pm-internal"]["compatibility"] == {
        "target_version": "1.2",
        "payload_version": None,
        "status": "no",
        "note": "programming-pm internal schema (incompatible)",
    }
    partial = swarm_cli("rank", "--synthesis", str(world["synthesis"]), "--schema-version", "3.0", "--format", "json")
    assert all(w["compatibility"]["status"] == "yes" for w in partial.json()["workflows"])


def test_estimated_duration_is_read_from_meta_and_metadata():
    from swarm_handoff.eligibility import estimated_duration

    assert estimated_duration(_skill("a", meta={"estimated_duration": "hours"})) == "hours"
    assert estimated_duration(_skill("b", meta={"metadata": {"estimated_duration": "days"}})) == "days"
    assert estimated_duration(_skill("c")) is None


def test_python_api_query_and_rank():
    from swarm_handoff.eligibility import Query, split

    kept, left = split(RECORDS, Query(accepts_from="programming-pm", inputs=()))
    assert "editor-only" not in [r.name for r in kept]
    assert left[0].record.name == "editor-only"


def test_frontmatter_metadata_block_reaches_the_menu_duration():
    from swarm_handoff.eligibility import estimated_duration
    from swarm_handoff.metadata import record_from_frontmatter

    data = {"description": "d", "handoff": {"accepts_from": ["*"]}, "metadata": {"estimated_duration": "hours"}}
    record = record_from_frontmatter(data, name="p", scope="project", source="t", path=None)
    assert estimated_duration(record) == "hours"
