"""The implement-change workflow; `__init__` imports this module on first use of `WORKFLOW`.

plan -> implement -> review (QR gate) -> finish; a FAIL goes back to implement with the round
raised, and a FAIL in the gate policy's last round goes to ask-user, which ends the run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from swarm_handoff.api import Outcome, StepContext, StepDef, Workflow
from swarm_handoff_qr.gates import GateConfig, ask_user_step, fix_banner, gate_step

ROUNDS = 6  # the `default` QR gate policy's iteration limit

REVIEW = GateConfig(
    qr_name="Implementation review",
    work_step="implement",
    pass_step="finish",
    pass_message="The implementation passed review.",
    self_fix=True,
)


def proceed(ctx: StepContext) -> tuple[Outcome, Mapping[str, Any]]:
    """Steps that only instruct the agent always go on."""
    return Outcome.OK, {}


WORKFLOW = Workflow(
    "implement-change",
    StepDef(
        "plan",
        "Plan the change",
        ["List the files to change and why", "Name the tests that will prove the change works"],
        proceed,
        {Outcome.OK: "implement"},
        phase="plan",
        expected=("a list of files with one reason each", "the tests to run"),
    ),
    StepDef(
        "implement",
        "Implement the change",
        ["Make the planned edits", "Run the tests named in the plan and fix what fails"],
        proceed,
        {Outcome.OK: "review"},
        phase="build",
        banner=fix_banner(REVIEW),
        forbidden=("Do not change files outside the plan without saying why",),
    ),
    gate_step(
        "review",
        REVIEW,
        title="Review the implementation",
        actions=["Hand the diff and the plan to the reviewer"],
        prompt="Review the diff against the plan: correctness, tests, naming. Report PASS or FAIL.",
        phase="review",
    ),
    StepDef(
        "finish",
        "Finish",
        [REVIEW.pass_message, "Summarise what changed and how it was verified"],
        next={Outcome.OK: None},
    ),
    ask_user_step(REVIEW),
    description="Plan, implement and review a change; a review loop that will not pass asks the user.",
    package="swarm_pack_implementation.implement_change",
    # Generated cases cover every review round up to the default gate's limit, the last included.
    max_iterations=ROUNDS,
)
