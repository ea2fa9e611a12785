"""The text layout of a workflow step: actions, one block per resource, the next command(s)."""

from __future__ import annotations

from swarm_handoff.api import AgentRole, Dispatch, Outcome, StepDef, Workflow, render_step
from swarm_handoff.textviews import TextFormatter


def proceed(ctx):
    return Outcome.OK, {}


FLOW = Workflow(
    "text-demo",
    StepDef("work", "Work", ["Do it", "Then check:\n- twice"], proceed, {Outcome.OK: "review"}, phase="build"),
    StepDef(
        "review",
        "Review",
        ["Look closely"],
        Dispatch(AgentRole.QUALITY_REVIEWER, prompt="Review"),
        {Outcome.OK: None, Outcome.FAIL: "work"},
        embed=("convention:severity",),
    ),
)


def render(step, **kwargs):
    return TextFormatter().render(render_step(FLOW, step, **kwargs))


def test_a_linear_step_lists_actions_and_one_command():
    text = render("work")
    assert text.startswith("text-demo: step 1 of 2 [build]: Work\n")
    assert "  1. Do it\n  2. Then check:\n     - twice\n" in text
    assert text.endswith("NEXT (linear):\n  swarm-handoff workflow step text-demo review\n")


def test_a_branch_lists_each_command_and_embeds_the_resource_as_one_block():
    text = render("review")
    assert "DISPATCH TO: quality-reviewer" in text
    assert "convention:severity (from the package: swarm_handoff.workflow.conventions/severity.md):\n```\n" in text
    assert text.count("```") == 2
    assert (
        "NEXT (branch): run exactly one of these\n  if-pass (verdict reported):\n    (the workflow is complete)\n"
        in text
    )
    assert "  if-fail (verdict reported):\n    swarm-handoff workflow step text-demo work --state" in text


def test_a_terminal_step_says_the_workflow_is_complete():
    done = Workflow("done-demo", StepDef("only", "Only", ["Finish"], next={Outcome.OK: None}))
    assert (
        TextFormatter().render(render_step(done, "only")).endswith("NEXT (terminal): none, the workflow is complete.\n")
    )


def test_list_and_show_have_their_own_layouts(swarm_cli, use_workflows, make_swarm_host):
    make_swarm_host()
    use_workflows(FLOW)
    listing = swarm_cli("workflow", "list")
    assert listing.stdout.startswith("text-demo  (2 steps, (in-process))\n")
    show = swarm_cli("workflow", "show", "text-demo").stdout
    assert "  1. work: Work  [build]\n       ok -> review\n" in show
    assert "  2. review: Review\n       dispatch to quality-reviewer\n       ok -> (end)\n       fail -> work\n" in show
    assert "embeds convention:severity from the package" in show
