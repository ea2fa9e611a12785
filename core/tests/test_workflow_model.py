"""Workflow construction: every check names the workflow and the step; parameters come from Arg."""

from __future__ import annotations

from typing import Annotated

import attrs
import pytest

from swarm_handoff.errors import SwarmError
from swarm_handoff.workflow import AgentRole, Arg, Dispatch, Outcome, StepContext, StepDef, Workflow
from swarm_handoff.workflow.types import MISSING


def ok(ctx):
    return Outcome.OK, {}


def with_mode(ctx, mode: Annotated[str, Arg("how deep", choices=("full", "quick"))] = "full"):
    return Outcome.OK, {}


def other_mode(ctx, mode: Annotated[str, Arg("different", choices=("a", "b"))] = "a"):
    return Outcome.OK, {}


def untyped(ctx, depth):
    return Outcome.OK, {}


def bad_default(ctx, level: Annotated[int, Arg(min=1, max=3)] = 7):
    return Outcome.OK, {}


def reported_free_text(ctx, note: Annotated[str, Arg(reported=True)]):
    return Outcome.OK, {}


def end(sid="end"):
    return StepDef(sid, "End", ["stop"], next={Outcome.OK: None})


def invalid(*steps, **kwargs):
    with pytest.raises(SwarmError) as caught:
        Workflow("demo", *steps, **kwargs)
    assert caught.value.code == "WORKFLOW_INVALID"
    messages = [p.message for p in caught.value.problems]
    assert all("workflow 'demo'" in m for m in messages)
    return messages


def test_a_valid_workflow_keeps_its_steps_in_order():
    wf = Workflow("demo", StepDef("a", "A", ["x"], ok, {Outcome.OK: "end"}), end(), description="d")
    assert wf.step_ids == ("a", "end")
    assert wf.entry == "a"
    assert wf.total_steps == 2
    assert wf.index("end") == 2
    assert wf.step("a").title == "A"
    assert attrs.has(Workflow)


def test_the_entry_step_must_exist():
    messages = invalid(StepDef("a", handler=ok, next={Outcome.OK: None}), entry="start")
    assert any("step 'start'" in m and "entry step does not exist" in m for m in messages)


def test_every_target_must_exist():
    messages = invalid(StepDef("a", handler=ok, next={Outcome.OK: "nowhere", Outcome.FAIL: None}))
    assert any("step 'a'" in m and "'nowhere'" in m for m in messages)


def test_the_on_error_target_must_exist():
    messages = invalid(StepDef("a", handler=ok, next={Outcome.OK: None}, on_error="ghost"))
    assert any("step 'a'" in m and "on_error" in m for m in messages)


def test_at_least_one_step_must_end_the_workflow():
    messages = invalid(
        StepDef("a", handler=ok, next={Outcome.OK: "b"}),
        StepDef("b", handler=ok, next={Outcome.OK: "a"}),
    )
    assert any("no step ends the workflow" in m for m in messages)


def test_every_step_must_be_reachable():
    messages = invalid(StepDef("a", handler=ok, next={Outcome.OK: "end"}), end(), end("orphan"))
    assert any("step 'orphan'" in m and "cannot be reached" in m for m in messages)


def test_duplicate_step_ids_are_refused():
    messages = invalid(StepDef("a", handler=ok, next={Outcome.OK: "end"}), end(), end())
    assert any("step 'end'" in m and "more than once" in m for m in messages)


def test_a_step_that_leads_somewhere_needs_a_handler():
    messages = invalid(StepDef("a", next={Outcome.OK: "end"}), end())
    assert any("step 'a'" in m and "no handler" in m for m in messages)


def test_next_keys_must_be_outcomes():
    messages = invalid(StepDef("a", handler=ok, next={"ok": "end"}), end())
    assert any("step 'a'" in m and "is not an Outcome" in m for m in messages)


def test_all_problems_are_reported_together():
    messages = invalid(StepDef("a", next={"ok": "ghost"}), end("x"))
    assert len(messages) >= 4  # key, target, handler, no terminal reachable / orphan


def test_parameters_are_extracted_from_annotated_signatures():
    wf = Workflow("demo", StepDef("a", handler=with_mode, next={Outcome.OK: None}))
    param = wf.params["mode"]
    assert param.type is str
    assert param.arg.choices == ("full", "quick")
    assert param.arg.default == "full"
    assert wf.step_params["a"]["mode"] == param


def test_a_parameter_without_arg_or_default_is_a_problem():
    messages = invalid(StepDef("a", handler=untyped, next={Outcome.OK: None}))
    assert any("'depth'" in m and "step 'a'" in m for m in messages)


def test_a_default_outside_the_domain_is_a_problem():
    messages = invalid(StepDef("a", handler=bad_default, next={Outcome.OK: None}))
    assert any("outside its domain" in m for m in messages)


