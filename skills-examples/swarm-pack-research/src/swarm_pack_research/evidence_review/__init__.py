"""The evidence-review skill: its SKILL.md ships inside the wheel as package data."""

from __future__ import annotations

from importlib.resources import files

# A Traversable, not a path: it works from a wheel, a zip or an editable install alike, and
# building it reads nothing, so importing this module stays free.
SKILL_MD = files(__name__) / "SKILL.md"

# Optional: the skill's steps as data, for `swarm-handoff workflow step evidence-review ...`.
from swarm_pack_research.evidence_review.workflow import WORKFLOW  # noqa: E402

__all__ = ["SKILL_MD", "WORKFLOW"]
