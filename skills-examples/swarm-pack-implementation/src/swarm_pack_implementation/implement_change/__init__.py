"""The implement-change skill: SKILL.md metadata plus a QR-gated workflow.

plan -> implement -> review (QR gate) -> finish; a FAIL goes back to implement with the round
raised, and a FAIL in the gate policy's last round goes to ask-user, which ends the run.

Discovery imports this module (the entry point names it) for `SKILL_MD` alone, so the workflow
and the QR gates it uses live in `.workflow` and are imported on first access to `WORKFLOW`.
"""

from __future__ import annotations

from importlib.resources import files
from typing import TYPE_CHECKING, Any

# A Traversable, not a path: building it reads nothing, so importing the module stays cheap. The
# SKILL.md sits in skills/implement-change/, named like the skill as the Agent Skills spec wants.
SKILL_MD = files("swarm_pack_implementation") / "skills" / "implement-change" / "SKILL.md"

if TYPE_CHECKING:
    from swarm_pack_implementation.implement_change.workflow import REVIEW as REVIEW
    from swarm_pack_implementation.implement_change.workflow import ROUNDS as ROUNDS
    from swarm_pack_implementation.implement_change.workflow import WORKFLOW as WORKFLOW
    from swarm_pack_implementation.implement_change.workflow import proceed as proceed

_LAZY = frozenset({"REVIEW", "ROUNDS", "WORKFLOW", "proceed"})


def __getattr__(name: str) -> Any:
    """Import the workflow module on first use of one of its names (PEP 562)."""
    if name in _LAZY:
        from swarm_pack_implementation.implement_change import workflow

        return getattr(workflow, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
