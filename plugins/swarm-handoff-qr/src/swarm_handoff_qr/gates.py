"""QR gates: a review checkpoint whose verdict routes the workflow, and what surrounds it.

A gated loop has three steps a pack author writes with these helpers:

* the work step (any handler) with `banner=fix_banner(config)`, so a re-entry to fix findings
  says which round it is and who fixes what;
* the gate step, `gate_step(config, ...)`: it dispatches the quality reviewer and routes on the
  reported verdict. PASS goes to `config.pass_step`; FAIL goes back to `config.work_step` with the
  iteration raised and the failed flag set; a FAIL in the policy's last round goes to
  `config.ask_user_step` instead of looping again;
* the ask-user step, `ask_user_step(config)`: terminal. The loop has not converged, so the agent
  stops and puts the open findings to the user; it does not start another round on its own.

The seed keeps the review and the routing in two steps ("QR step", then "gate step" given the
status); here they are one step whose if-pass / if-fail commands ARE the routing, because the
step protocol already prints one command per verdict and carries the loop's state in each.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any

import attrs

from swarm_handoff.api import (
    FAIL,
    PASS,
    AgentRole,
    Arg,
    Dispatch,
    GatePolicy,
    Kind,
    LimitedGate,
    Outcome,
    StepContext,
    StepDef,
    StepResult,
    get_host,
    step_command,
)
from swarm_handoff_qr.state import QRState

DEFAULT_POLICY = "default"


@attrs.frozen
class GateConfig:
    """Where a QR gate routes and how it names itself: the facts a gate needs besides the policy."""

    qr_name: str
    work_step: str
    pass_step: str | None
    pass_message: str = "Review passed."
    self_fix: bool = True
    fix_target: AgentRole = attrs.field(default=AgentRole.DEVELOPER, converter=AgentRole)
    ask_user_step: str = "ask-user"
    policy: str = DEFAULT_POLICY
    prefix: str = "qr"
    # Review by independent sub-questions (factored verification); see `factored_verification_rationale`.
    factored: bool = False

    def fixer(self) -> str:
        """Say who fixes the findings: the agent running the workflow, or a dispatched sub-agent."""
        return "fix them yourself" if self.self_fix else f"dispatch them to the {self.fix_target.value} agent to fix"


FACTORED_EXPECTED = "one line per sub-question: the question, its answer, and where in the work the answer was found"


def factored_verification_rationale() -> str:
    """Why and how a reviewer checks the work by independent sub-questions (factored verification).

    A reviewer who reads the work and then judges it tends to agree with it: the work's own account
    frames every check. Splitting the review into questions that can each be answered on its own,
    from the work or its sources rather than from the claim being checked, keeps one answer from
    leaning on another; findings come from the answers that disagree with the work.
    """
    return (
        "Verify by independent sub-questions. First list the claims the work makes (what it says it "
        "does, fixes or establishes), each as one question that can be checked on its own, such as "
        '"Does the function return an error for an empty input?". Then answer each question from the '
        "work itself or its sources, not from the work's description of itself, and without looking "
        "at your answers to the other questions. Only then compare: every answer that disagrees with "
        "the work is a finding. Reason: checking a claim while reading the argument for it invites "
        "agreement; a question answered on its own does not inherit the work's mistakes."
    )


def gate_policy(name: str) -> GatePolicy:
    """Return the QR gate policy registered under `name` through the `swarm_handoff_qr_gates` hook."""
    policy: GatePolicy = get_host().get(Kind.QR_GATE, name)  # the host checked it against GatePolicy
    return policy


@attrs.frozen(kw_only=True)
class QRGate(Dispatch):
    """A Dispatch to a reviewer whose verdict is routed by a `GateConfig` and a gate policy."""

    config: GateConfig

    @property
    def qr_name(self) -> str:
        """The checkpoint's name, shown in its banner."""
        return self.config.qr_name

    def __call__(
        self,
        ctx: StepContext,
        verdict: Annotated[str, Arg("the reviewer's verdict", choices=(PASS, FAIL), reported=True)],
    ) -> StepResult:
        """PASS -> OK; FAIL -> FAIL (next round) or ESCALATE when the policy has no round left."""
        outcome = self.outcome_for(verdict)
        before = QRState.from_state(ctx.step_state, self.state_prefix)
        after = before.after(verdict)
        policy = gate_policy(self.config.policy)
        # a policy without the LimitedGate capability has no last round: the loop never escalates by itself
        if outcome is Outcome.FAIL and isinstance(policy, LimitedGate) and policy.exhausted(after.iteration):
            # The last round failed: keep its number so the user sees how far the loop got.
            return Outcome.ESCALATE, QRState(before.iteration, True, FAIL).to_state(self.state_prefix)
        return outcome, after.to_state(self.state_prefix)


