"""A workflow review step names the `default` gate: the step text follows the blocking table."""

from __future__ import annotations

import pytest

from swarm_handoff.api import AgentRole, Dispatch, Outcome, StepDef, Workflow, render_step

REVIEW = Workflow(
    "gate-demo",
    StepDef(
        "review",
        "Review",
        ["Review the change"],
        Dispatch(AgentRole.QUALITY_REVIEWER, prompt="Review", gate="default"),
        {Outcome.OK: None, Outcome.FAIL: "review"},
    ),
)


@pytest.mark.parametrize(
    ("round_", "blocking"),
    [(1, "MUST, SHOULD, COULD"), (3, "MUST, SHOULD"), (5, "MUST")],
)
def test_the_review_step_states_what_blocks_in_each_round(make_swarm_host, round_, blocking):
    make_swarm_host(["qr"])
    action = render_step(REVIEW, "review", state={"qr_iteration": round_}).actions[-1]
    assert action.startswith(f"Review round {round_}: findings of severity {blocking} block.")


def test_past_the_iteration_limit_the_step_hands_over_to_the_user(make_swarm_host):
    make_swarm_host(["qr"])
    action = render_step(REVIEW, "review", state={"qr_iteration": 7}).actions[-1]
    assert "hand the open findings to the user" in action