def test_a_parameter_declared_two_ways_is_a_problem():
    messages = invalid(
        StepDef("a", handler=with_mode, next={Outcome.OK: "b"}),
        StepDef("b", handler=other_mode, next={Outcome.OK: None}),
    )
    assert any("'mode'" in m and "differently" in m for m in messages)


def test_a_reported_parameter_needs_choices():
    messages = invalid(StepDef("a", handler=reported_free_text, next={Outcome.OK: None}))
    assert any("'note'" in m and "choices" in m for m in messages)


def test_when_gates_must_name_declared_parameters_and_allowed_values():
    messages = invalid(
        StepDef("a", handler=with_mode, next={Outcome.OK: "b"}),
        StepDef("b", next={Outcome.OK: None}, when={"mode": ("deep",), "colour": ("red",)}),
    )
    assert any("'colour'" in m for m in messages)
    assert any("outside the domain" in m for m in messages)


def test_embed_references_are_checked():
    messages = invalid(StepDef("a", next={Outcome.OK: None}, embed=("template:x", "resource:t.md")))
    assert any("template:x" in m for m in messages)
    assert any("package=" in m for m in messages)


def test_the_workflow_name_is_checked():
    with pytest.raises(SwarmError, match="name must be"):
        Workflow("Not A Name", end())


def test_unknown_step_is_a_structured_error_listing_the_valid_ids():
    wf = Workflow("demo", StepDef("a", handler=ok, next={Outcome.OK: "end"}), end())
    with pytest.raises(SwarmError) as caught:
        wf.step("z")
    assert caught.value.code == "WORKFLOW_STEP_NOT_FOUND"
    assert caught.value.details["available"] == ["a", "end"]
    assert not isinstance(caught.value, KeyError)


def test_step_context_mappings_are_read_only():
    source = {"mode": "full"}
    ctx = StepContext("a", source, {"iteration": 1})
    source["mode"] = "changed"
    assert ctx.workflow_params["mode"] == "full"
    with pytest.raises(TypeError):
        ctx.workflow_params["mode"] = "quick"  # type: ignore[index]
    with pytest.raises(TypeError):
        ctx.step_state["iteration"] = 2  # type: ignore[index]


def test_stepdef_is_frozen_and_converts_actions():
    step = StepDef("a", actions=["one", "two"])
    assert step.actions == ("one", "two")
    assert StepDef("b", actions="only one").actions == ("only one",)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        step.id = "b"  # type: ignore[misc]


def test_outcome_values_and_default_fallback():
    assert [o.value for o in Outcome] == ["ok", "fail", "skip", "iterate", "_default", "escalate"]
    step = StepDef("a", handler=ok, next={Outcome.OK: "b", Outcome.DEFAULT: "c"})
    assert step.resolve(Outcome.OK) == (Outcome.OK, "b")
    assert step.resolve(Outcome.FAIL) == (Outcome.DEFAULT, "c")
    assert StepDef("x", next={Outcome.OK: None}).resolve(Outcome.FAIL) is None


def test_dispatch_maps_verdicts_and_needs_one_target():
    assert [r.value for r in AgentRole] == [
        "quality-reviewer",
        "developer",
        "technical-writer",
        "explore",
        "general-purpose",
    ]
    assert Dispatch.outcome_for("PASS") is Outcome.OK
    assert Dispatch.outcome_for("fail") is Outcome.FAIL
    with pytest.raises(ValueError, match="pass' or 'fail"):
        Dispatch.outcome_for("maybe")
    with pytest.raises(ValueError, match="exactly one"):
        Dispatch(AgentRole.DEVELOPER)
    with pytest.raises(ValueError, match="exactly one"):
        Dispatch(AgentRole.DEVELOPER, script="a", prompt="b")
    dispatch = Dispatch("quality-reviewer", script="pack.qr.review")
    assert dispatch.agent is AgentRole.QUALITY_REVIEWER
    outcome, state = dispatch(StepContext("r", {}, {"qr_iteration": 2}), "fail")
    assert outcome is Outcome.FAIL
    assert state == {"qr_iteration": 3, "qr_failed": True, "qr_status": "fail"}


def test_arg_accepts_inspect_empty_as_no_default():
    import inspect

    assert Arg(default=inspect.Parameter.empty).default is MISSING
    assert not Arg().has_default
    assert Arg(default=1).has_default
    assert not Arg(default=1, required=True).has_default


class Scorer:
    """A callable object as a handler: its parameters are read from `__call__`."""

    def __call__(self, ctx, level: Annotated[int, Arg("how strict", min=1, max=3)] = 2):
        return Outcome.OK, {"level": level}


def test_a_callable_object_can_be_a_handler():
    wf = Workflow("objects", StepDef("a", handler=Scorer(), next={Outcome.OK: None}))
    assert wf.params["level"].arg.max == 3


def test_a_non_callable_handler_is_a_problem():
    messages = invalid(StepDef("a", handler="not callable", next={Outcome.OK: None}))  # type: ignore[arg-type]
    assert any("not callable" in m for m in messages)
