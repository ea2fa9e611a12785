"""The bodies of the `workflow` group (declared in `operation_table/workflow.py`): list, show, check, graph, step.

Each is a few lines around the Python API in `swarm_handoff.workflow`; typer stays in this module
so that importing the workflow engine never pays for the CLI.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from swarm_handoff.cli.operations_cli import invoke
from swarm_handoff.cli.output import fail, warn
from swarm_handoff.components import Document
from swarm_handoff.errors import ErrorCode, Problem, SwarmError, UsageError
from swarm_handoff.formatting import DEFAULT_FORMAT, check_format
from swarm_handoff.operations import Operation
from swarm_handoff.plugins import PluginHost, get_host
from swarm_handoff.termsafe import escape_controls

if TYPE_CHECKING:
    from swarm_handoff.cli.workflow_documents import (
        WorkflowCheckDocument,
        WorkflowGraphDocument,
        WorkflowShowDocument,
    )
    from swarm_handoff.workflow.model import Workflow


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


def _show(host: PluginHost, name: str, project: Path) -> WorkflowShowDocument:
    from swarm_handoff.cli.workflow_documents import WorkflowShowDocument
    from swarm_handoff.workflow.registry import get_registry
    from swarm_handoff.workflow.resources import SessionResources, embed
    from swarm_handoff.workflow.types import Dispatch

    registry = get_registry(host.env)
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


def _check(host: PluginHost, name: str | None, cases: bool = False, project: Path = Path(".")) -> WorkflowCheckDocument:
    from swarm_handoff.cli.workflow_documents import WorkflowCheckDocument
    from swarm_handoff.workflow.registry import get_registry

    registry = get_registry(host.env)
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


def list_operation(host: PluginHost) -> Document:
    """`workflow list`: the registered workflows and the skill packs that failed to load."""
    from swarm_handoff.cli.workflow_documents import WorkflowListDocument
    from swarm_handoff.workflow.registry import get_registry

    registry = get_registry(host.env)
    for problem in registry.problems:
        warn(f"{problem.code}: {problem.message}")
    return WorkflowListDocument(tuple(r.to_data() for r in registry.workflows.values()), registry.problems)


def show_operation(host: PluginHost, *, name: str, project: Path) -> Document:
    """`workflow show`: a workflow's parameters, steps, transitions and embedded conventions."""
    return _show(host, name, project)


def check_operation(host: PluginHost, *, name: str | None, cases: bool, project: Path) -> Document:
    """`workflow check`: every registered workflow (or one) validated; a problem fails the run."""
    return _check(host, name, cases, project)


def graph_operation(host: PluginHost, *, name: str, syntax: str) -> WorkflowGraphDocument:
    """`workflow graph`: the transition graph in mermaid or dot."""
    from swarm_handoff.cli.workflow_documents import WorkflowGraphDocument
    from swarm_handoff.workflow.graph import FORMATS, export
    from swarm_handoff.workflow.registry import get_registry

    if syntax not in FORMATS:
        raise UsageError(f"unknown graph syntax {syntax!r}", hint=f"use one of: {', '.join(FORMATS)}")
    workflow = get_registry(host.env).get(name)
    return WorkflowGraphDocument(workflow.name, syntax, export(workflow, syntax))


def graph_invoke(operation: Operation, values: dict[str, Any]) -> None:
    """Run `workflow graph`: as text, the graph's source alone (terminal-safe), ready to paste."""
    fmt = values.pop("format")
    if fmt != DEFAULT_FORMAT:
        invoke(operation, {**values, "format": fmt})
        return
    try:
        check_format(fmt, get_host())
        document = graph_operation(get_host(), **values)
        typer.echo(escape_controls(document.source, multiline=True), nl=False)  # text: terminal-safe
    except SwarmError as error:
        fail(error, fmt)


def step_operation(
    host: PluginHost,
    *,
    name: str,
    step_id: str | None,
    params: list[str] | None,
    state: list[str] | None,
    project: Path,
    position: int | None,
    total_steps: int | None,
    qr_iteration: int | None,
    qr_fail: bool,
    qr_status: str | None,
    format: str,
) -> Document:
    """`workflow step`: one step (title, actions) and the exact command(s) to run next."""
    from swarm_handoff.cli.step_contract import contract_state, contract_step
    from swarm_handoff.workflow.params import coerce_state
    from swarm_handoff.workflow.protocol import render_step
    from swarm_handoff.workflow.registry import get_registry
    from swarm_handoff.workflow.resources import SessionResources

    registry = get_registry(host.env)
    workflow = registry.get(name)
    chosen = contract_step(workflow, step_id, position, total_steps)
    assigned = parse_assignments(params, "--param")
    given = parse_assignments(state, "--state")
    given.update(contract_state(workflow, given, qr_iteration, qr_fail, qr_status))
    carried: Mapping[str, Any] = {k: coerce_state(v) for k, v in given.items()}
    provider = SessionResources(project, find_workflow=registry.get)
    carry_fmt = None if format == DEFAULT_FORMAT else format
    return render_step(workflow, chosen, assigned, carried, resources=provider, fmt=carry_fmt)
