"""`Workflow`: a named, validated collection of steps.

Every check runs when the object is built, so a broken workflow fails where it is defined (or is
reported by the registry as one broken pack) instead of halfway through an agent's session.
All problems are collected and raised together, each naming the workflow and the step.
"""

from __future__ import annotations

import re
import types
from collections import deque
from collections.abc import Iterator, Mapping
from typing import Any

import attrs

from swarm_handoff.errors import ErrorCode, Problem, SwarmError
from swarm_handoff.workflow.params import Param, extract_params
from swarm_handoff.workflow.types import Outcome, StepDef

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]*\Z")
EMBED_KINDS = ("convention", "resource")
DEFAULT_MAX_ITERATIONS = 5
DEFAULT_MAX_STEPS = 200


def _problem(workflow: str, step: str | None, message: str) -> Problem:
    where = f"workflow {workflow!r}" + (f", step {step!r}" if step is not None else "")
    return Problem(ErrorCode.WORKFLOW_INVALID, f"{where}: {message}", path=workflow, hint=None)


@attrs.frozen(init=False, hash=False)
class Workflow:
    """Steps plus the transitions between them, checked at construction.

    `Workflow("name", StepDef(...), StepDef(...), description=...)`. The first step is the entry
    unless `entry=` names another. `package` is the import package whose files `resource:` embeds
    read. `max_iterations` bounds the `iteration_key` state at iterating steps (the test
    generator enumerates it and handlers can cap their loops with it).
    """

    name: str
    steps: tuple[StepDef, ...]
    entry: str
    description: str
    package: str | None
    max_iterations: int
    iteration_key: str
    params: Mapping[str, Param] = attrs.field(repr=False)
    step_params: Mapping[str, Mapping[str, Param]] = attrs.field(repr=False)
    _by_id: Mapping[str, StepDef] = attrs.field(repr=False, eq=False)

    def __init__(
        self,
        name: str,
        *steps: StepDef,
        entry: str | None = None,
        description: str = "",
        package: str | None = None,
        max_iterations: int = DEFAULT_MAX_ITERATIONS,
        iteration_key: str = "iteration",
    ) -> None:
        problems: list[Problem] = []
        step_params: dict[str, Mapping[str, Param]] = {}
        params: dict[str, Param] = {}
        if not isinstance(name, str) or not NAME_RE.match(name):
            problems.append(_problem(str(name), None, "the name must be lower-case letters, digits, '.', '_' or '-'"))
        if max_iterations < 1:
            problems.append(_problem(name, None, f"max_iterations must be at least 1, not {max_iterations}"))
        bad = [s for s in steps if not isinstance(s, StepDef)]
        problems += [_problem(name, None, f"{s!r} is not a StepDef") for s in bad]
        good = tuple(s for s in steps if isinstance(s, StepDef))
        by_id: dict[str, StepDef] = {}
        for step in good:
            if step.id in by_id:
                problems.append(_problem(name, step.id, "the step id is used more than once"))
            else:
                by_id[step.id] = step
        if not good:
            problems.append(_problem(name, None, "a workflow needs at least one step"))
        entry_id = entry if entry is not None else (good[0].id if good else "")
        if good and entry_id not in by_id:
            problems.append(_problem(name, entry_id, f"the entry step does not exist (steps: {', '.join(by_id)})"))
        for step in by_id.values():
            problems += _check_step(name, step, by_id, package)
            if step.handler is not None:
                found, errors = extract_params(step.handler)
                problems += [_problem(name, step.id, e) for e in errors]
                step_params[step.id] = types.MappingProxyType(found)
                for param in found.values():
                    if param.arg.reported:
                        if param.arg.choices is None and param.type is not bool:
                            problems.append(
                                _problem(name, step.id, f"reported parameter {param.name!r} needs choices=")
                            )
                        continue
                    other = params.setdefault(param.name, param)
                    if other != param:
                        problems.append(
                            _problem(name, step.id, f"parameter {param.name!r} is declared differently by another step")
                        )
            else:
                step_params[step.id] = types.MappingProxyType({})
        if good and not any(None in s.next.values() or not s.next for s in by_id.values()):
            problems.append(_problem(name, None, "no step ends the workflow (give one a `next` target of None)"))
        if entry_id in by_id:
            reached = _reachable(entry_id, by_id)
            problems += [
                _problem(name, sid, f"the step cannot be reached from the entry step {entry_id!r}")
                for sid in by_id
                if sid not in reached
            ]
        problems += _check_gates(name, by_id, params)
        if problems:
            first = problems[0].message
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise SwarmError(
                ErrorCode.WORKFLOW_INVALID,
                f"invalid workflow: {first}{more}",
                details={"workflow": name, "problems": [p.message for p in problems]},
                hint="fix the step definitions; `swarm-handoff workflow check` lists every problem",
                problems=tuple(problems),
            )
        self.__attrs_init__(
            name,
            good,
            entry_id,
            description,
            package,
            max_iterations,
            iteration_key,
            types.MappingProxyType(params),
            types.MappingProxyType(step_params),
            types.MappingProxyType(by_id),
        )

    # -- lookup --------------------------------------------------------------------------------

    @property
    def total_steps(self) -> int:
        """The number of steps; step indices shown to agents run from 1 to this."""
        return len(self.steps)

    @property
    def step_ids(self) -> tuple[str, ...]:
        """Step ids in declaration order, which is also the order of their indices."""
        return tuple(s.id for s in self.steps)

    def step(self, step_id: str) -> StepDef:
        """Return the step `step_id`, or raise a structured error listing the valid ids."""
        found = self._by_id.get(step_id)
        if found is None:
            raise SwarmError(
                ErrorCode.WORKFLOW_STEP_NOT_FOUND,
                f"workflow {self.name!r} has no step {step_id!r}",
                details={"workflow": self.name, "step": step_id, "available": list(self.step_ids)},
                hint=f"choose one of: {', '.join(self.step_ids)}",
            )
        return found

    def index(self, step_id: str) -> int:
        """Return the 1-based position of `step_id`, the number agents see as 'step N of M'."""
        return self.step_ids.index(self.step(step_id).id) + 1

    def edges(self) -> Iterator[tuple[str, str, str | None]]:
        """Yield (from, label, to) for every transition; to is None where the workflow ends."""
        for step in self.steps:
            for outcome, target in step.next.items():
                yield step.id, str(outcome), target
            if step.on_error is not None:
                yield step.id, "error", step.on_error

    def gated_out(self, step_id: str, params: Mapping[str, Any]) -> list[str]:
        """Return the gate conditions `params` fail for `step_id`; empty when the step may run."""
        failed = []
        for key, allowed in self.step(step_id).when.items():
            value = params.get(key, self.params[key].arg.default if key in self.params else None)
            if value not in allowed:
                failed.append(f"{key}={value} (the step runs only with {key} in {', '.join(map(str, allowed))})")
        return failed

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready summary used by `workflow show`."""
        return {
            "name": self.name,
            "description": self.description,
            "entry": self.entry,
            "total_steps": self.total_steps,
            "max_iterations": self.max_iterations,
            "params": [p.to_data() for p in self.params.values()],
        }


def _check_step(name: str, step: StepDef, by_id: Mapping[str, StepDef], package: str | None) -> list[Problem]:
    problems = []
    if not step.id or not isinstance(step.id, str):
        problems.append(_problem(name, str(step.id), "the step id must be a non-empty string"))
    for key, target in step.next.items():
        if not isinstance(key, Outcome):
            problems.append(
                _problem(name, step.id, f"`next` key {key!r} is not an Outcome (use Outcome.OK, Outcome.FAIL, ...)")
            )
        if target is not None and target not in by_id:
            problems.append(_problem(name, step.id, f"`next` names an unknown step {target!r}"))
    if step.on_error is not None and step.on_error not in by_id:
        problems.append(_problem(name, step.id, f"`on_error` names an unknown step {step.on_error!r}"))
    if step.handler is None and not step.terminal:
        problems.append(_problem(name, step.id, "the step leads somewhere but has no handler to pick an outcome"))
    for ref in step.embed:
        kind, _, target = ref.partition(":")
        if kind not in EMBED_KINDS or not target:
            problems.append(_problem(name, step.id, f"embed {ref!r} must be 'convention:NAME' or 'resource:PATH'"))
        elif kind == "resource" and package is None:
            problems.append(_problem(name, step.id, f"embed {ref!r} needs the workflow's package= to be set"))
    return problems


def _check_gates(name: str, by_id: Mapping[str, StepDef], params: Mapping[str, Param]) -> list[Problem]:
    problems = []
    for step in by_id.values():
        for key, allowed in step.when.items():
            param = params.get(key)
            if param is None:
                problems.append(_problem(name, step.id, f"`when` gates on {key!r}, which no handler declares"))
                continue
            for value in allowed:
                problem = param.check(value)
                if problem:
                    problems.append(_problem(name, step.id, f"`when` value outside the domain: {problem}"))
    return problems


def _reachable(entry: str, by_id: Mapping[str, StepDef]) -> set[str]:
    seen = {entry}
    queue = deque([entry])
    while queue:
        step = by_id[queue.popleft()]
        targets = [*step.next.values(), step.on_error]
        for target in targets:
            if target is not None and target in by_id and target not in seen:
                seen.add(target)
                queue.append(target)
    return seen
