"""The step protocol: print one step for an agent, with the exact command(s) to run next.

An agent runs a workflow one command at a time. Each `workflow step` prints the step's title
and actions and then the next command: one for a linear step, one per reported value for a branch
(if-pass / if-fail), none at the end. The state the following step needs (iteration counters,
review-loop state) is written into those commands, so the agent never has to remember or compute
it, and a loop always advances towards its exit.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import attrs

from swarm_handoff.components import CheckpointGate, Kind, LimitedGate
from swarm_handoff.errors import ErrorCode, SwarmError, working_directory
from swarm_handoff.plugins import get_host
from swarm_handoff.workflow.engine import PARAM_OPTION, Transition, resolve_params, transitions
from swarm_handoff.workflow.model import Workflow
from swarm_handoff.workflow.params import format_value, parse_assignment
from swarm_handoff.workflow.relay import QUESTION_RELAY_HANDLER
from swarm_handoff.workflow.resources import Resource, ResourceProvider, SessionResources, embed
from swarm_handoff.workflow.routing import (
    BranchOutcome,
    BranchRouting,
    LinearRouting,
    Routing,
    TerminalRouting,
    routing_from,
)
from swarm_handoff.workflow.types import AgentRole, Dispatch, StepContext

PROGRAM = "swarm-handoff"


@attrs.frozen
class NextCommand:
    """One way on from a step: the condition, the outcome, the target and the command to run."""

    label: str
    when: Mapping[str, tuple[str, ...]]
    outcome: str
    step: str | None
    index: int | None
    command: str | None

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {
            "label": self.label,
            "when": {k: list(v) for k, v in self.when.items()},
            "outcome": self.outcome,
            "step": self.step,
            "index": self.index,
            "command": self.command,
        }


@attrs.frozen
class StepDocument:
    """What `workflow step` prints: one step and the way on from it."""

    kind: ClassVar[str] = "workflow-step"
    workflow: str
    step: str
    index: int
    total: int
    title: str
    actions: tuple[str, ...]
    routing: Routing  # a type name ("linear", ...) is accepted and typed from `next`
    next: tuple[NextCommand, ...]
    phase: str | None = None
    params: Mapping[str, Any] = attrs.field(factory=dict)
    state: Mapping[str, Any] = attrs.field(factory=dict)
    dispatch: Mapping[str, Any] | None = None
    resources: tuple[Resource, ...] = ()
    banner: Mapping[str, Any] | None = None
    qr: Mapping[str, Any] | None = None
    forbidden: tuple[str, ...] = ()
    expected: tuple[str, ...] = ()

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "routing", routing_from(self.routing, self.next))

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form; `next` is empty exactly when the workflow ends here.

        The optional sections (dispatch, resources, banner, qr, forbidden, expected) appear only
        when the step has them, so plain steps keep a short document.
        """
        data: dict[str, Any] = {
            "workflow": self.workflow,
            "step": self.step,
            "index": self.index,
            "total": self.total,
            "title": self.title,
            "phase": self.phase,
            "actions": list(self.actions),
            "routing": self.routing.to_data(),
            "next": [n.to_data() for n in self.next],
            "params": dict(self.params),
            "state": dict(self.state),
        }
        if self.dispatch is not None:
            data["dispatch"] = dict(self.dispatch)
        if self.resources:
            data["resources"] = [r.to_data() for r in self.resources]
        if self.banner is not None:
            data["banner"] = dict(self.banner)
        if self.qr is not None:
            data["qr"] = dict(self.qr)
        if self.forbidden:
            data["forbidden"] = list(self.forbidden)
        if self.expected:
            data["expected"] = list(self.expected)
        return data


def step_command(
    workflow: str,
    step_id: str,
    params: Mapping[str, Any],
    state: Mapping[str, Any],
    fmt: str | None = None,
) -> str:
    """Build the shell-quoted `swarm-handoff workflow step ...` command for one step."""
    argv = [PROGRAM, "workflow", "step", workflow, step_id]
    for key, value in params.items():
        argv += ["--param", f"{key}={format_value(value)}"]
    for key, value in sorted(state.items()):
        if value is not None:
            argv += ["--state", f"{key}={format_value(value)}"]
    if fmt:
        argv += ["--format", fmt]
    return shlex.join(argv)


