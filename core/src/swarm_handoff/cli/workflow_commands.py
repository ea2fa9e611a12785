"""The `workflow` command group: list, show, check, graph, and the step protocol itself.

Each command is a few lines around the Python API in `swarm_handoff.workflow`; typer stays in
this module so that importing the workflow engine never pays for the CLI.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from swarm_handoff.cli.output import fail, format_option, run, warn
from swarm_handoff.components import Document
from swarm_handoff.errors import ErrorCode, Problem, SwarmError
from swarm_handoff.plugins import PluginHost, get_host
from swarm_handoff.render import DEFAULT_FORMAT, check_format
from swarm_handoff.termsafe import escape_controls

if TYPE_CHECKING:
    from swarm_handoff.cli.workflow_documents import (
        WorkflowCheckDocument,
        WorkflowGraphDocument,
        WorkflowShowDocument,
    )
    from swarm_handoff.workflow.model import Workflow


# Shared option declarations (module-level so each is declared once).
_PROJECT_OPTION: Any = typer.Option(Path("."), "--project", help="Project whose .claude/conventions override.")
_PARAM_OPTION: Any = typer.Option(None, "--param", help="A workflow parameter, key=value (repeat).")
_STATE_OPTION: Any = typer.Option(None, "--state", help="Carried state, key=value (repeat).")
# The skills-system step contract, accepted as aliases (see cli/step_contract.py).
_STEP_N: Any = typer.Option(None, "--step", help="The step by position, 1 to the number of steps.")
_TOTAL_STEPS: Any = typer.Option(None, "--total-steps", help="With --step: the workflow's number of steps (checked).")
_QR_ITERATION: Any = typer.Option(None, "--qr-iteration", help="Alias of --state <qr>_iteration=N.")
_QR_FAIL: Any = typer.Option(False, "--qr-fail", help="Alias of --state <qr>_failed=true.")
_QR_STATUS: Any = typer.Option(None, "--qr-status", help="Alias of --state <qr>_status=pass|fail.")


def parse_assignments(values: list[str] | None, option: str) -> dict[str, str]:
    """Turn repeated `--param k=v` options into a mapping; malformed or repeated keys are errors."""
    from swarm_handoff.workflow.params import parse_assignment

    result: dict[str, str] = {}
    for text in values or []:
        try:
            key, value = parse_assignment(text, option)
        except ValueError as exc:
            raise SwarmError(
                ErrorCode.WORKFLOW_PARAM_INVALID, str(exc), details={"option": option, "value": text}
            ) from None
        if key in result:
            raise SwarmError(
                ErrorCode.WORKFLOW_PARAM_INVALID,
                f"{option} {key} is given twice",
                details={"option": option, "key": key},
                hint="give each key once",
            )
        result[key] = value
    return result


def _show(name: str, project: Path) -> WorkflowShowDocument:
    from swarm_handoff.cli.workflow_documents import WorkflowShowDocument
    from swarm_handoff.workflow.registry import get_registry
    from swarm_handoff.workflow.resources import SessionResources, embed
    from swarm_handoff.workflow.types import Dispatch

    registry = get_registry()
    workflow = registry.get(name)
    provider = SessionResources(project, find_workflow=registry.get)
    steps = []
    for index, step in enumerate(workflow.steps, start=1):
        handler = step.handler
        embeds = []
        for ref in step.embed:
            try:
                found = embed(provider, workflow, ref)
                embeds.append({"ref": ref, "source": found.source, "origin": found.origin})
            except SwarmError as exc:
                embeds.append({"ref": ref, "source": "missing", "origin": exc.message})
        steps.append(
            {
                "index": index,
                "id": step.id,
                "title": step.title if isinstance(step.title, str) else "(dynamic)",
                "phase": step.phase,
                "handler": "dispatch"
                if isinstance(handler, Dispatch)
                else ("none" if handler is None else getattr(handler, "__qualname__", type(handler).__name__)),
                "dispatch": {"agent": handler.agent.value, "script": handler.script}
                if isinstance(handler, Dispatch)
                else None,
                "next": {str(k): v for k, v in step.next.items()},
                "on_error": step.on_error,
                "when": {k: list(v) for k, v in step.when.items()},
                "terminal": step.terminal,
                "params": [p.to_data() for p in workflow.step_params[step.id].values()],
                "embed": embeds,
            }
        )
    return WorkflowShowDocument({**workflow.to_data(), "steps": steps})


def case_problems(workflow: Workflow, project: Path) -> list[Problem]:
    """Run every generated case of `workflow` and turn each failure into a problem."""
    from swarm_handoff.workflow.exhaustive import generate_cases, run_case
    from swarm_handoff.workflow.resources import SessionResources

    provider = SessionResources(project)
    try:
        cases = generate_cases(workflow)
    except ValueError as exc:  # a parameter without a finite domain
        return [Problem(ErrorCode.WORKFLOW_INVALID, str(exc), path=workflow.name)]
    problems = []
    for case in cases:
        try:
            run_case(workflow, case, resources=provider)
        except (AssertionError, SwarmError) as exc:
            problems.append(Problem(ErrorCode.WORKFLOW_RUN_FAILED, f"case {case.id}: {exc}", path=workflow.name))
    return problems


def _check(name: str | None, cases: bool = False, project: Path = Path(".")) -> WorkflowCheckDocument:
    from swarm_handoff.cli.workflow_documents import WorkflowCheckDocument
    from swarm_handoff.workflow.registry import get_registry

    registry = get_registry()
    if name is not None:
        problems = tuple(p for p in registry.problems if p.path == name)
        if not problems:
            registry.get(name)
        checked: tuple[str, ...] = (name,)
    else:
        problems = registry.problems
        checked = tuple(registry.names)
    if cases:
        for checked_name in checked:
            if checked_name in registry.workflows:
                problems += tuple(case_problems(registry.workflows[checked_name].workflow, project))
    if problems:
        raise SwarmError(
            ErrorCode.WORKFLOW_INVALID,
            f"{len(problems)} workflow problem(s)",
            details={"checked": list(checked)},
            hint="fix the skill packs named in the problems",
            problems=problems,
        )
    return WorkflowCheckDocument(checked, cases)


def register(app: typer.Typer) -> None:
    """Add the `workflow` command group to `app`."""
    group = typer.Typer(
        name="workflow",
        help="Run and inspect workflows defined by skill packs.",
        no_args_is_help=True,
        rich_markup_mode=None,
    )

    @group.command("list")
    def list_(fmt: str = format_option()) -> None:
        """List the registered workflows and the skill packs that failed to load."""

        def action(host: PluginHost) -> Document:
            from swarm_handoff.cli.workflow_documents import WorkflowListDocument
            from swarm_handoff.workflow.registry import get_registry

            registry = get_registry()
            for problem in registry.problems:
                warn(f"{problem.code}: {problem.message}")
            return WorkflowListDocument(tuple(r.to_data() for r in registry.workflows.values()), registry.problems)

        run(fmt, action)

    @group.command("show")
    def show(
        name: str = typer.Argument(..., help="The workflow's name."),
        project: Path = _PROJECT_OPTION,
        fmt: str = format_option(),
    ) -> None:
        """Show a workflow's parameters, steps, transitions and which conventions it embeds."""
        run(fmt, lambda host: _show(name, project))

    @group.command("check")
    def check(
        name: str | None = typer.Argument(None, help="Check only this workflow."),
        cases: bool = typer.Option(False, "--cases", help="Also run every generated test case."),
        project: Path = _PROJECT_OPTION,
        fmt: str = format_option(),
    ) -> None:
        """Validate every registered workflow (or one); exit 1 when any is invalid."""
        run(fmt, lambda host: _check(name, cases, project))

    @group.command("graph")
    def graph(
        name: str = typer.Argument(..., help="The workflow's name."),
        syntax: str = typer.Option("mermaid", "--as", help="Graph syntax: mermaid or dot."),
        fmt: str = format_option(),
    ) -> None:
        """Export the transition graph (outcomes on edges, an explicit end node)."""

        def action(host: PluginHost) -> WorkflowGraphDocument:
            from swarm_handoff.cli.workflow_documents import WorkflowGraphDocument
            from swarm_handoff.errors import UsageError
            from swarm_handoff.workflow.graph import FORMATS, export
            from swarm_handoff.workflow.registry import get_registry

            if syntax not in FORMATS:
                raise UsageError(f"unknown graph syntax {syntax!r}", hint=f"use one of: {', '.join(FORMATS)}")
            workflow = get_registry().get(name)
            return WorkflowGraphDocument(workflow.name, syntax, export(workflow, syntax))

        if fmt != DEFAULT_FORMAT:
            run(fmt, action)
            return
        try:
            check_format(fmt, get_host())
            typer.echo(escape_controls(action(get_host()).source, multiline=True), nl=False)  # text: terminal-safe
        except SwarmError as error:
            fail(error, fmt)

    @group.command("step")
    def step(
        name: str = typer.Argument(..., help="The workflow's name."),
        step_id: str | None = typer.Argument(None, help="The step to show (or give --step N); default: the first."),
        param: list[str] | None = _PARAM_OPTION,
        state: list[str] | None = _STATE_OPTION,
        project: Path = _PROJECT_OPTION,
        position: int | None = _STEP_N,
        total_steps: int | None = _TOTAL_STEPS,
        qr_iteration: int | None = _QR_ITERATION,
        qr_fail: bool = _QR_FAIL,
        qr_status: str | None = _QR_STATUS,
        fmt: str = format_option(),
    ) -> None:
        """Print one step (title, actions) and the exact command(s) to run next.

        The skills-system contract is accepted as an alternative front end: `--step N
        --total-steps M` name the step by position, and `--qr-iteration N --qr-fail --qr-status
        pass|fail` stand for `--state qr_iteration=N --state qr_failed=true --state qr_status=...`.
        """

        def action(host: PluginHost) -> Document:
            from swarm_handoff.cli.step_contract import contract_state, contract_step
            from swarm_handoff.workflow.params import coerce_state
            from swarm_handoff.workflow.protocol import render_step
            from swarm_handoff.workflow.registry import get_registry
            from swarm_handoff.workflow.resources import SessionResources

            registry = get_registry()
            workflow = registry.get(name)
            chosen = contract_step(workflow, step_id, position, total_steps)
            params = parse_assignments(param, "--param")
            given = parse_assignments(state, "--state")
            given.update(contract_state(workflow, given, qr_iteration, qr_fail, qr_status))
            carried: Mapping[str, Any] = {k: coerce_state(v) for k, v in given.items()}
            provider = SessionResources(project, find_workflow=registry.get)
            carry_fmt = None if fmt == DEFAULT_FORMAT else fmt
            return render_step(workflow, chosen, params, carried, resources=provider, fmt=carry_fmt)

        run(fmt, action)

    app.add_typer(group, name="workflow")
