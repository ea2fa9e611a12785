"""The documents the history commands print: the recorded hand-offs, and one chain hop by hop.

They lay out `HandoffRow`s that `history.py` reads from the store (`history_db.py` is the file).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

from swarm_handoff.errors import Problem, UsageError
from swarm_handoff.history import HandoffRow, History
from swarm_handoff.inputs import ref
from swarm_handoff.payload.canonical import span_from_hash


@attrs.frozen(kw_only=True)
class HistoryReport:
    """The `history` document: hand-offs, newest first, and any problem with the database."""

    kind: ClassVar[str] = "history"
    handoffs: tuple[HandoffRow, ...]
    skill: str | None = None
    problems: tuple[Problem, ...] = ()
    # By payload hash: the hosts a hand-off was sent to over the network (`handoff --to`), newest first.
    remote: Mapping[str, tuple[dict[str, Any], ...]] = attrs.field(factory=dict)

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form; a row sent to another host carries `remote`, the others are as before."""
        return {
            "skill": self.skill,
            "handoffs": [self._row(h) for h in self.handoffs],
            "problems": [p.to_data() for p in self.problems],
        }

    def _row(self, row: HandoffRow) -> dict[str, Any]:
        sent = self.remote.get(row.payload_hash or "")
        return {**row.to_data(), "remote": list(sent)} if sent else row.to_data()  # remote_by_hash made them fresh


def history_report(
    store: History, skill: str | None = None, *, trace: str | None = None
) -> HistoryReport | TraceReport:
    """The `history` document, one rule for the command and the MCP tool: the rows, or one chain by `trace`.

    `trace` with `skill` is refused rather than one of them ignored.
    """
    if trace is not None:
        if skill is not None:
            raise UsageError(f"{ref('trace')} and {ref('skill')} cannot be combined", hint="pass one of them")
        return TraceReport(trace_id=trace, hops=store.trace(trace), problems=store.problems)
    return HistoryReport(
        handoffs=tuple(store.list(skill)), skill=skill, problems=store.problems, remote=remote_by_hash(store.remote())
    )


def remote_by_hash(tasks: list[dict[str, Any]]) -> dict[str, tuple[dict[str, Any], ...]]:
    """The history's remote tasks grouped by payload hash, each without the hash it is filed under."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for task in tasks:
        grouped.setdefault(task["payload_hash"], []).append({k: v for k, v in task.items() if k != "payload_hash"})
    return {key: tuple(value) for key, value in grouped.items()}


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
