"""The evidence-review workflow: list the questions, gather sources, grade them, report.

Grading loops while the agent reports that some question still lacks a source it trusts, and
stops after `MAX_PASSES` passes whatever it reports, so the loop always ends.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from swarm_handoff.api import Arg, Outcome, StepContext, StepDef, Workflow

MAX_PASSES = 3
COVERAGE = ("gaps", "complete")

Result = tuple[Outcome, Mapping[str, Any]]


def proceed(ctx: StepContext) -> Result:
    """Instruction-only steps always go on."""
    return Outcome.OK, {}


def grade(
    ctx: StepContext,
    coverage: Annotated[str, Arg("whether every question has a trusted source", choices=COVERAGE, reported=True)],
) -> Result:
    """Go back for more sources while there are gaps, at most `MAX_PASSES` times."""
    passes = int(ctx.step_state.get("iteration", 1))
    if coverage == "complete" or passes >= MAX_PASSES:
        return Outcome.OK, {"coverage": coverage}
    return Outcome.ITERATE, {"iteration": passes + 1}


WORKFLOW = Workflow(
    "evidence-review",
    StepDef(
        "questions",
        "List the questions",
        [
            "Read context.original_prompt and context.problem_type from the hand-off payload",
            "Copy every research_seeds.open_questions entry, then turn each uncertainty into a question",
        ],
        proceed,
        {Outcome.OK: "grade"},
    ),
    StepDef(
        "grade",
        "Gather and grade sources",
        [
            "For each question, find sources, starting from research_seeds.suggested_terms",
            "Grade each question settled, contested or unknown, citing the sources",
            "Report whether every question now has a source you trust",
        ],
        grade,
        {Outcome.OK: "report", Outcome.ITERATE: "grade"},
    ),
    StepDef(
        "report",
        "Report",
        ["Write a table of questions, grades and sources", "Say what the evidence changes in the synthesis"],
        next={Outcome.OK: None},
    ),
    description="Answer a synthesis's open questions with graded evidence.",
    max_iterations=MAX_PASSES,
)
