"""The hand-off history: every hand-off and every acknowledgment, in SQLite under the config folder.

The database is `{config_dir}/swarm-handoff/history.sqlite3`, created on first write; opening it,
its schema, concurrent writers and a damaged file are `history_db.py`'s (re-exported here, where
callers have always found them). This module says what is stored and read: a row per hand-off,
its acknowledgments, and the queries of `history`, `history --trace`, `sessions end` and ranking.

`success_counts()` is what ranking's "previous success" factor reads: per target skill, how many
hand-offs ended with the acknowledgment `success`.
"""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs

from swarm_handoff.errors import ErrorCode, Problem, SwarmError
from swarm_handoff.history_db import BUSY_TIMEOUT_MS as BUSY_TIMEOUT_MS
from swarm_handoff.history_db import DB_NAME as DB_NAME
from swarm_handoff.history_db import ENV_TIMEOUT as ENV_TIMEOUT
from swarm_handoff.history_db import HISTORY_BUSY as HISTORY_BUSY
from swarm_handoff.history_db import HISTORY_CORRUPT as HISTORY_CORRUPT
from swarm_handoff.history_db import HISTORY_UNAVAILABLE as HISTORY_UNAVAILABLE
from swarm_handoff.history_db import SCHEMA_VERSION as SCHEMA_VERSION
from swarm_handoff.history_db import busy_error as busy_error
from swarm_handoff.history_db import busy_timeout_ms as busy_timeout_ms
from swarm_handoff.history_db import db_path as db_path
from swarm_handoff.history_db import failure, open_database
from swarm_handoff.history_db import is_busy as is_busy
from swarm_handoff.history_db import is_corrupt as is_corrupt
from swarm_handoff.history_db import set_aside as set_aside

ACK_STATUSES = ("received", "processed", "success", "failure")


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@attrs.frozen(kw_only=True)
class HandoffRow:
    """One recorded hand-off and its latest status."""

    id: int
    created_at: str
    payload_path: str
    payload_hash: str | None
    version: str | None
    source: str | None
    target: str | None
    workflow_id: str | None
    session_path: str | None
    status: str
    updated_at: str
    eligibility_override: str | None = None  # "SOURCE (accepts_from: ...)" when handed off with the override
    trace_id: str | None = None  # v3.0: the chain it belongs to (`history --trace`)
    parent_span_id: str | None = None  # v3.0: the span of the payload it continues

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return attrs.asdict(self)


