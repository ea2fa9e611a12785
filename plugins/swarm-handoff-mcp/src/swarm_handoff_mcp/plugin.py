"""Hook implementation: the `mcp` command (the SDK is imported only when the server starts)."""

from __future__ import annotations

from typing import Any

from swarm_handoff.api import hookimpl
from swarm_handoff_mcp.command import register


@hookimpl
def swarm_handoff_cli(app: Any) -> None:
    """Add `swarm-handoff mcp`."""
    register(app)
