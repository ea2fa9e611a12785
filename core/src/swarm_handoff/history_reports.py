"""The documents the history commands print: the recorded hand-offs, and one chain hop by hop.

They lay out `HandoffRow`s that `history.py` reads from the store (`history_db.py` is the file).
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from swarm_handoff.errors import Problem
from swarm_handoff.history import HandoffRow
from swarm_handoff.payload.canonical import span_from_hash


@attrs.frozen(kw_only=True)
class HistoryReport:
    """The `history` document: hand-offs, newest first, and any problem with the database."""

    kind: ClassVar[str] = "history"
    handoffs: tuple[HandoffRow, ...]
    skill: str | None = None
    problems: tuple[Problem, ...] = ()

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {
            "skill": self.skill,
            "handoffs": [h.to_data() for h in self.handoffs],
            "problems": [p.to_data() for p in self.problems],
        }


def span_of(row: HandoffRow) -> str | None:
    """The span id of a recorded hand-off, from its payload hash (what the next hop names as its parent)."""
    return span_from_hash(row.payload_hash)


@attrs.frozen(kw_only=True)
class TraceReport:
    """The `history --trace` document: one chain's hand-offs, oldest first, each with its span and parent."""

    kind: ClassVar[str] = "trace"
    trace_id: str
    hops: tuple[HandoffRow, ...]
    problems: tuple[Problem, ...] = ()

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form: each hop is a history row plus its `hop` number and `span_id`."""
        return {
            "trace_id": self.trace_id,
            "hops": [{"hop": n, **row.to_data(), "span_id": span_of(row)} for n, row in enumerate(self.hops, 1)],
            "problems": [p.to_data() for p in self.problems],
        }
