"""The pack's own suite: generated cases for every step, plus the entry point and a CLI run."""

from __future__ import annotations

import shlex

import pytest

from swarm_handoff.api import load_registry, run_workflow
from swarm_handoff.testing import run_workflow_case, workflow_cases
from swarm_handoff_example_think.workflow import MAX_ROUNDS, WORKFLOW


@pytest.mark.parametrize("case", workflow_cases(WORKFLOW))
def test_every_step(case):
    run_workflow_case(WORKFLOW, case)


def test_the_generated_cases_follow_the_rules():
    ids = [param.id for param in workflow_cases(WORKFLOW)]
    assert "think-through-03-alternatives-mode=full" in ids
    assert "think-through-03-alternatives-mode=quick" not in ids  # gated out in quick mode
    assert [i for i in ids if "-04-refine-" in i] == [f"think-through-04-refine-iteration={n}" for n in range(1, 5)]


def test_the_workflow_is_published_through_its_entry_point():
    registry = load_registry()
    assert registry.get("think-through") is WORKFLOW
    assert registry.workflows["think-through"].distribution == "swarm-handoff-example-think"


@pytest.mark.parametrize(("mode", "alternatives"), [("full", True), ("quick", False)])
def test_modes_and_the_capped_loop(mode, alternatives):
    result = run_workflow(WORKFLOW, {"mode": mode}, agent=lambda ctx: {"confidence": "low"})
    assert ("alternatives" in result.path) is alternatives
    assert result.path.count("refine") == MAX_ROUNDS
    assert result.final_state["confidence"] == "capped"


def test_an_agent_following_the_commands_reaches_the_answer(swarm_cli, tmp_path):
    command = "swarm-handoff workflow step think-through frame --param mode=quick --format json"
    visited = []
    for _ in range(12):
        result = swarm_cli(*shlex.split(command)[1:], "--project", str(tmp_path))
        assert result.exit_code == 0, result.stdout + result.stderr
        doc = result.json()
        visited.append(doc["step"])
        if not doc["next"]:
            break
        command = doc["next"][0]["command"]  # always the least confident answer
    assert visited == ["frame", "depth", "refine", "refine", "refine", "refine", "answer"]
    assert doc["resources"][0]["source"] == "package"
    assert "## Answer" in doc["resources"][0]["text"]


def test_the_skill_is_discoverable_with_its_handoff_metadata(make_swarm_host, tmp_path):
    from swarm_handoff.api import discover, make_context

    host = make_swarm_host(packs=["think-through"])
    result = discover(make_context(tmp_path, {"HOME": str(tmp_path)}), host)
    [record] = [r for r in result.workflows if r.name == "think-through"]
    assert record.scope.value == "installed"
    assert record.categories == ("analysis", "creative")
    assert record.trigger == "--handoff {payload_path}"
