"""Hook implementations: register the `bm25` scorer (built on first use)."""

from __future__ import annotations

from typing import Any

from swarm_handoff.api import Register, hookimpl


def _bm25() -> Any:
    # Imported here, not at module level, so `swarm-handoff plugins` stays fast.
    from swarm_handoff_bm25.bm25 import BM25Scorer

    return BM25Scorer()


@hookimpl
def swarm_handoff_scorers(register: Register) -> None:
    """Offer `bm25`: how well a skill's description and categories match the synthesis wording."""
    register("bm25", _bm25, summary="BM25 over description + categories vs the synthesis text")