@attrs.frozen
class ParsedCommand:
    """A `workflow step` command read back: what an agent would run."""

    workflow: str
    step: str
    params: Mapping[str, str]
    state: Mapping[str, str]


def parse_command(command: str) -> ParsedCommand:
    """Read a command built by `step_command` back into its parts (tests and tools check them)."""
    argv = shlex.split(command)
    if argv[:3] != [PROGRAM, "workflow", "step"] or len(argv) < 5:
        raise ValueError(f"not a workflow step command: {command!r}")
    params: dict[str, str] = {}
    state: dict[str, str] = {}
    rest = argv[5:]
    for flag, value in zip(rest[::2], rest[1::2], strict=False):
        if flag == "--param":
            key, raw = parse_assignment(value, flag)
            params[key] = raw
        elif flag == "--state":
            key, raw = parse_assignment(value, flag)
            state[key] = raw
    return ParsedCommand(argv[3], argv[4], params, state)


def _label(when: Mapping[str, tuple[str, ...]]) -> str:
    if not when:
        return "next"
    if len(when) == 1:
        return "if-" + "/".join(next(iter(when.values())))
    return "if " + ", ".join(f"{k}={'/'.join(v)}" for k, v in when.items())


def _group(options: Sequence[Transition]) -> list[tuple[Transition, dict[str, list[str]]]]:
    """Merge reported values that lead to the same place with the same state into one command."""
    groups: list[tuple[Transition, dict[str, list[str]]]] = []
    for option in options:
        for first, when in groups:
            if (first.target, first.outcome, dict(first.state)) == (option.target, option.outcome, dict(option.state)):
                for key, value in option.reported.items():
                    if format_value(value) not in when.setdefault(key, []):
                        when[key].append(format_value(value))
                break
        else:
            groups.append((option, {k: [format_value(v)] for k, v in option.reported.items()}))
    return groups


def _dynamic(workflow: Workflow, step_id: str, what: str, value: Any, ctx: StepContext) -> Any:
    """Return static text as is, or call a dynamic one, turning its failure into a named error."""
    if not callable(value):
        return value
    try:
        return value(ctx)
    except SwarmError:
        raise
    except Exception as exc:
        raise SwarmError(
            ErrorCode.WORKFLOW_RUN_FAILED,
            f"workflow {workflow.name!r}, step {step_id!r}: building the {what} raised {type(exc).__name__}: {exc}",
            details={"workflow": workflow.name, "step": step_id},
            hint="this is a bug in the workflow's definition; report it to the skill pack's authors",
        ) from exc


_SEVERITY_ORDER = ("MUST", "SHOULD", "COULD")


def gate_action(gate: str, round_: int) -> str:
    """Say which severities block in this review round, as the named QR gate policy decides."""
    policy = get_host().get(Kind.QR_GATE, gate)
    names = {str(getattr(s, "value", s)) for s in policy.blocking(round_)}
    ordered = sorted(names, key=lambda n: (_SEVERITY_ORDER.index(n) if n in _SEVERITY_ORDER else 99, n))
    text = (
        f"Review round {round_}: findings of severity {', '.join(ordered)} block. "
        "Report PASS only when none of those remain."
    )
    if isinstance(policy, LimitedGate) and policy.exhausted(round_):
        text += " This round is past the gate's limit: do not start another fix, hand the open findings to the user."
    return text


def qr_checkpoint(gate: str, name: str, state: Mapping[str, Any], prefix: str) -> Mapping[str, Any] | None:
    """Ask the named QR gate policy for the checkpoint's pillars (banner, stop, re-verify), if it has them."""
    policy = get_host().get(Kind.QR_GATE, gate)
    if not isinstance(policy, CheckpointGate):
        return None
    return dict(policy.checkpoint(name=name, state=state, prefix=prefix))


def orchestrator_action(nexts: Sequence[NextCommand]) -> str:
    """The block a quality reviewer ends its report with, so the orchestrator routes before fixing.

    After a sub-agent returns, the orchestrator acts on the sub-agent's output and no longer
    re-reads this step (skills-system.md, "Invisible knowledge" 3): the reminder has to travel in
    the reviewer's own output, so the dispatch asks the reviewer to end with it word for word.
    """
    lines = ["<orchestrator_action>", "Do not fix anything yet. Run the command for the verdict above first:"]
    for option in nexts:
        lines.append(f"{option.label}: {option.command or '(the workflow is complete)'}")
    lines.append("</orchestrator_action>")
    return "\n".join(lines)


