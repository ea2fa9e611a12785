"""Issue 26, point 10: the seed's factored-verification rationale, offered by a gate that asks for it."""

from __future__ import annotations

from swarm_handoff.api import Outcome, StepDef, Workflow, render_step
from swarm_handoff_qr.gates import (
    FACTORED_EXPECTED,
    GateConfig,
    ask_user_step,
    factored_verification_rationale,
    gate_step,
)


def _flow(factored: bool) -> Workflow:
    config = GateConfig(qr_name="Plan review", work_step="plan", pass_step=None, factored=factored)
    return Workflow(
        "factored-demo",
        StepDef("plan", "Plan", ["Write the plan"], lambda ctx: (Outcome.OK, {}), {Outcome.OK: "review"}),
        gate_step("review", config, prompt="Review the plan. Report PASS or FAIL."),
        ask_user_step(config),
    )


def test_the_rationale_splits_the_review_into_independent_sub_questions():
    text = factored_verification_rationale()
    assert "independent sub-questions" in text
    assert "without looking at your answers to the other questions" in text
    assert "Reason:" in text  # the why travels with the how


def test_a_factored_gate_gives_the_reviewer_the_rationale_and_asks_for_the_answers(make_swarm_host):
    make_swarm_host(["qr"])
    document = render_step(_flow(True), "review")
    assert factored_verification_rationale() in document.actions
    assert FACTORED_EXPECTED in document.expected
    assert "PASS or FAIL" in document.expected  # the default expectations stay


def test_a_plain_gate_is_unchanged(make_swarm_host):
    make_swarm_host(["qr"])
    document = render_step(_flow(False), "review")
    assert factored_verification_rationale() not in document.actions
    assert FACTORED_EXPECTED not in document.expected
