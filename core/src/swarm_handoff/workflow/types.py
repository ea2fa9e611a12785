"""The vocabulary of a workflow: outcomes, agent roles, parameter metadata, contexts, steps.

Everything here is an immutable value. A step says *what* happened through an `Outcome` and the
step's `next` mapping says *where* that leads, so the transition graph is data that can be
checked, drawn and enumerated without running any handler.
"""

from __future__ import annotations

import enum
import inspect
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any

import attrs


class Outcome(str, enum.Enum):
    """What a step's handler reports; `next` maps each outcome to the following step (or None)."""

    OK = "ok"
    FAIL = "fail"
    SKIP = "skip"
    ITERATE = "iterate"
    DEFAULT = "_default"  # looked up when the reported outcome has no entry of its own
    ESCALATE = "escalate"  # a loop that cannot converge hands the decision to the user

    def __str__(self) -> str:
        return self.value


class AgentRole(str, enum.Enum):
    """The sub-agents a `Dispatch` step can hand work to; an enum so a typo fails at import."""

    QUALITY_REVIEWER = "quality-reviewer"
    DEVELOPER = "developer"
    TECHNICAL_WRITER = "technical-writer"
    EXPLORE = "explore"
    GENERAL_PURPOSE = "general-purpose"

    def __str__(self) -> str:
        return self.value


class _Missing(enum.Enum):
    MISSING = "MISSING"

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing.MISSING
"""Marks an `Arg` without a default; `inspect.Parameter.empty` is accepted as a synonym."""


def _default_converter(value: Any) -> Any:
    return MISSING if value is inspect.Parameter.empty else value


def _choices_converter(value: Sequence[Any] | None) -> tuple[Any, ...] | None:
    return None if value is None else tuple(value)


@attrs.frozen
class Arg:
    """Metadata for one handler parameter, read from `Annotated[T, Arg(...)]` in its signature.

    `reported=True` marks a value the agent supplies after doing the step (a review verdict, a
    confidence level): the step protocol then offers one next command per possible value instead
    of asking for it up front.
    """

    description: str = ""
    default: Any = attrs.field(default=MISSING, converter=_default_converter)
    min: int | float | None = None
    max: int | float | None = None
    choices: tuple[Any, ...] | None = attrs.field(default=None, converter=_choices_converter)
    required: bool = False
    reported: bool = False

    @property
    def has_default(self) -> bool:
        """Say whether the parameter may be left out (it has a default and is not required)."""
        return self.default is not MISSING and not self.required


