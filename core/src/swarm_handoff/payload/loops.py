"""The loop warning both payload versions give: a target that already took part in the hand-off chain.

A warning, never a failure: going back to an earlier skill can be what the user wants, so the
hand-off asks (the loop question) instead of refusing. Names compare as `skill_keys` says.
"""

from __future__ import annotations

from typing import Any

from swarm_handoff.errors import Problem, Severity
from swarm_handoff.skill_keys import in_chain

HANDOFF_LOOP = "HANDOFF_LOOP"


def loop_warning(target: Any, chain: Any) -> Problem | None:
    """Warn (never fail) when the target already took part in this session's chain."""
    if not isinstance(target, str) or not isinstance(chain, list) or not in_chain(target, chain):
        return None
    path = " -> ".join([*(str(s) for s in chain), target])
    return Problem(
        HANDOFF_LOOP,
        f"handoff.target.skill: {target} already appears in the hand-off chain; continuing may create a "
        f"circular workflow (chain: {path})",
        hint="choose another target, or confirm (answer y, or pass --yes)",
        severity=Severity.WARNING,
    )
