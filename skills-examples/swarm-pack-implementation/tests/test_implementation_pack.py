"""The pack's suite: generated cases for every step, the shipped SKILL.md, and CLI walks of the loop."""

from __future__ import annotations

import shlex

import importlib_metadata
import pytest
from swarm_pack_implementation.implement_change import SKILL_MD, WORKFLOW

from swarm_handoff.api import load_registry, parse_yaml
from swarm_handoff.testing import run_workflow_case, workflow_cases
from swarm_handoff_qr.policy import DEFAULT_ITERATION_LIMIT


@pytest.mark.parametrize("case", workflow_cases(WORKFLOW))
def test_every_step(case):
    run_workflow_case(WORKFLOW, case)


def test_the_generated_cases_cover_every_review_round():
    ids = [param.id for param in workflow_cases(WORKFLOW)]
    rounds = [i for i in ids if "-03-review-" in i]
    assert rounds == [f"implement-change-03-review-qr_iteration={n}" for n in range(1, DEFAULT_ITERATION_LIMIT + 1)]


def test_the_last_generated_round_escalates_and_the_others_loop():
    from swarm_handoff.api import generate_cases

    for case in generate_cases(WORKFLOW):
        if case.step != "review":
            continue
        doc = run_workflow_case(WORKFLOW, case)
        [fail] = [n for n in doc.next if n.label == "if-fail"]
        last = case.state["qr_iteration"] == DEFAULT_ITERATION_LIMIT
        assert fail.step == ("ask-user" if last else "implement")


def test_the_entry_point_publishes_the_workflow_and_the_skill_md():
    [ep] = [e for e in importlib_metadata.entry_points(group="swarm_handoff.skills") if e.name == "implement-change"]
    assert ep.dist.metadata["Name"] == "swarm-pack-implementation"
    assert ep.load().WORKFLOW is WORKFLOW
    assert load_registry().get("implement-change") is WORKFLOW


def test_the_shipped_skill_md_has_v3_handoff_metadata_in_the_spec_conformant_form():
    text = SKILL_MD.read_text(encoding="utf-8")
    meta = parse_yaml(text.split("\n---\n", 1)[0].removeprefix("---\n"))
    assert meta["name"] == "implement-change" == SKILL_MD.parent.name  # the spec: the folder is the name
    assert set(meta) <= {"name", "description", "license", "allowed-tools", "metadata", "compatibility"}
    handoff = meta["metadata"]
    assert all(isinstance(value, str) for value in handoff.values())  # the spec: text values only
    assert handoff["handoff-schema-version"] == "3.0"
    assert handoff["accepts-from"] == "design-review, problem-analysis"
    assert handoff["provides-to"]
    assert handoff["output-types"]
    assert len(meta["description"]) <= 1024


def test_discovery_reads_the_metadata_form_as_the_v3_target_it_was():
    from swarm_handoff.api import record_from_frontmatter

    text = SKILL_MD.read_text(encoding="utf-8")
    data = parse_yaml(text.split("\n---\n", 1)[0].removeprefix("---\n"))
    record = record_from_frontmatter(data, name="implement-change", scope="installed", source="packs", path=None)
    assert record.eligible
    assert (record.protocol_version, record.schema_version, record.schema_type) == (
        "3.0",
        "3.0",
        "implementation-request",
    )
    assert record.accepts_from == ("design-review", "problem-analysis")
    assert record.categories == ("implementation", "engineering")
    assert record.provides_to == ("release-notes",)
    assert record.input_requirements == ("context.original_prompt", "decisions.chosen_option")
    assert record.output_types == ("code", "review")
    assert not record.legacy


def _walk(swarm_cli, tmp_path, verdicts):
    """Follow the printed commands from the first step, answering each review with the next verdict."""
    command = "swarm-handoff workflow step implement-change plan --format json"
    visited, answers, doc = [], list(verdicts), None
    for _ in range(40):
        result = swarm_cli(*shlex.split(command)[1:], "--project", str(tmp_path))
        assert result.exit_code == 0, result.stdout + result.stderr
        doc = result.json()
        visited.append(doc["step"])
        if not doc["next"]:
            break
        if doc["routing"]["type"] == "branch":
            verdict = answers.pop(0)
            [chosen] = [n for n in doc["next"] if n["when"]["verdict"] == [verdict]]
            command = chosen["command"]
        else:
            command = doc["next"][0]["command"]
    return visited, doc


def test_the_pass_path_runs_to_the_terminal_step(swarm_cli, tmp_path):
    visited, doc = _walk(swarm_cli, tmp_path, ["pass"])
    assert visited == ["plan", "implement", "review", "finish"]
    assert doc["routing"]["type"] == "terminal"
    assert doc["state"]["qr_status"] == "pass"


def test_a_failed_review_goes_back_to_fix_then_passes(swarm_cli, tmp_path):
    visited, doc = _walk(swarm_cli, tmp_path, ["fail", "fail", "pass"])
    assert visited == ["plan", "implement", "review", "implement", "review", "implement", "review", "finish"]
    assert doc["state"] == {"qr_iteration": 3, "qr_failed": False, "qr_status": "pass"}


def test_a_review_that_never_passes_stops_and_asks_the_user(swarm_cli, tmp_path):
    visited, doc = _walk(swarm_cli, tmp_path, ["fail"] * DEFAULT_ITERATION_LIMIT)
    assert visited.count("review") == DEFAULT_ITERATION_LIMIT
    assert visited[-1] == "ask-user"
    assert doc["routing"]["type"] == "terminal"
    assert doc["state"]["qr_iteration"] == DEFAULT_ITERATION_LIMIT


def test_the_review_step_reads_as_xml_with_the_qr_banner(swarm_cli, tmp_path):
    result = swarm_cli(
        "workflow",
        "step",
        "implement-change",
        "review",
        "--state",
        "qr_iteration=2",
        "--state",
        "qr_failed=true",
        "--format",
        "xml",
        "--project",
        str(tmp_path),
    )
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "fresh review" in result.stdout


@pytest.mark.parametrize("round_", range(1, DEFAULT_ITERATION_LIMIT + 1))
def test_every_review_round_shows_the_three_pillars_in_xml(swarm_cli, tmp_path, round_):
    import xml.etree.ElementTree as ET

    result = swarm_cli(
        "workflow", "step", "implement-change", "review", "--state", f"qr_iteration={round_}",
        "--format", "xml", "--project", str(tmp_path),
    )  # fmt: skip
    assert result.exit_code == 0, result.stdout + result.stderr
    banner = ET.fromstring(result.stdout).find("qr_banner")
    assert banner is not None
    assert banner.get("iteration") == str(round_)
    assert banner.get("mode") == ("fresh-review" if round_ > 1 else "first-review")
    for pillar in ("state_banner", "stop_condition", "reverify"):
        assert (banner.findtext(pillar) or "").strip(), pillar