class History:
    """An open history database; use `open_history()` and close it (it is a context manager)."""

    def __init__(
        self,
        connection: sqlite3.Connection,
        path: Path,
        problems: tuple[Problem, ...],
        *,
        timeout_ms: int = BUSY_TIMEOUT_MS,
    ) -> None:
        self.connection = connection
        self.path = path
        self.problems = problems
        self.timeout_ms = timeout_ms

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection."""
        self.connection.close()

    @contextmanager
    def guard(self) -> Iterator[None]:
        """Turn SQLite's errors into coded ones, so a busy database never reads as a traceback."""
        try:
            yield
        except sqlite3.Error as exc:
            raise failure(exc, self.path, self.timeout_ms) from None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken at once so concurrent writers queue instead of deadlocking."""
        with self.guard():
            self.connection.execute("BEGIN IMMEDIATE")
            try:
                yield self.connection
            except BaseException:
                if self.connection.in_transaction:
                    self.connection.execute("ROLLBACK")
                raise
            self.connection.execute("COMMIT")

    def record(self, payload_path: Path | str, payload: Mapping[str, Any], *, status: str = "written") -> int:
        """Record one hand-off and return its id."""
        with self.transaction() as db:
            return self._insert(db, payload_path, payload, status)

    def _insert(self, db: sqlite3.Connection, payload_path: Path | str, payload: Mapping[str, Any], status: str) -> int:
        """Insert one hand-off row inside the caller's transaction."""
        handoff = payload.get("handoff") if isinstance(payload, Mapping) else None
        handoff = handoff if isinstance(handoff, Mapping) else {}

        def part(section: str, key: str) -> Any:
            value = handoff.get(section)
            item = value.get(key) if isinstance(value, Mapping) else None
            return item if isinstance(item, str) else None

        now = _now()
        meta = handoff.get("meta")
        hash_ = meta.get("payload_hash") if isinstance(meta, Mapping) else None
        version = handoff.get("version")
        cursor = db.execute(
            "INSERT INTO handoffs (created_at, payload_path, payload_hash, version, source, target, workflow_id,"
            " session_path, status, updated_at, eligibility_override, trace_id, parent_span_id)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                now,
                _absolute(payload_path),
                hash_ if isinstance(hash_, str) else None,
                str(version) if version is not None else None,
                part("source", "skill"),
                part("target", "skill"),
                part("source", "workflow_id"),
                part("source", "session_path"),
                status,
                now,
                _override_of(meta),
                _text(handoff.get("trace_id")),
                _text(_section(handoff, "tracing").get("parent_span_id")),
            ),
        )
        return int(cursor.lastrowid or 0)

    def acknowledge(self, payload_path: Path | str, payload: Mapping[str, Any], status: str) -> HandoffRow:
        """Record the target's acknowledgment of a payload (found by hash, else by path)."""
        if status not in ACK_STATUSES:
            raise SwarmError(
                ErrorCode.USAGE, f"unknown status {status!r}", hint=f"use one of: {', '.join(ACK_STATUSES)}"
            )
        meta = payload.get("handoff", {}).get("meta", {}) if isinstance(payload, Mapping) else {}
        hash_ = meta.get("payload_hash") if isinstance(meta, Mapping) else None
        now = _now()
        # one transaction: two acks of a payload the history never saw must not both add it
        with self.transaction() as db:
            row = self._find(str(payload_path), hash_ if isinstance(hash_, str) else None)
            handoff_id = row.id if row is not None else self._insert(db, payload_path, payload, status)
            db.execute("INSERT INTO acks (handoff_id, status, at) VALUES (?, ?, ?)", (handoff_id, status, now))
            db.execute("UPDATE handoffs SET status = ?, updated_at = ? WHERE id = ?", (status, now, handoff_id))
        found = self._by_id(handoff_id)
        assert found is not None
        return found

    def record_once(
        self, payload_path: Path | str, payload: Mapping[str, Any], *, status: str = "written"
    ) -> tuple[int, bool]:
        """Record a hand-off unless its `payload_hash` is recorded already; return (its id, whether new).

        A payload delivered twice from another machine is one hand-off: the check and the insert are
        one transaction, so two deliveries at once still record it once.
        """
        meta = payload.get("handoff", {}).get("meta", {}) if isinstance(payload, Mapping) else {}
        hash_ = meta.get("payload_hash") if isinstance(meta, Mapping) else None
        with self.transaction() as db:
            if isinstance(hash_, str):
                row = db.execute(
                    "SELECT id FROM handoffs WHERE payload_hash = ? ORDER BY id LIMIT 1", (hash_,)
                ).fetchone()
                if row is not None:
                    return int(row[0]), False
            return self._insert(db, payload_path, payload, status), True

    def set_remote(self, payload_hash: str, url: str, state: str, *, task_id: str | None, detail: str = "") -> None:
        """Record where a hand-off was sent on the network, its remote task and that task's latest state."""
        with self.transaction() as db:
            db.execute(
                "INSERT INTO remote_tasks (payload_hash, url, task_id, state, detail, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(payload_hash, url) DO UPDATE SET"
                " task_id = COALESCE(excluded.task_id, remote_tasks.task_id), state = excluded.state,"
                " detail = excluded.detail, updated_at = excluded.updated_at",
                (payload_hash, url, task_id, state, detail[:2000], _now()),
            )

    def remote(self, payload_hash: str | None = None) -> list[dict[str, Any]]:
        """The remote tasks recorded (of one payload when `payload_hash` is given), newest first."""
        fields = ("payload_hash", "url", "task_id", "state", "detail", "updated_at")
        where, params = ("WHERE payload_hash = ?", (payload_hash,)) if payload_hash else ("", ())
        with self.guard():
            rows = self.connection.execute(
                f"SELECT {', '.join(fields)} FROM remote_tasks {where} ORDER BY updated_at DESC", params
            ).fetchall()
        return [dict(zip(fields, row, strict=True)) for row in rows]

    def _find(self, path: str, hash_: str | None) -> HandoffRow | None:
        if hash_:
            rows = self._select("WHERE payload_hash = ? ORDER BY id DESC LIMIT 1", (hash_,))
            if rows:
                return rows[0]
        rows = self._select("WHERE payload_path = ? ORDER BY id DESC LIMIT 1", (path,))
        return rows[0] if rows else None

    def _by_id(self, handoff_id: int) -> HandoffRow | None:
        rows = self._select("WHERE id = ?", (handoff_id,))
        return rows[0] if rows else None

    def _select(self, where: str, params: tuple[Any, ...]) -> list[HandoffRow]:
        fields = [f.name for f in attrs.fields(HandoffRow)]
        with self.guard():
            rows = self.connection.execute(f"SELECT {', '.join(fields)} FROM handoffs {where}", params).fetchall()
        return [HandoffRow(**dict(zip(fields, row, strict=True))) for row in rows]

    def list(self, skill: str | None = None, limit: int = 200) -> list[HandoffRow]:
        """Return hand-offs, newest first, optionally only those from or to `skill`."""
        if skill is None:
            return self._select("ORDER BY id DESC LIMIT ?", (limit,))
        return self._select("WHERE source = ? OR target = ? ORDER BY id DESC LIMIT ?", (skill, skill, limit))

    def from_session(self, session: str) -> tuple[HandoffRow, ...]:
        """Hand-offs made from a session folder (by `source.session_path`, else by where the payload was written)."""
        inside = session.rstrip(os.sep) + os.sep
        return tuple(
            self._select(
                "WHERE session_path = ? OR substr(payload_path, 1, ?) = ? ORDER BY id", (session, len(inside), inside)
            )
        )

    def trace(self, trace_id: str) -> tuple[HandoffRow, ...]:
        """The hand-offs of one chain (one `trace_id`), oldest first: the chain hop by hop."""
        return tuple(self._select("WHERE trace_id = ? ORDER BY id", (trace_id,)))

    def success_counts(self) -> dict[str, int]:
        """Per target skill, the number of hand-offs whose latest acknowledgment is `success`."""
        with self.guard():
            rows = self.connection.execute(
                "SELECT target, COUNT(*) FROM handoffs WHERE status = 'success' AND target IS NOT NULL GROUP BY target"
            ).fetchall()
        return {str(target): int(count) for target, count in rows}