def render_step(
    workflow: Workflow,
    step_id: str,
    params: Mapping[str, Any] | None = None,
    state: Mapping[str, Any] | None = None,
    *,
    resources: ResourceProvider | None = None,
    fmt: str | None = None,
    param_option: str = PARAM_OPTION,
) -> StepDocument:
    """Build the document for one step; unknown steps and bad parameters raise structured errors.

    `param_option` names the parameters' input as the caller's interface does, for a missing one.
    """
    step = workflow.step(step_id)
    if resources is None:  # cheap: the provider reads nothing until a step asks it for something
        resources = SessionResources(Path(working_directory()))
    given = dict(params or {})
    carried = dict(state or {})
    options = transitions(workflow, step.id, given, carried, resources=resources, param_option=param_option)
    reported_names = {n for n, p in workflow.step_params[step.id].items() if p.arg.reported}
    carry_params = {k: v for k, v in given.items() if k not in reported_names}
    # Dynamic text sees typed values with defaults filled in, exactly as the handler does.
    typed, reported = resolve_params(workflow, step.id, given)
    ctx = StepContext(step.id, {**typed, **reported}, carried, workflow.name, resources)
    title = str(_dynamic(workflow, step.id, "title", step.title, ctx))
    actions = [str(a) for a in _dynamic(workflow, step.id, "actions", step.actions, ctx)]
    groups = _group(options)
    dispatch = None
    qr: Mapping[str, Any] | None = None
    banner = _dynamic(workflow, step.id, "banner", step.banner, ctx) if step.banner is not None else None
    if isinstance(step.handler, Dispatch):
        dispatch = step.handler.to_data()
        then = (
            "Then run the if-pass command if it reports PASS, or the if-fail command if it reports FAIL."
            if len(groups) > 1
            else "Then run the next command."
        )
        actions.append(f"Dispatch: {step.handler.describe()}. {then}")
        if step.handler.gate is not None:
            round_ = int(carried.get(f"{step.handler.state_prefix}_iteration", 1))
            actions.append(gate_action(step.handler.gate, round_))
            qr_name = str(getattr(step.handler, "qr_name", None) or title or step.id)
            qr = qr_checkpoint(step.handler.gate, qr_name, carried, step.handler.state_prefix)
        if step.handler.relay_questions:
            actions.append(QUESTION_RELAY_HANDLER)
    embedded: tuple[Resource, ...] = ()
    if step.embed:
        embedded = tuple(embed(resources, workflow, ref) for ref in step.embed)
    nexts = []
    for option, when in groups:
        target = option.target
        condition = {k: tuple(v) for k, v in when.items()} if len(groups) > 1 else {}
        nexts.append(
            NextCommand(
                label=_label(condition),
                when=condition,
                outcome=option.outcome.value,
                step=target,
                index=workflow.index(target) if target is not None else None,
                command=step_command(workflow.name, target, carry_params, option.state, fmt)
                if target is not None
                else None,
            )
        )
    routing: Routing
    if all(n.command is None for n in nexts):
        routing, nexts = TerminalRouting(), []
    elif len(nexts) == 1:
        routing = LinearRouting(step=str(nexts[0].step), index=int(nexts[0].index or 0))
    else:
        routing = BranchRouting(tuple(BranchOutcome(n.label, n.when, n.outcome, n.step, n.index) for n in nexts))
    if dispatch is not None and isinstance(step.handler, Dispatch) and step.handler.agent is AgentRole.QUALITY_REVIEWER:
        block = orchestrator_action(nexts)
        prompt = dispatch.get("prompt")
        if prompt:  # the reviewer's output must carry it: ask for it in the prompt the reviewer reads
            prompt = f"{prompt}\nEnd your report with this block, word for word:\n{block}"
        dispatch = {**dispatch, "prompt": prompt, "orchestrator_action": block}
    return StepDocument(
        workflow=workflow.name,
        step=step.id,
        index=workflow.index(step.id),
        total=workflow.total_steps,
        title=title or step.id,
        actions=tuple(actions),
        routing=routing,
        next=tuple(nexts),
        phase=step.phase,
        params=carry_params,
        state=carried,
        dispatch=dispatch,
        resources=embedded,
        banner=dict(banner) if banner else None,
        qr=qr,
        forbidden=step.forbidden,
        expected=step.expected,
    )
