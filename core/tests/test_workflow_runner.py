"""The in-process runner: it follows `next`, carries state, and refuses to loop forever."""

from __future__ import annotations

import pytest
import workflow_examples as ex

from swarm_handoff.errors import SwarmError
from swarm_handoff.workflow import Outcome, StepDef, Workflow, run_workflow


def ok(ctx):
    return Outcome.OK, {}


def count(ctx):
    return Outcome.ITERATE, {"n": int(ctx.step_state.get("n", 0)) + 1}


def boom(ctx):
    raise RuntimeError("disk on fire")


def skip(ctx):
    return Outcome.SKIP, {}


def not_a_pair(ctx):
    return "ok"


def test_a_linear_workflow_runs_from_entry_to_end():
    result = run_workflow(ex.LINEAR)
    assert result.path == ("gather", "weigh", "decide")
    assert result.trace[-1].target is None


def test_confidence_iteration_ends_when_confident():
    answers = iter(["low", "medium", "high"])
    result = run_workflow(ex.ITERATION, agent=lambda ctx: {"confidence": next(answers)})
    assert result.path == ("investigate", "investigate", "investigate", "report")
    assert result.final_state["confidence"] == "high"


def test_confidence_iteration_is_capped_when_never_confident():
    result = run_workflow(ex.ITERATION, agent=lambda ctx: {"confidence": "exploring"})
    assert result.path == ("investigate",) * 4 + ("report",)
    assert result.final_state == {"iteration": 4, "confidence": "capped"}


@pytest.mark.parametrize(
    ("mode", "path"),
    [
        ("full", ("frame", "plan", "design", "refine", "answer")),
        ("quick", ("frame", "plan", "refine", "answer")),
    ],
)
def test_mode_branching_takes_the_declared_branch(mode, path):
    result = run_workflow(ex.MODES, {"mode": mode}, agent=lambda ctx: {"confidence": "certain"})
    assert result.path == path


def test_a_qr_loop_passes_on_the_second_review():
    def reviewer(ctx):
        return {"verdict": "pass" if ctx.step_state.get("qr_iteration", 1) >= 2 else "fail"}

    result = run_workflow(ex.QR_GATE, agent=reviewer)
    assert result.path == ("implement", "review", "revise", "review", "done")
    assert result.final_state["qr_status"] == "pass"


def test_a_qr_loop_that_never_passes_stops_and_asks_the_user():
    result = run_workflow(ex.QR_GATE, agent=lambda ctx: {"verdict": "fail"})
    assert result.path[-1] == "ask"
    assert result.path.count("review") == ex.QR_LIMIT


def test_default_outcome_is_the_fallback():
    wf = Workflow(
        "fallback",
        StepDef("a", handler=skip, next={Outcome.OK: "b", Outcome.DEFAULT: "c"}),
        StepDef("b", next={Outcome.OK: None}),
        StepDef("c", next={Outcome.OK: None}),
    )
    assert run_workflow(wf).path == ("a", "c")


def test_an_endless_loop_hits_the_step_budget_with_a_clear_error():
    wf = Workflow(
        "spin",
        StepDef("a", handler=count, next={Outcome.ITERATE: "a", Outcome.OK: "b"}),
        StepDef("b", next={Outcome.OK: None}),
    )
    with pytest.raises(SwarmError) as caught:
        run_workflow(wf, max_steps=25)
    error = caught.value
    assert error.code == "WORKFLOW_RUN_FAILED"
    assert "did not finish within 25 steps" in error.message
    assert error.details["state"] == {"n": 25}


def test_a_raising_handler_goes_to_on_error_with_the_message_in_state():
    wf = Workflow(
        "risky",
        StepDef("a", handler=boom, next={Outcome.OK: "b"}, on_error="recover"),
        StepDef("b", next={Outcome.OK: None}),
        StepDef("recover", next={Outcome.OK: None}),
    )
    result = run_workflow(wf)
    assert result.path == ("a", "recover")
    assert "disk on fire" in result.final_state["error"]


def test_a_raising_handler_without_on_error_names_workflow_and_step():
    wf = Workflow("risky", StepDef("a", handler=boom, next={Outcome.OK: None}))
    with pytest.raises(SwarmError, match=r"workflow 'risky', step 'a'.*disk on fire"):
        run_workflow(wf)


def test_a_handler_returning_garbage_is_reported():
    wf = Workflow("garbage", StepDef("a", handler=not_a_pair, next={Outcome.OK: None}))
    with pytest.raises(SwarmError, match=r"returns \(Outcome, dict\)"):
        run_workflow(wf)


def test_an_unmapped_outcome_is_reported():
    wf = Workflow("unmapped", StepDef("a", handler=skip, next={Outcome.OK: None}))
    with pytest.raises(SwarmError, match="does not map"):
        run_workflow(wf)


def test_a_reported_value_must_come_from_the_agent():
    with pytest.raises(SwarmError, match="needs reported values"):
        run_workflow(ex.ITERATION)


def test_params_are_checked_before_running():
    with pytest.raises(SwarmError) as caught:
        run_workflow(ex.MODES, {"mode": "slow"})
    assert caught.value.code == "WORKFLOW_PARAM_INVALID"
    assert "full, quick" in caught.value.message


def test_the_runner_can_start_mid_way():
    assert run_workflow(ex.LINEAR, start="weigh").path == ("weigh", "decide")


def test_a_step_without_next_ends_the_workflow_even_with_a_handler():
    wf = Workflow("short", StepDef("a", handler=skip))
    assert run_workflow(wf).trace[-1].target is None
