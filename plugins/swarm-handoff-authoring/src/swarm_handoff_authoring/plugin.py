"""Hook implementation: the `graph` and `adopt` commands."""

from __future__ import annotations

from typing import Any

from swarm_handoff.api import hookimpl


@hookimpl
def swarm_handoff_cli(app: Any) -> None:
    """Add `graph` (the hand-off graph) and `adopt` (write hand-off metadata into a SKILL.md)."""
    from swarm_handoff_authoring.commands import add_commands

    add_commands(app)
