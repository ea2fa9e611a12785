"""Hook implementations: register the `frontmatter` discovery source (the `.claude/skills` folder scan)."""

from __future__ import annotations

from typing import Any

from swarm_handoff.api import Register, hookimpl


def _source() -> Any:
    from swarm_handoff_frontmatter.scan import FrontmatterSource

    return FrontmatterSource()


@hookimpl
def swarm_handoff_discovery_sources(register: Register) -> None:
    """Offer the folder scan: project (1) > git root (2) > global (3) `.claude/skills/*/SKILL.md`."""
    register("frontmatter", _source, summary="scan .claude/skills/*/SKILL.md: project > git root > global")
