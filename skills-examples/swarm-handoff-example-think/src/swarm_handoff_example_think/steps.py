"""The `think-through` workflow: frame a question, optionally explore alternatives, refine, answer.

Quick mode skips the alternatives; the refine step loops on the agent's reported confidence and
stops after `MAX_ROUNDS` rounds whatever the confidence, so the loop always ends.
The entry point names `.workflow`, which imports this module on first use of `WORKFLOW`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from swarm_handoff.api import Arg, Outcome, StepContext, StepDef, Workflow

MAX_ROUNDS = 4
MODES = ("full", "quick")
CONFIDENCE = ("exploring", "low", "medium", "high", "certain")

Result = tuple[Outcome, Mapping[str, Any]]


def proceed(ctx: StepContext) -> Result:
    """Steps that only instruct the agent always go on."""
    return Outcome.OK, {}


def choose_depth(ctx: StepContext, mode: Annotated[str, Arg("how thorough to be", choices=MODES)] = "full") -> Result:
    """Quick mode skips the alternatives; the outcome says so, the graph says where that leads."""
    return (Outcome.SKIP if mode == "quick" else Outcome.OK), {}


def refine(
    ctx: StepContext,
    confidence: Annotated[str, Arg("confidence after this round", choices=CONFIDENCE, reported=True)],
) -> Result:
    """Loop until confident, or until the rounds run out (then say the answer is capped)."""
    round_ = int(ctx.step_state.get("iteration", 1))
    if confidence in ("high", "certain"):
        return Outcome.OK, {"confidence": confidence}
    if round_ >= MAX_ROUNDS:
        return Outcome.OK, {"confidence": "capped"}
    return Outcome.ITERATE, {"iteration": round_ + 1}


def refine_title(ctx: StepContext) -> str:
    """Show the round so the agent (and the user) see the loop advance."""
    return f"Refine the answer (round {ctx.step_state.get('iteration', 1)} of {MAX_ROUNDS})"


def answer_actions(ctx: StepContext) -> list[str]:
    """Report the confidence the loop ended with, and point at the embedded answer template."""
    reached = ctx.step_state.get("confidence", "unknown")
    return [f"Write the answer with the template below; the loop ended at confidence '{reached}'."]


WORKFLOW = Workflow(
    "think-through",
    StepDef(
        "frame",
        "Frame the question",
        ["Restate the question in one sentence", "List what a good answer must cover"],
        proceed,
        {Outcome.OK: "depth"},
        phase="setup",
    ),
    StepDef(
        "depth",
        "Choose the depth",
        ["Confirm the mode with the user if it was not given"],
        choose_depth,
        {Outcome.OK: "alternatives", Outcome.SKIP: "refine"},
        phase="setup",
    ),
    StepDef(
        "alternatives",
        "Explore alternatives",
        ["Sketch at least three different answers", "Note the strongest objection to each"],
        proceed,
        {Outcome.OK: "refine"},
        when={"mode": ("full",)},
        phase="explore",
    ),
    StepDef(
        "refine",
        refine_title,
        ["Challenge the current answer", "Report your confidence by running the matching command"],
        refine,
        {Outcome.OK: "answer", Outcome.ITERATE: "refine"},
        phase="refine",
    ),
    StepDef("answer", "Answer", answer_actions, next={Outcome.OK: None}, embed=("resource:templates/answer.md",)),
    description="Think a question through: frame, explore (full mode), refine until confident, answer.",
    package="swarm_handoff_example_think",
    max_iterations=MAX_ROUNDS,
)