def open_history(config_dir: Path, *, timeout_ms: int | None = None) -> History:
    """Open (creating on first use) the history; a damaged file is set aside and reported, not emptied.

    A database another process holds locked longer than the busy time-out raises HISTORY_BUSY and
    is left exactly as it is: waiting is SQLite's answer to a second writer, not starting afresh.
    """
    timeout_ms = busy_timeout_ms() if timeout_ms is None else timeout_ms
    connection, path, problems = open_database(config_dir, timeout_ms)
    return History(connection, path, problems, timeout_ms=timeout_ms)


def _absolute(path: Path | str) -> str:
    """The path as stored: absolute, so `history` (and `session close`) find it from any folder."""
    return str(Path(path).resolve())


def _section(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key)
    return value if isinstance(value, Mapping) else {}


def _text(value: Any) -> str | None:
    return value[:200] if isinstance(value, str) else None  # a payload's text, bounded: it is someone's file


def _override_of(meta: Any) -> str | None:
    """The eligibility override a payload records, as one line for the history."""
    override = meta.get("eligibility_override") if isinstance(meta, Mapping) else None
    if not isinstance(override, Mapping):
        return None
    allowed = override.get("accepts_from")
    allowed_text = ", ".join(str(a) for a in allowed) if isinstance(allowed, list) else "?"
    return f"{override.get('source')} (accepts_from: {allowed_text}) via {override.get('option')}"[:500]


def outcome_counts(config_dir: Path) -> dict[str, tuple[int, int]]:
    """Per target skill, (hand-offs acknowledged `success`, hand-offs acknowledged `failure`).

    Read-only and never raising: ranking must work without a history, and with a damaged one (the
    next hand-off or `history` command reports and sets the damaged file aside).
    """
    path = db_path(config_dir)
    if not path.is_file():
        return {}
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=busy_timeout_ms() / 1000)
        try:
            cursor = connection.execute(
                "SELECT target, SUM(status = 'success'), SUM(status = 'failure') FROM handoffs "
                "WHERE target IS NOT NULL GROUP BY target"
            )
            return {str(t): (int(ok or 0), int(bad or 0)) for t, ok, bad in cursor.fetchall() if ok or bad}
        finally:
            connection.close()
    except sqlite3.Error:
        return {}


def success_counts(config_dir: Path) -> dict[str, int]:
    """Per target skill, how many hand-offs were acknowledged `success`; {} when there is no history."""
    return {skill: ok for skill, (ok, _bad) in outcome_counts(config_dir).items() if ok}
