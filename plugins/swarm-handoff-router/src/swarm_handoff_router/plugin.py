"""Hook implementations: register the `router` scorer (built on first use)."""

from __future__ import annotations

from typing import Any

from swarm_handoff.api import Register, hookimpl
from swarm_handoff_router.commands import OPERATIONS


def _router() -> Any:
    # Imported here, not at module level, so `swarm-handoff plugins` stays fast.
    from swarm_handoff_router.router import RouterScorer

    return RouterScorer()


@hookimpl
def swarm_handoff_scorers(register: Register) -> None:
    """Offer `router`: relevance of the request to each skill's name, description and body."""
    register("router", _router, summary="BM25F over name, description and body; honours 'not for ...' triggers")


@hookimpl
def swarm_handoff_operations(register: Any) -> None:
    """Declare `route`: a request in words, every discovered skill ranked, or "no skill fits" (CLI and MCP)."""
    for operation in OPERATIONS:
        register(operation)