def _readonly(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return types.MappingProxyType(dict(value or {}))


@attrs.frozen
class StepContext:
    """What a handler sees: its step id, the run's parameters and the state carried so far.

    Both mappings are read-only views: a handler returns the state it changes instead of mutating
    it, which keeps handlers pure and every transition reproducible from the command line.
    """

    step_id: str
    workflow_params: Mapping[str, Any] = attrs.field(factory=dict, converter=_readonly)
    step_state: Mapping[str, Any] = attrs.field(factory=dict, converter=_readonly)
    workflow: str = ""
    resources: Any = attrs.field(default=None, eq=False, repr=False)


StepResult = tuple[Outcome, Mapping[str, Any]]
HandlerFunction = Callable[..., StepResult]

PASS = "pass"
FAIL = "fail"


@attrs.frozen
class Dispatch:
    """A step whose work is done by a sub-agent; the agent's PASS/FAIL verdict picks the branch.

    The verdict is a reported parameter, so the step protocol prints an if-pass and an if-fail
    command. Each carries `<prefix>_iteration`, `<prefix>_failed` and `<prefix>_status`, the three
    pieces of review-loop state: a failed review raises the iteration, which is what lets a review
    loop relax its bar and finally stop. `gate` names a QR gate policy registered through the
    `swarm_handoff_qr_gates` hook (the swarm-handoff-qr plugin offers `default`); the step then
    tells the reviewer which severities block in the current round.
    """

    agent: AgentRole = attrs.field(converter=AgentRole)
    script: str | None = None
    prompt: str | None = None
    state_prefix: str = "qr"
    relay_questions: bool = False
    gate: str | None = None
    # What the sub-agent starts from (the seed's `context_vars`): names to text, shown with the dispatch.
    # Compared, not hashed (a mapping has no hash): a Dispatch stays a hashable value like its fields.
    context_vars: Mapping[str, str] = attrs.field(factory=dict, converter=_readonly, hash=False)
    # A script's own length: the sub-agent runs it from step 1 of `total_steps` (script mode only).
    total_steps: int | None = None

    def __attrs_post_init__(self) -> None:
        if (self.script is None) == (self.prompt is None):
            raise ValueError("Dispatch needs exactly one of script= or prompt=")
        for key, value in self.context_vars.items():
            if not (isinstance(key, str) and key.isidentifier() and isinstance(value, str)):
                raise ValueError(f"context_vars maps names to text; {key!r}: {value!r} is not that")
        if self.total_steps is not None:
            if self.script is None:
                raise ValueError("total_steps= is the length of a dispatched script; a prompt has none")
            if isinstance(self.total_steps, bool) or not isinstance(self.total_steps, int) or self.total_steps < 1:
                raise ValueError(f"total_steps= is a whole number of steps, at least 1, not {self.total_steps!r}")

    @staticmethod
    def outcome_for(verdict: str) -> Outcome:
        """Map the sub-agent's PASS/FAIL verdict to OK/FAIL, refusing anything else."""
        lowered = str(verdict).strip().lower()
        if lowered == PASS:
            return Outcome.OK
        if lowered == FAIL:
            return Outcome.FAIL
        raise ValueError(f"a dispatch verdict is 'pass' or 'fail', not {verdict!r}")

    def __call__(
        self,
        ctx: StepContext,
        verdict: Annotated[str, Arg("the sub-agent's verdict", choices=(PASS, FAIL), reported=True)],
    ) -> StepResult:
        """Turn the verdict into an outcome plus the updated review-loop state."""
        outcome = self.outcome_for(verdict)
        key = self.state_prefix
        iteration = int(ctx.step_state.get(f"{key}_iteration", 1))
        failed = outcome is Outcome.FAIL
        return outcome, {
            f"{key}_iteration": iteration + 1 if failed else iteration,
            f"{key}_failed": failed,
            f"{key}_status": PASS if outcome is Outcome.OK else FAIL,
        }

    def describe(self) -> str:
        """Say in one line whom the step dispatches to and with what."""
        what = f"script {self.script}" if self.script else "a prompt"
        if self.total_steps is not None:
            what += f", starting at step 1 of {self.total_steps}"
        if self.context_vars:
            what += " and its context (" + ", ".join(f"{k}={v}" for k, v in self.context_vars.items()) + ")"
        return f"dispatch to the {self.agent.value} agent with {what}"

    def to_data(self) -> dict[str, Any]:
        """The dispatch as a step document shows it: whom, how, and what the sub-agent starts from.

        `context`, `step` and `total_steps` appear only when declared, so a dispatch that declares
        neither reads as it always did.
        """
        data: dict[str, Any] = {
            "agent": self.agent.value,
            "mode": "script" if self.script else "free-form",
            "script": self.script,
            "prompt": self.prompt,
        }
        if self.total_steps is not None:
            data["step"] = 1
            data["total_steps"] = self.total_steps
        if self.context_vars:
            data["context"] = dict(self.context_vars)
        return data


Handler = HandlerFunction | Dispatch
Text = str | Callable[[StepContext], str]
Actions = Sequence[str] | Callable[[StepContext], Sequence[str]]


def _actions_converter(value: Actions) -> tuple[str, ...] | Callable[[StepContext], Sequence[str]]:
    if callable(value):
        return value
    if isinstance(value, str):  # a lone string would otherwise become one action per character
        return (value,)
    return tuple(value)


def _next_converter(value: Mapping[Any, str | None] | None) -> Mapping[Any, str | None]:
    return types.MappingProxyType(dict(value or {}))


def _when_converter(value: Mapping[str, Sequence[Any]] | None) -> Mapping[str, tuple[Any, ...]]:
    return types.MappingProxyType({k: tuple(v) for k, v in (value or {}).items()})


def _embed_converter(value: Sequence[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


@attrs.frozen(hash=False)
class StepDef:
    """One step: what to show the agent, the handler that picks an outcome, and where each leads.

    `title` and `actions` are plain data for static steps or functions of the context for dynamic
    ones. `when` gates the step on parameter values (`{"mode": ("full",)}`), so tools know the
    step never runs in other modes. `embed` names resources shown with the step
    (`convention:NAME` or `resource:PATH` inside the workflow's package). `forbidden` lists what
    the agent must not do at this step and `expected` what it must produce; `banner` returns a
    state banner (checkpoint, iteration, mode, message) from the context, or None for none.
    """

    id: str
    title: Text = ""
    actions: tuple[str, ...] | Callable[[StepContext], Sequence[str]] = attrs.field(
        default=(), converter=_actions_converter
    )
    handler: Handler | None = None
    next: Mapping[Any, str | None] = attrs.field(factory=dict, converter=_next_converter)
    on_error: str | None = None
    phase: str | None = None
    when: Mapping[str, tuple[Any, ...]] = attrs.field(factory=dict, converter=_when_converter)
    embed: tuple[str, ...] = attrs.field(default=(), converter=_embed_converter)
    forbidden: tuple[str, ...] = attrs.field(default=(), converter=_embed_converter)
    expected: tuple[str, ...] = attrs.field(default=(), converter=_embed_converter)
    banner: Callable[[StepContext], Mapping[str, Any] | None] | None = None

    @property
    def terminal(self) -> bool:
        """Say whether every way out of this step ends the workflow."""
        return all(target is None for target in self.next.values())

    @property
    def iterating(self) -> bool:
        """Say whether the step can loop (its `next` has an ITERATE entry)."""
        return Outcome.ITERATE in self.next

    def resolve(self, outcome: Outcome) -> tuple[Outcome, str | None] | None:
        """Return (the outcome key used, the target) for `outcome`, falling back to `_default`."""
        if not self.next:  # a step without transitions ends the workflow whatever it reports
            return outcome, None
        if outcome in self.next:
            return outcome, self.next[outcome]
        if Outcome.DEFAULT in self.next:
            return Outcome.DEFAULT, self.next[Outcome.DEFAULT]
        return None
