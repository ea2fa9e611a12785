"""The rows of the `workflow` group and its group record."""

from __future__ import annotations

from pathlib import Path

from swarm_handoff.operations import CLI_ONLY, Group, Operation, Param

_WORKFLOW_NAME = Param("name", help="The workflow's name.", required=True, argument=True, complete="workflow")
_PROJECT = Param(
    "project",
    Path,
    "Project whose .claude/conventions override.",
    default=Path("."),
    tool_help="Project folder whose .claude/conventions override (default: '.').",
    path=True,
)

WORKFLOW_LIST = Operation(
    "workflow list",
    "List the registered workflows and the skill packs that failed to load.",
    (),
    "swarm_handoff.cli.workflow_commands:list_operation",
    examples=("swarm-handoff workflow list",),
    docs="docs/workflows.md",
)

WORKFLOW_SHOW = Operation(
    "workflow show",
    "Show a workflow's parameters, steps, transitions and which conventions it embeds.",
    (_WORKFLOW_NAME, _PROJECT),
    "swarm_handoff.cli.workflow_commands:show_operation",
    examples=("swarm-handoff workflow show NAME",),
    docs="docs/workflows.md",
)

WORKFLOW_CHECK = Operation(
    "workflow check",
    "Validate every registered workflow (or one); exit 1 when any is invalid.",
    (
        Param("name", help="Check only this workflow.", argument=True, complete="workflow"),
        Param("cases", bool, "Also run every generated test case.", default=False),
        _PROJECT,
    ),
    "swarm_handoff.cli.workflow_commands:check_operation",
    examples=("swarm-handoff workflow check", "swarm-handoff workflow check NAME"),
    docs="docs/workflows.md",
)

WORKFLOW_GRAPH = Operation(
    "workflow graph",
    "Export the transition graph (outcomes on edges, an explicit end node).",
    (
        _WORKFLOW_NAME,
        Param(
            "syntax",
            help="Graph syntax: mermaid or dot.",
            default="mermaid",
            flags=("--as",),
            choices="swarm_handoff.workflow.graph:FORMATS",
        ),
    ),
    "swarm_handoff.cli.workflow_commands:graph_operation",
    examples=("swarm-handoff workflow graph NAME",),
    docs="docs/workflows.md",
    cli_invoke="swarm_handoff.cli.workflow_commands:graph_invoke",
)

WORKFLOW_STEP = Operation(
    "workflow step",
    "Print one step (title, actions) and the exact command(s) to run next.\n\n"
    "The skills-system contract is accepted as an alternative front end: `--step N\n"
    "--total-steps M` name the step by position, and `--qr-iteration N --qr-fail --qr-status\n"
    "pass|fail` stand for `--state qr_iteration=N --state qr_failed=true --state qr_status=...`.",
    (
        Param(
            "name",
            help="The workflow's name.",
            required=True,
            argument=True,
            complete="workflow",
            tool_name="skill",
            tool_help="The workflow's name (the skill pack's workflow).",
        ),
        Param(
            "step_id",
            help="The step to show (or give --step N); default: the first.",
            argument=True,
            tool_name="step",
            tool_required=True,
            tool_help="The step to show.",
        ),
        Param(
            "params",
            help="A workflow parameter, key=value (repeat).",
            repeatable=True,
            flags=("--param",),
            tool_type="object",
            tool_help="Workflow parameters, key: value.",
        ),
        Param(
            "state",
            help="Carried state, key=value (repeat).",
            repeatable=True,
            tool_type="object",
            tool_help="Carried state, key: value.",
        ),
        _PROJECT,
        Param("position", int, "The step by position, 1 to the number of steps.", flags=("--step",), surfaces=CLI_ONLY),
        Param("total_steps", int, "With --step: the workflow's number of steps (checked).", surfaces=CLI_ONLY),
        Param("qr_iteration", int, "Alias of --state <qr>_iteration=N.", surfaces=CLI_ONLY),
        Param("qr_fail", bool, "Alias of --state <qr>_failed=true.", default=False, surfaces=CLI_ONLY),
        Param("qr_status", help="Alias of --state <qr>_status=pass|fail.", surfaces=CLI_ONLY),
    ),
    "swarm_handoff.cli.workflow_commands:step_operation",
    examples=("swarm-handoff workflow step NAME", "swarm-handoff workflow step NAME STEP_ID"),
    docs="docs/workflows.md",
    mcp=True,
    tool_summary="Show one workflow step (title, actions) and what to run next (as `swarm-handoff workflow step`).",
    takes_format=True,
)

WORKFLOW_GROUP = Group(
    "workflow",
    "Run and inspect workflows defined by skill packs.",
    ("swarm-handoff workflow list", "swarm-handoff workflow step NAME"),
    "docs/workflows.md",
)
