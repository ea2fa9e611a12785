"""The hand-off history: every hand-off and every acknowledgment, in SQLite under the config folder.

The database is `{config_dir}/swarm-handoff/history.sqlite3`, created on first write. Several
processes may hand off at once: the database runs in WAL mode with a busy time-out, and every
write is one `BEGIN IMMEDIATE` transaction. A file that is not a healthy SQLite database is never
emptied or overwritten: it is renamed to `history.sqlite3.corrupt-<time>` (with its -wal/-shm
files), a fresh database takes its place, and the rename is reported as a warning.

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
from typing import Any, ClassVar

import attrs

from swarm_handoff.errors import ErrorCode, Problem, Severity, SwarmError

DB_NAME = "history.sqlite3"
ACK_STATUSES = ("received", "processed", "success", "failure")
BUSY_TIMEOUT_MS = 15_000
SCHEMA_VERSION = 1

HISTORY_CORRUPT = "HISTORY_CORRUPT"
HISTORY_UNAVAILABLE = "HISTORY_UNAVAILABLE"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS handoffs (
    id INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    payload_path TEXT NOT NULL,
    payload_hash TEXT,
    version TEXT,
    source TEXT,
    target TEXT,
    workflow_id TEXT,
    session_path TEXT,
    status TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS handoffs_target ON handoffs(target);
CREATE INDEX IF NOT EXISTS handoffs_hash ON handoffs(payload_hash);
CREATE TABLE IF NOT EXISTS acks (
    id INTEGER PRIMARY KEY,
    handoff_id INTEGER NOT NULL REFERENCES handoffs(id),
    status TEXT NOT NULL,
    at TEXT NOT NULL
);
"""


def db_path(config_dir: Path) -> Path:
    """Where the history lives for a given config folder."""
    return Path(config_dir) / "swarm-handoff" / DB_NAME


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

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return attrs.asdict(self)


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


class History:
    """An open history database; use `open_history()` and close it (it is a context manager)."""

    def __init__(self, connection: sqlite3.Connection, path: Path, problems: tuple[Problem, ...]) -> None:
        self.connection = connection
        self.path = path
        self.problems = problems

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection."""
        self.connection.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken at once so concurrent writers queue instead of deadlocking."""
        self.connection.execute("BEGIN IMMEDIATE")
        try:
            yield self.connection
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise
        self.connection.execute("COMMIT")

    def record(self, payload_path: Path | str, payload: Mapping[str, Any], *, status: str = "written") -> int:
        """Record one hand-off and return its id."""
        with self.transaction() as db:
            return self._insert(db, payload_path, payload, status)

    def _insert(self, db: sqlite3.Connection, payload_path: Path | str, payload: Mapping[str, Any], status: str) -> int:
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
            " session_path, status, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                now,
                str(payload_path),
                hash_ if isinstance(hash_, str) else None,
                str(version) if version is not None else None,
                part("source", "skill"),
                part("target", "skill"),
                part("source", "workflow_id"),
                part("source", "session_path"),
                status,
                now,
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
        # Find (or record) and acknowledge in one write transaction: two `ack`s of a payload the
        # history never saw, run at once, would otherwise both record it.
        with self.transaction() as db:
            row = self._find(str(payload_path), hash_ if isinstance(hash_, str) else None)
            handoff_id = row.id if row is not None else self._insert(db, payload_path, payload, status)
            db.execute("INSERT INTO acks (handoff_id, status, at) VALUES (?, ?, ?)", (handoff_id, status, now))
            db.execute("UPDATE handoffs SET status = ?, updated_at = ? WHERE id = ?", (status, now, handoff_id))
        found = self._by_id(handoff_id)
        assert found is not None
        return found

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
        cursor = self.connection.execute(f"SELECT {', '.join(fields)} FROM handoffs {where}", params)
        return [HandoffRow(**dict(zip(fields, row, strict=True))) for row in cursor.fetchall()]

    def list(self, skill: str | None = None, limit: int = 200) -> list[HandoffRow]:
        """Return hand-offs, newest first, optionally only those from or to `skill`."""
        if skill is None:
            return self._select("ORDER BY id DESC LIMIT ?", (limit,))
        return self._select("WHERE source = ? OR target = ? ORDER BY id DESC LIMIT ?", (skill, skill, limit))

    def success_counts(self) -> dict[str, int]:
        """Per target skill, the number of hand-offs whose latest acknowledgment is `success`."""
        cursor = self.connection.execute(
            "SELECT target, COUNT(*) FROM handoffs WHERE status = 'success' AND target IS NOT NULL GROUP BY target"
        )
        return {str(target): int(count) for target, count in cursor.fetchall()}


def _connect(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    try:
        connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        connection.execute("PRAGMA journal_mode = WAL")
        if connection.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            raise sqlite3.DatabaseError("quick_check failed")
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        if version < SCHEMA_VERSION:
            # one script, one transaction: two first users racing both succeed (IF NOT EXISTS)
            connection.executescript(f"BEGIN IMMEDIATE;\n{_SCHEMA}\nPRAGMA user_version = {SCHEMA_VERSION};\nCOMMIT;")
    except BaseException:
        connection.close()
        raise
    return connection


def set_aside(path: Path) -> Path:
    """Rename a damaged database (and its WAL files) out of the way, keeping every byte of it."""
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    kept = path.with_name(f"{path.name}.corrupt-{stamp}")
    os.replace(path, kept)
    for suffix in ("-wal", "-shm"):
        extra = path.with_name(path.name + suffix)
        if extra.exists():
            os.replace(extra, kept.with_name(kept.name + suffix))
    return kept


def open_history(config_dir: Path) -> History:
    """Open (creating on first use) the history; a damaged file is set aside and reported, not emptied."""
    path = db_path(config_dir)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SwarmError(
            HISTORY_UNAVAILABLE,
            f"cannot create {path.parent}: {exc.strerror or exc}",
            hint="check the permissions of the config folder ($CLAUDE_CONFIG_DIR or ~/.claude)",
        ) from None
    problems: list[Problem] = []
    try:
        connection = _connect(path)
    except sqlite3.DatabaseError as exc:
        if not path.exists():
            raise SwarmError(HISTORY_UNAVAILABLE, f"cannot open {path}: {exc}") from None
        kept = set_aside(path)
        problems.append(
            Problem(
                HISTORY_CORRUPT,
                f"the hand-off history was damaged ({exc}); it was moved to {kept} and a new one started",
                path=str(kept),
                hint="inspect or recover the old file with the sqlite3 tool; nothing in it was deleted",
                severity=Severity.WARNING,
            )
        )
        connection = _connect(path)
    return History(connection, path, tuple(problems))


def outcome_counts(config_dir: Path) -> dict[str, tuple[int, int]]:
    """Per target skill, (hand-offs acknowledged `success`, hand-offs acknowledged `failure`).

    Read-only and never raising: ranking must work without a history, and with a damaged one (the
    next hand-off or `history` command reports and sets the damaged file aside).
    """
    path = db_path(config_dir)
    if not path.is_file():
        return {}
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
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
