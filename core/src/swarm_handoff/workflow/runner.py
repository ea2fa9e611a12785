"""Drive a workflow in-process from its entry to a terminal step (for tests and tools).

The runner plays the agent: where a step needs a reported value (a review verdict, a confidence)
it asks the `agent` callable. A step budget stops a workflow whose loop never ends with an error
naming the steps it was cycling through, instead of spinning forever.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from swarm_handoff.errors import ErrorCode, SwarmError
from swarm_handoff.workflow.engine import reported_params, resolve_params, transitions
from swarm_handoff.workflow.model import DEFAULT_MAX_STEPS, Workflow
from swarm_handoff.workflow.types import Outcome, StepContext

Agent = Callable[[StepContext], Mapping[str, Any]]


@attrs.frozen
class RunStep:
    """One step the runner took: where it was, what came out and the state it carried on."""

    step_id: str
    outcome: Outcome
    target: str | None
    state: Mapping[str, Any]
    reported: Mapping[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class RunResult:
    """The whole run: every step in order and the state at the end."""

    workflow: str
    trace: tuple[RunStep, ...]

    @property
    def path(self) -> tuple[str, ...]:
        """The step ids visited, in order (handy in assertions)."""
        return tuple(s.step_id for s in self.trace)

    @property
    def final_state(self) -> Mapping[str, Any]:
        """The state after the last step."""
        return self.trace[-1].state if self.trace else {}


def run_workflow(
    workflow: Workflow,
    params: Mapping[str, Any] | None = None,
    state: Mapping[str, Any] | None = None,
    *,
    agent: Agent | None = None,
    start: str | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    resources: Any = None,
) -> RunResult:
    """Run from `start` (default: the entry) until a step leads nowhere, or fail past `max_steps`."""
    given = dict(params or {})
    current: str | None = workflow.step(start).id if start is not None else workflow.entry
    carried: dict[str, Any] = dict(state or {})
    trace: list[RunStep] = []
    while current is not None:
        if len(trace) >= max_steps:
            tail = " -> ".join(s.step_id for s in trace[-6:])
            raise SwarmError(
                ErrorCode.WORKFLOW_RUN_FAILED,
                f"workflow {workflow.name!r} did not finish within {max_steps} steps (last: {tail}, at {current!r})",
                details={"workflow": workflow.name, "step": current, "max_steps": max_steps, "state": carried},
                hint="a loop never reaches its exit: check that its handler advances the iteration in its state",
            )
        step_given = dict(given)
        if reported_params(workflow, current) and agent is not None:
            typed, _ = resolve_params(workflow, current, given)
            step_given.update(agent(StepContext(current, typed, carried, workflow.name, resources)))
        options = transitions(workflow, current, step_given, carried, resources=resources)
        if len(options) != 1:
            names = ", ".join(reported_params(workflow, current))
            raise SwarmError(
                ErrorCode.WORKFLOW_RUN_FAILED,
                f"workflow {workflow.name!r}, step {current!r} needs reported values ({names}) from the agent",
                details={"workflow": workflow.name, "step": current},
                hint="pass agent=lambda ctx: {...} returning them",
            )
        chosen = options[0]
        trace.append(RunStep(current, chosen.outcome, chosen.target, dict(chosen.state), dict(chosen.reported)))
        carried = dict(chosen.state)
        current = chosen.target
    return RunResult(workflow.name, tuple(trace))
