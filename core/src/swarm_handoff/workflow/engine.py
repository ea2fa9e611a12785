"""One transition at a time: resolve parameters, call a step's handler, follow `next`.

Both the in-process runner and the step protocol go through `transitions()`, so the command an
agent is told to run next carries exactly the state the runner would carry: a loop that ends in
tests ends for agents too.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import attrs

from swarm_handoff.errors import ErrorCode, SwarmError
from swarm_handoff.payload.names import entry
from swarm_handoff.workflow.model import Workflow
from swarm_handoff.workflow.params import Param, check_state
from swarm_handoff.workflow.types import MISSING, Outcome, StepContext, StepDef

# The input a workflow's parameters come in by, as the CLI spells it.
PARAM_OPTION = "--param"


@attrs.frozen
class Transition:
    """Where one step leads under one set of reported values, and the state it carries there."""

    reported: Mapping[str, Any]
    outcome: Outcome
    target: str | None
    state: Mapping[str, Any]
    error: str | None = None


def _param_error(workflow: Workflow, message: str, *, hint: str | None = None, **details: Any) -> SwarmError:
    return SwarmError(
        ErrorCode.WORKFLOW_PARAM_INVALID,
        f"workflow {workflow.name!r}: {message}",
        details={"workflow": workflow.name, **details},
        hint=hint or f"run `swarm-handoff workflow show {workflow.name}` for the parameters and their values",
    )


def reported_params(workflow: Workflow, step_id: str) -> dict[str, Param]:
    """Return the parameters of `step_id` that the agent reports after doing the step."""
    return {n: p for n, p in workflow.step_params[workflow.step(step_id).id].items() if p.arg.reported}


def resolve_params(workflow: Workflow, step_id: str, given: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Check and type `given` for `step_id`; return (workflow params with defaults, reported values)."""
    reported_here = reported_params(workflow, step_id)
    known = {**workflow.params, **reported_here}
    params: dict[str, Any] = {}
    reported: dict[str, Any] = {}
    for key, raw in given.items():
        param = known.get(key)
        if param is None:
            names = sorted(known)
            raise _param_error(
                workflow,
                f"unknown parameter {key!r} for step {step_id!r}",
                param=key,
                available=names,
                hint=f"known parameters: {', '.join(names) or '(none)'}",
            )
        try:
            value = param.coerce(raw)
        except ValueError as exc:
            raise _param_error(
                workflow,
                f"step {step_id!r}: {exc}",
                param=key,
                value=str(raw),
                allowed=param.domain_text(),
                hint=f"{key} takes {param.domain_text()}",
            ) from None
        (reported if key in reported_here else params)[key] = value
    for name, param in workflow.params.items():
        if name not in params and param.arg.default is not MISSING:
            params[name] = param.arg.default
    return params, reported


def _choices(param: Param) -> tuple[Any, ...]:
    if param.arg.choices is not None:
        return param.arg.choices
    return (True, False)


def transitions(
    workflow: Workflow,
    step_id: str,
    given: Mapping[str, Any] | None = None,
    state: Mapping[str, Any] | None = None,
    *,
    resources: Any = None,
    param_option: str = PARAM_OPTION,
) -> list[Transition]:
    """Return every way out of `step_id`: one per combination of reported values not yet given.

    `param_option` names the parameters' input as the caller's interface does (`--param`, `params`).
    """
    step = workflow.step(step_id)
    params, reported = resolve_params(workflow, step.id, dict(given or {}))
    gate = workflow.gated_out(step.id, params)
    if gate:
        raise _param_error(workflow, f"step {step.id!r} does not run with {'; '.join(gate)}", step=step.id)
    if step.handler is None:  # validation guarantees such a step is terminal
        return [Transition({}, Outcome.OK, None, dict(state or {}))]
    open_params = [p for n, p in reported_params(workflow, step.id).items() if n not in reported]
    combos = itertools.product(*(_choices(p) for p in open_params))
    result = []
    for combo in combos:
        values = {**reported, **{p.name: v for p, v in zip(open_params, combo, strict=True)}}
        result.append(
            evaluate(workflow, step, params, dict(state or {}), values, resources=resources, param_option=param_option)
        )
    return result


def evaluate(
    workflow: Workflow,
    step: StepDef,
    params: Mapping[str, Any],
    state: Mapping[str, Any],
    reported: Mapping[str, Any],
    *,
    resources: Any = None,
    param_option: str = PARAM_OPTION,
) -> Transition:
    """Call the step's handler once and follow `next` (with the `_default` fallback)."""
    handler = step.handler
    assert handler is not None
    declared = workflow.step_params[step.id]
    ctx = StepContext(step.id, {**params, **reported}, state, workflow.name, resources)
    kwargs: dict[str, Any] = {}
    for name, param in declared.items():
        if name in reported:
            kwargs[name] = reported[name]
        elif name in params:
            kwargs[name] = params[name]
        elif param.arg.default is not MISSING:
            kwargs[name] = param.arg.default
        else:
            raise _param_error(
                workflow,
                f"step {step.id!r} needs the parameter {name!r} ({param.domain_text()})",
                param=name,
                step=step.id,
                hint=f"add {entry(param_option, name)}",
            )
    try:
        returned = handler(ctx, **kwargs)
    except SwarmError:
        raise
    except Exception as exc:
        message = f"{type(exc).__name__}: {exc}"
        if step.on_error is not None:
            return Transition(dict(reported), Outcome.FAIL, step.on_error, {**state, "error": message}, message)
        raise _run_error(workflow, step.id, f"the handler raised {message}") from exc
    outcome, updates = _unpack(workflow, step.id, returned)
    resolved = step.resolve(outcome)
    if resolved is None:
        mapped = ", ".join(str(k) for k in step.next)
        message = f"the handler returned {outcome.value!r}, which `next` does not map ({mapped})"
        raise _run_error(workflow, step.id, message)
    new_state = {**state, **updates}
    problems = check_state(new_state)
    if problems:
        raise _run_error(workflow, step.id, "; ".join(problems))
    target = resolved[1]
    if target is not None:
        gate = workflow.gated_out(target, params)
        if gate:
            raise _run_error(workflow, step.id, f"routes to step {target!r}, which does not run with {'; '.join(gate)}")
    return Transition(dict(reported), outcome, target, new_state)


def _unpack(workflow: Workflow, step_id: str, returned: Any) -> tuple[Outcome, Mapping[str, Any]]:
    if (
        isinstance(returned, tuple)
        and len(returned) == 2
        and isinstance(returned[0], Outcome)
        and isinstance(returned[1], Mapping)
    ):
        return returned[0], returned[1]
    raise _run_error(workflow, step_id, f"a handler returns (Outcome, dict), not {returned!r}")


def _run_error(workflow: Workflow, step_id: str, message: str) -> SwarmError:
    return SwarmError(
        ErrorCode.WORKFLOW_RUN_FAILED,
        f"workflow {workflow.name!r}, step {step_id!r}: {message}",
        details={"workflow": workflow.name, "step": step_id},
        hint="this is a bug in the workflow's definition; report it to the skill pack's authors",
    )