def gate_step(
    id: str,
    config: GateConfig,
    *,
    title: str | None = None,
    actions: Sequence[str] = (),
    prompt: str | None = None,
    script: str | None = None,
    agent: AgentRole = AgentRole.QUALITY_REVIEWER,
    phase: str | None = None,
    forbidden: Sequence[str] = (),
    expected: Sequence[str] = (),
) -> StepDef:
    """Build the gate step: dispatch the reviewer, then route PASS / FAIL / out-of-rounds."""
    if prompt is None and script is None:
        prompt = f"Review the work for {config.qr_name}; report PASS or FAIL with the findings."
    handler = QRGate(
        agent=agent, script=script, prompt=prompt, state_prefix=config.prefix, gate=config.policy, config=config
    )
    expected = tuple(expected) or ("PASS or FAIL", "each finding with its severity (MUST, SHOULD or COULD)")
    if config.factored:
        actions = (*actions, factored_verification_rationale())
        expected = (*expected, FACTORED_EXPECTED)
    return StepDef(
        id,
        title or config.qr_name,
        tuple(actions),
        handler,
        {Outcome.OK: config.pass_step, Outcome.FAIL: config.work_step, Outcome.ESCALATE: config.ask_user_step},
        phase=phase,
        forbidden=tuple(forbidden)
        or ("Do not fix findings during the review", "Do not report PASS while a blocking finding remains"),
        expected=expected,
    )


def fix_banner(config: GateConfig) -> Any:
    """Return a `StepDef.banner` for the work step: silent on the first pass, a fix banner after a FAIL."""

    def banner(ctx: StepContext) -> Mapping[str, Any] | None:
        qr = QRState.from_state(ctx.step_state, config.prefix)
        if not qr.failed:
            return None
        return {
            "checkpoint": config.qr_name,
            "iteration": qr.iteration,
            "mode": "fix",
            "message": (
                f"{config.qr_name} found issues in iteration {qr.iteration - 1}: {config.fixer()}, "
                f"then the review runs again (iteration {qr.iteration})."
            ),
        }

    return banner


def ask_user_step(config: GateConfig, id: str | None = None, *, title: str | None = None) -> StepDef:
    """Build the terminal step a gate escalates to when its rounds run out."""

    def actions(ctx: StepContext) -> list[str]:
        qr = QRState.from_state(ctx.step_state, config.prefix)
        # A restart keeps the run's other state and resets the loop to round 1.
        kept = {k: v for k, v in ctx.step_state.items() if not k.startswith(f"{config.prefix}_")}
        restart = step_command(
            ctx.workflow, config.work_step, ctx.workflow_params, {**kept, **QRState().to_state(config.prefix)}
        )
        return [
            f"Stop: {config.qr_name} still failed after {qr.iteration} rounds, the gate's limit.",
            "Show the user the open findings of the last review, grouped by severity.",
            "Ask the user to choose: accept the work as it is, fix the findings by hand, or run the "
            "review loop again from its first round.",
            f"Only if the user chooses to run the loop again: {restart}",
        ]

    return StepDef(
        id or config.ask_user_step,
        title or f"{config.qr_name}: ask the user",
        actions,
        next={},
        forbidden=("Do not start another fix or review round without the user's answer",),
    )
