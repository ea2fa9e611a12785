"""The `think-through` skill as its entry point sees it: SKILL.md now, the workflow on first use.

Discovery imports this module for `SKILL_MD` alone, on every `swarm-handoff discover`; building
the workflow would import the workflow engine too. So the steps live in `.steps`, and `WORKFLOW`
(and the step functions and constants) are fetched from there on first access (PEP 562).
"""

from __future__ import annotations

from importlib.resources import files
from typing import TYPE_CHECKING, Any

# The skill's metadata, shipped beside this module; building the Traversable reads nothing.
SKILL_MD = files("swarm_handoff_example_think") / "SKILL.md"

if TYPE_CHECKING:
    from swarm_handoff_example_think.steps import CONFIDENCE as CONFIDENCE
    from swarm_handoff_example_think.steps import MAX_ROUNDS as MAX_ROUNDS
    from swarm_handoff_example_think.steps import MODES as MODES
    from swarm_handoff_example_think.steps import WORKFLOW as WORKFLOW
    from swarm_handoff_example_think.steps import answer_actions as answer_actions
    from swarm_handoff_example_think.steps import choose_depth as choose_depth
    from swarm_handoff_example_think.steps import proceed as proceed
    from swarm_handoff_example_think.steps import refine as refine
    from swarm_handoff_example_think.steps import refine_title as refine_title

_LAZY = frozenset(
    {
        "CONFIDENCE",
        "MAX_ROUNDS",
        "MODES",
        "WORKFLOW",
        "answer_actions",
        "choose_depth",
        "proceed",
        "refine",
        "refine_title",
    }
)


def __getattr__(name: str) -> Any:
    """Import the steps on first use of one of their names; anything else is a plain AttributeError."""
    if name in _LAZY:
        from swarm_handoff_example_think import steps

        return getattr(steps, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
