"""Exhaustive test generation: every step under every combination of its parameter values.

Parameter domains are small (a few modes, a few confidence levels, a handful of iterations), so
enumerating all combinations is cheap and, unlike sampling, never misses the one combination that
routes into a step that does not exist. The rules:

* a step is tested with the parameters its handler declares plus those its `when` gate reads;
* the iteration counter (`Workflow.iteration_key`, 1..`max_iterations`) is varied only at
  iterating steps, those whose `next` has an ITERATE entry; at a dispatch step with a QR `gate`,
  the review round (`<state_prefix>_iteration`, 1..`max_iterations`) is varied the same way;
* combinations that a step's `when` gate excludes are not generated (the step never runs then);
* reported values are not enumerated here: the step protocol branches on them itself, and each
  branch's command is checked;
* a case's index is the step's 1-based position, the number the CLI shows.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import attrs

from swarm_handoff.workflow.engine import resolve_params
from swarm_handoff.workflow.model import Workflow
from swarm_handoff.workflow.params import Param, coerce_state, format_value
from swarm_handoff.workflow.protocol import StepDocument, parse_command, render_step
from swarm_handoff.workflow.types import MISSING, Dispatch


def _lo_le_hi(instance: BoundedInt, attribute: Any, hi: int) -> None:
    if instance.lo > hi:
        raise ValueError(f"BoundedInt needs lo <= hi, got [{instance.lo}, {hi}]")


@attrs.frozen
class BoundedInt:
    """The integers from `lo` to `hi`, both included."""

    lo: int
    hi: int = attrs.field(validator=_lo_le_hi)

    def __iter__(self) -> Iterator[int]:
        return iter(range(self.lo, self.hi + 1))


def _to_tuple(values: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(values)


@attrs.frozen
class ChoiceSet:
    """A fixed set of values, in the order given."""

    choices: tuple[Any, ...] = attrs.field(converter=_to_tuple)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.choices)


@attrs.frozen
class Constant:
    """A single value (a parameter whose only sensible test value is its default)."""

    value: Any

    def __iter__(self) -> Iterator[Any]:
        yield self.value


Domain = BoundedInt | ChoiceSet | Constant


def domain_of(param: Param) -> Domain:
    """Choose the finite domain to test `param` over, or raise ValueError when there is none."""
    arg = param.arg
    if arg.choices is not None:
        return ChoiceSet(arg.choices)
    if param.type is bool:
        return ChoiceSet((False, True))
    if param.type is int and arg.min is not None and arg.max is not None:
        return BoundedInt(int(arg.min), int(arg.max))
    if arg.default is not MISSING:
        return Constant(arg.default)
    raise ValueError(f"parameter {param.name!r} has no finite domain: give it choices=, min= and max=, or a default")


@attrs.frozen
class StepSchema:
    """What varies at one step: its parameters and, at iterating steps, the iteration counter."""

    step: str
    index: int
    params: Mapping[str, Domain]
    state: Mapping[str, Domain]


def extract_schema(workflow: Workflow) -> dict[str, StepSchema]:
    """Return each step's schema, keyed by step id, in step order."""
    schema = {}
    for index, step in enumerate(workflow.steps, start=1):
        params: dict[str, Domain] = {}
        names = [n for n, p in workflow.step_params[step.id].items() if not p.arg.reported]
        names += [n for n in step.when if n not in names]
        for name in names:
            try:
                params[name] = domain_of(workflow.params[name])
            except ValueError as exc:
                raise ValueError(f"workflow {workflow.name!r}, step {step.id!r}: {exc}") from None
        state: dict[str, Domain] = {}
        if step.iterating:
            state[workflow.iteration_key] = BoundedInt(1, workflow.max_iterations)
        if isinstance(step.handler, Dispatch) and step.handler.gate is not None:
            # A gated review says something different in every round (what blocks, fresh review,
            # and at the limit where FAIL leads), so each round is a case of its own.
            state[f"{step.handler.state_prefix}_iteration"] = BoundedInt(1, workflow.max_iterations)
        schema[step.id] = StepSchema(step.id, index, params, state)
    return schema


@attrs.frozen
class Case:
    """One generated test: a step, its index, and the parameters and state to run it with."""

    workflow: str
    step: str
    index: int
    total: int
    params: Mapping[str, Any]
    state: Mapping[str, Any]

    @property
    def id(self) -> str:
        """A stable, readable test id: `workflow-NN-step[-key=value...]`."""
        parts = [self.workflow, f"{self.index:02d}", self.step]
        parts += [f"{k}={format_value(v)}" for k, v in self.params.items()]
        parts += [f"{k}={format_value(v)}" for k, v in self.state.items()]
        return "-".join(parts)


def generate_cases(workflow: Workflow) -> list[Case]:
    """Enumerate every (step, parameters, state) combination the rules above allow."""
    cases = []
    for schema in extract_schema(workflow).values():
        keys = [*schema.params, *schema.state]
        domains = [*schema.params.values(), *schema.state.values()]
        for values in itertools.product(*domains):
            combo = dict(zip(keys, values, strict=True))
            params = {k: combo[k] for k in schema.params}
            if workflow.gated_out(schema.step, params):
                continue
            state = {k: combo[k] for k in schema.state}
            cases.append(Case(workflow.name, schema.step, schema.index, workflow.total_steps, params, state))
    return cases


class CaseFailure(AssertionError):
    """A generated case whose step output or next command is wrong; the message says how."""


def run_case(workflow: Workflow, case: Case, *, resources: Any = None) -> StepDocument:
    """Run the real step protocol for `case` and check every next command it prints."""
    as_text = {k: format_value(v) for k, v in case.params.items()}
    state = {k: coerce_state(format_value(v)) for k, v in case.state.items()}
    document = render_step(workflow, case.step, as_text, state, resources=resources)
    where = f"{case.id}:"
    if (document.index, document.total) != (case.index, case.total):
        shown = f"{document.index}/{document.total}"
        raise CaseFailure(f"{where} shown as step {shown}, expected {case.index}/{case.total}")
    for nxt in document.next:
        if nxt.command is None:
            continue
        parsed = parse_command(nxt.command)
        if parsed.workflow != workflow.name or parsed.step not in workflow.step_ids:
            raise CaseFailure(f"{where} {nxt.label} command names an unknown workflow or step: {nxt.command}")
        if nxt.index != workflow.index(parsed.step):
            raise CaseFailure(f"{where} {nxt.label} index {nxt.index} does not match step {parsed.step!r}")
        typed, _ = resolve_params(workflow, parsed.step, parsed.params)
        if parsed.step == case.step and dict(parsed.params) == as_text:
            carried = {k: format_value(v) for k, v in state.items() if v is not None}
            if dict(parsed.state) == carried:
                raise CaseFailure(f"{where} {nxt.label} loops to the same step with unchanged state: {nxt.command}")
        gate = workflow.gated_out(parsed.step, typed)
        if gate:
            raise CaseFailure(f"{where} {nxt.label} routes to {parsed.step!r}, gated out by {'; '.join(gate)}")
        next_state = {k: coerce_state(v) for k, v in parsed.state.items()}
        render_step(workflow, parsed.step, parsed.params, next_state, resources=resources)
    return document
