"""Issue 26, point 10: a sub-agent dispatch carries its context variables and the script's step/total."""

from __future__ import annotations

import pytest

from swarm_handoff.render import render
from swarm_handoff.workflow import AgentRole, Dispatch, Outcome, StepDef, Workflow, render_step
from swarm_handoff.workflow.dispatch_document import DispatchDocument

FLOW = Workflow(
    "explore-dims",
    StepDef(
        "explore",
        "Explore one dimension",
        ["Explore"],
        Dispatch(AgentRole.EXPLORE, script="scripts/explore.py", total_steps=3, context_vars={"dimension": "naming"}),
        {Outcome.OK: "plain", Outcome.FAIL: "explore"},
    ),
    StepDef(
        "plain",
        "Plain review",
        ["Review"],
        Dispatch(AgentRole.EXPLORE, script="scripts/explore.py"),
        {Outcome.OK: None, Outcome.FAIL: "explore"},
    ),
)


def test_the_step_document_carries_the_context_and_where_the_script_starts():
    document = render_step(FLOW, "explore", state={"scan_round": "2"})
    assert document.dispatch is not None
    assert document.dispatch["step"] == 1
    assert document.dispatch["total_steps"] == 3
    assert document.dispatch["context"] == {"dimension": "naming"}
    assert "starting at step 1 of 3 and its context (dimension=naming)" in document.actions[-1]


def test_the_dispatch_document_merges_the_declared_context_over_the_steps_values():
    document = DispatchDocument.from_step(render_step(FLOW, "explore", state={"dimension": "old", "round": "2"}))
    assert document.context == {"dimension": "naming", "round": "2"}
    assert document.to_data()["dispatch"]["total_steps"] == 3


def test_text_shows_the_start_and_the_context():
    text = render(render_step(FLOW, "explore"), "text")
    assert "  starts at: step 1 of 3\n  with:\n    dimension = naming\n" in text


def test_a_dispatch_that_declares_neither_reads_as_before():
    document = render_step(FLOW, "plain")
    assert document.dispatch == {"agent": "explore", "mode": "script", "script": "scripts/explore.py", "prompt": None}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"prompt": "Review", "total_steps": 2}, "a prompt has none"),
        ({"script": "x.py", "total_steps": 0}, "at least 1"),
        ({"script": "x.py", "total_steps": True}, "at least 1"),
        ({"script": "x.py", "context_vars": {"not a name": "x"}}, "maps names to text"),
        ({"script": "x.py", "context_vars": {"n": 3}}, "maps names to text"),
    ],
)
def test_a_wrong_declaration_is_refused_when_the_workflow_is_written(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Dispatch(AgentRole.EXPLORE, **kwargs)


def test_a_dispatch_with_context_stays_hashable_as_every_dispatch_was():
    """Hashable and comparable, with or without a context; the context read-only."""

    with_context = Dispatch(AgentRole.EXPLORE, script="s.py", context_vars={"dimension": "naming"})
    same = Dispatch(AgentRole.EXPLORE, script="s.py", context_vars={"dimension": "naming"})
    other = Dispatch(AgentRole.EXPLORE, script="s.py", context_vars={"dimension": "tests"})
    assert hash(with_context) == hash(same)
    assert with_context == same
    assert with_context != other  # the context still tells two dispatches apart
    assert len({with_context, same, other}) == 2
    assert hash(Dispatch(AgentRole.EXPLORE, prompt="p")) == hash(Dispatch(AgentRole.EXPLORE, prompt="p"))
    with pytest.raises(TypeError):
        with_context.context_vars["dimension"] = "changed"  # type: ignore[index]
