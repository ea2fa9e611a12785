"""The skills-system step contract as an alternative front end to `workflow step`.

Scripts written to that contract call `--step N --total-steps M` and pass the review loop's state
as `--qr-iteration N --qr-fail --qr-status pass|fail`. Here they are aliases: the position is
the step's place in the order `Workflow` declares (what "step N of M" shows), and the QR flags
become the `--state` keys the step protocol already carries. A total that does not match, or an
alias that contradicts an explicit `--state`, is an error rather than a silent guess.
"""

from __future__ import annotations

from collections.abc import Mapping

from swarm_handoff.errors import ErrorCode, SwarmError, UsageError
from swarm_handoff.workflow.model import Workflow
from swarm_handoff.workflow.types import AgentRole, Dispatch

WORKFLOW_TOTAL_MISMATCH = "WORKFLOW_TOTAL_MISMATCH"
QR_STATUSES = ("pass", "fail")


def contract_step(workflow: Workflow, step_id: str | None, position: int | None, total: int | None) -> str:
    """The step id named by STEP or by `--step N` (checked against `--total-steps M`); neither: the first."""
    if position is None:
        if total is not None:
            raise UsageError("--total-steps needs --step N", hint="give the step's position with --step")
        return workflow.step_ids[0] if step_id is None else step_id  # no step named: the entry, step 1
    count = workflow.total_steps
    if total is not None and total != count:
        raise SwarmError(
            WORKFLOW_TOTAL_MISMATCH,
            f"--total-steps {total}, but workflow {workflow.name!r} has {count} steps",
            details={"workflow": workflow.name, "total_steps": count, "given": total},
            hint=f"the script was written for another version of the workflow; use --total-steps {count}",
        )
    if not 1 <= position <= count:
        raise SwarmError(
            ErrorCode.WORKFLOW_STEP_NOT_FOUND,
            f"workflow {workflow.name!r} has no step {position} (it has steps 1 to {count})",
            details={"workflow": workflow.name, "step": position, "available": list(workflow.step_ids)},
            hint=f"give --step between 1 and {count}",
        )
    chosen = workflow.step_ids[position - 1]
    if step_id is not None and step_id != chosen:
        raise UsageError(
            f"STEP {step_id!r} and --step {position} ({chosen!r}) name different steps",
            hint="give one of them",
        )
    return chosen


def qr_prefix(workflow: Workflow) -> str:
    """The state prefix the QR flags stand for: the quality reviewer's, when the workflow has one."""
    prefixes = {
        step.handler.state_prefix
        for step in workflow.steps
        if isinstance(step.handler, Dispatch) and step.handler.agent is AgentRole.QUALITY_REVIEWER
    }
    return prefixes.pop() if len(prefixes) == 1 else "qr"


def contract_state(
    workflow: Workflow,
    given: Mapping[str, str],
    iteration: int | None,
    failed: bool,
    status: str | None,
) -> dict[str, str]:
    """The `--state` entries the QR flags stand for; a contradiction with `given` is a usage error."""
    prefix = qr_prefix(workflow)
    wanted: dict[str, str] = {}
    if iteration is not None:
        if iteration < 1:
            raise UsageError(f"--qr-iteration {iteration} is below 1", hint="review rounds count from 1")
        wanted[f"{prefix}_iteration"] = str(iteration)
    if failed:
        wanted[f"{prefix}_failed"] = "true"
    if status is not None:
        if status not in QR_STATUSES:
            raise UsageError(f"--qr-status {status!r} is not pass or fail", hint="use --qr-status pass or fail")
        wanted[f"{prefix}_status"] = status
    for key, value in wanted.items():
        if key in given and given[key] != value:
            raise UsageError(
                f"--state {key}={given[key]} contradicts the alias that means {key}={value}",
                hint="give the value once, either way",
            )
    return wanted
