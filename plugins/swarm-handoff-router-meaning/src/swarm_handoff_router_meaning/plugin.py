"""Hook implementations: register the `router-meaning` scorer (built, and its model loaded, on first use)."""

from __future__ import annotations

from typing import Any

from swarm_handoff.api import Register, hookimpl


def _scorer() -> Any:
    # Imported here, not at module level, so `swarm-handoff plugins` and discovery stay fast.
    from swarm_handoff_router_meaning.meaning import MeaningScorer

    return MeaningScorer()


@hookimpl
def swarm_handoff_scorers(register: Register) -> None:
    """Offer `router-meaning`: the router's word scores, re-ordered by meaning among the best by words."""
    register(
        "router-meaning",
        _scorer,
        summary="router + a bundled embedding model (optional extra) among the best by words; explained",
    )
