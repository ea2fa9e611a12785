"""The evidence-review skill: its SKILL.md ships inside the wheel as package data."""

from __future__ import annotations

from importlib.resources import files
from typing import TYPE_CHECKING, Any

# A Traversable, not a path: it works from a wheel, a zip or an editable install alike, and
# building it reads nothing, so importing this module stays free. The SKILL.md sits in a folder
# named like the skill, as the Agent Skills spec wants (a Python package name cannot hold a '-').
SKILL_MD = files("swarm_pack_research") / "skills" / "evidence-review" / "SKILL.md"

if TYPE_CHECKING:
    from swarm_pack_research.evidence_review.workflow import WORKFLOW as WORKFLOW

__all__ = ["SKILL_MD", "WORKFLOW"]


def __getattr__(name: str) -> Any:
    """Optional: the skill's steps as data, for `swarm-handoff workflow step evidence-review ...`.

    Built on first use (PEP 562), because every `swarm-handoff discover` imports this module for
    `SKILL_MD` and should not pay for importing the workflow engine.
    """
    if name == "WORKFLOW":
        from swarm_pack_research.evidence_review.workflow import WORKFLOW

        return WORKFLOW
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
