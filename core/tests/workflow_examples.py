"""The five workflow patterns of docs/workflows.md, as importable workflows for the tests.

conftest.py loads this file once as `workflow_examples` (the suite runs with
`--import-mode=importlib`, which puts no test folder on sys.path).
"""

from __future__ import annotations

from typing import Annotated, Any

from swarm_handoff.workflow import AgentRole, Arg, Dispatch, Outcome, StepContext, StepDef, Workflow

Result = tuple[Outcome, dict[str, Any]]


def proceed(ctx: StepContext) -> Result:
    """A step that only shows instructions always goes on."""
    return Outcome.OK, {}


# 1. Linear -------------------------------------------------------------------------------------

LINEAR = Workflow(
    "linear-demo",
    StepDef("gather", "Gather the facts", ["List the facts", "List the assumptions"], proceed, {Outcome.OK: "weigh"}),
    StepDef("weigh", "Weigh the options", ["Score each option"], proceed, {Outcome.OK: "decide"}),
    StepDef("decide", "Decide", ["Write the decision down"], next={Outcome.OK: None}),
    description="Three steps, one after the other.",
)

# 2. Confidence-driven iteration -----------------------------------------------------------------

CONFIDENCE = ("exploring", "low", "medium", "high", "certain")


def investigate(
    ctx: StepContext,
    confidence: Annotated[str, Arg("how sure the agent is after this round", choices=CONFIDENCE, reported=True)],
) -> Result:
    """Loop until the agent is confident, or until the iteration budget is spent."""
    iteration = int(ctx.step_state.get("iteration", 1))
    if confidence in ("high", "certain"):
        return Outcome.OK, {"confidence": confidence}
    if iteration >= 4:
        return Outcome.OK, {"confidence": "capped"}
    return Outcome.ITERATE, {"iteration": iteration + 1}


ITERATION = Workflow(
    "iterate-demo",
    StepDef(
        "investigate",
        "Investigate",
        ["Read the code paths involved", "Note what you still do not understand"],
        investigate,
        {Outcome.OK: "report", Outcome.ITERATE: "investigate"},
    ),
    StepDef("report", "Report", ["Summarise the findings"], next={Outcome.OK: None}),
    max_iterations=4,
)

# 3. Mode branching (with the iteration of pattern 2 inside it) ----------------------------------


def plan(ctx: StepContext, mode: Annotated[str, Arg("how thorough", choices=("full", "quick"))] = "full") -> Result:
    """Quick mode skips the design branch; the transition says so instead of a step number."""
    return (Outcome.SKIP if mode == "quick" else Outcome.OK), {}


MODES = Workflow(
    "think-demo",
    StepDef("frame", "Frame the question", ["Restate the question"], proceed, {Outcome.OK: "plan"}),
    StepDef("plan", "Plan", ["Decide how deep to go"], plan, {Outcome.OK: "design", Outcome.SKIP: "refine"}),
    StepDef(
        "design",
        "Design alternatives",
        ["Sketch three alternatives"],
        proceed,
        {Outcome.OK: "refine"},
        when={"mode": ("full",)},
        phase="deep",
    ),
    StepDef(
        "refine",
        lambda ctx: f"Refine (iteration {ctx.step_state.get('iteration', 1)})",
        ["Challenge the current answer"],
        investigate,
        {Outcome.OK: "answer", Outcome.ITERATE: "refine"},
    ),
    StepDef("answer", "Answer", ["Write the answer"], next={Outcome.OK: None}),
    max_iterations=4,
    description="Mode branching and a confidence-driven loop.",
)

# 4. QR gate ------------------------------------------------------------------------------------

QR_LIMIT = 3


def revise(ctx: StepContext) -> Result:
    """Fix what the review found, unless the loop has used up its rounds: then ask the user."""
    if int(ctx.step_state.get("qr_iteration", 1)) > QR_LIMIT:
        return Outcome.SKIP, {}
    return Outcome.OK, {}


QR_GATE = Workflow(
    "qr-demo",
    StepDef("implement", "Implement", ["Write the change"], proceed, {Outcome.OK: "review"}),
    StepDef(
        "review",
        "QR: review the change",
        ["Review the change against the plan"],
        Dispatch(AgentRole.QUALITY_REVIEWER, prompt="Review the diff; answer PASS or FAIL with findings."),
        {Outcome.OK: "done", Outcome.FAIL: "revise"},
        embed=("convention:severity",),
    ),
    StepDef("revise", "Revise", ["Fix every blocking finding"], revise, {Outcome.OK: "review", Outcome.SKIP: "ask"}),
    StepDef("ask", "Ask the user", ["Show the open findings and ask how to go on"], next={Outcome.OK: None}),
    StepDef("done", "Done", ["Report the change as reviewed"], next={Outcome.OK: None}),
)

# 5. Hybrid static/dynamic steps -----------------------------------------------------------------

STATIC = {
    "context": ("Clarify the context", ["State the goal", "State the constraints"]),
    "abstract": ("Step back", ["Name the general principle behind the problem"]),
}


def _dispatch_title(ctx: StepContext) -> str:
    return f"Dispatch {ctx.workflow_params.get('agents', 2)} explorers"


def _dispatch_actions(ctx: StepContext) -> list[str]:
    count = int(ctx.workflow_params.get("agents", 2))
    return [f"Start explorer {n} on its own angle" for n in range(1, count + 1)]


def fan_out(ctx: StepContext, agents: Annotated[int, Arg("parallel explorers", min=1, max=3)] = 2) -> Result:
    """The dynamic step's handler declares the parameter its text depends on."""
    return Outcome.OK, {}


HYBRID = Workflow(
    "hybrid-demo",
    *(
        StepDef(sid, title, actions, proceed, {Outcome.OK: following})
        for (sid, (title, actions)), following in zip(STATIC.items(), ["abstract", "explore"], strict=True)
    ),
    StepDef("explore", _dispatch_title, _dispatch_actions, fan_out, {Outcome.OK: "synthesise"}),
    StepDef("synthesise", "Synthesise", ["Merge what the explorers found"], next={Outcome.OK: None}),
)

ALL = (LINEAR, ITERATION, MODES, QR_GATE, HYBRID)
