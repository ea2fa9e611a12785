"""The hand-off history: every hand-off and every acknowledgment, in SQLite under the config folder.

The database is `{config_dir}/swarm-handoff/history.sqlite3`, created on first write. Several
processes may hand off at once: the database runs in WAL mode with a busy time-out, and every
write is one `BEGIN IMMEDIATE` transaction. A database another process keeps locked longer than
the time-out is left alone and reported as `HISTORY_BUSY`: busy is not damaged. Only a file SQLite
itself calls damaged (SQLITE_CORRUPT, SQLITE_NOTADB, a failed quick check) is set aside, never
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
from typing import Any

import attrs

from swarm_handoff.errors import ErrorCode, Problem, Severity, SwarmError
from swarm_handoff.history_reports import HistoryReport as HistoryReport

DB_NAME = "history.sqlite3"
ACK_STATUSES = ("received", "processed", "success", "failure")
# How long a command waits for another process's lock before giving up with HISTORY_BUSY.
BUSY_TIMEOUT_MS = 15_000
ENV_TIMEOUT = "SWARM_HANDOFF_HISTORY_TIMEOUT"  # seconds; overrides BUSY_TIMEOUT_MS
SCHEMA_VERSION = 3  # 2: eligibility_override column; 3: trace_id and parent_span_id (chains)

HISTORY_BUSY = "HISTORY_BUSY"
HISTORY_CORRUPT = "HISTORY_CORRUPT"
HISTORY_UNAVAILABLE = "HISTORY_UNAVAILABLE"

# SQLite's primary result codes (the low byte of an extended code), and the messages that carry
# them on Pythons before 3.11, whose exceptions have no `sqlite_errorcode`.
_SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_CORRUPT, _SQLITE_NOTADB = 5, 6, 11, 26
_BUSY_TEXT = ("database is locked", "database table is locked", "database schema is locked")
_CORRUPT_TEXT = ("database disk image is malformed", "file is not a database")

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


def busy_timeout_ms(env: Mapping[str, str] | None = None) -> int:
    """The busy time-out: `SWARM_HANDOFF_HISTORY_TIMEOUT` seconds when set and sane, else the default."""
    raw = (os.environ if env is None else env).get(ENV_TIMEOUT, "").strip()
    try:
        seconds = float(raw) if raw else None
    except ValueError:
        seconds = None
    if seconds is None or not 0 <= seconds <= 86_400:  # NaN fails the comparison too
        return BUSY_TIMEOUT_MS
    return int(seconds * 1000)


def _primary(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def is_busy(exc: sqlite3.Error) -> bool:
    """Say whether SQLite gave up waiting for another connection's lock (not a damaged file)."""
    code = _primary(exc)
    if code is not None:
        return code in (_SQLITE_BUSY, _SQLITE_LOCKED)
    return any(text in str(exc) for text in _BUSY_TEXT)


def is_corrupt(exc: sqlite3.Error) -> bool:
    """Say whether SQLite itself calls the file damaged or not a database: only then is it set aside."""
    if isinstance(exc, _QuickCheckFailed):
        return True
    code = _primary(exc)
    if code is not None:
        return code in (_SQLITE_CORRUPT, _SQLITE_NOTADB)
    return any(text in str(exc) for text in _CORRUPT_TEXT)


class _QuickCheckFailed(sqlite3.DatabaseError):
    """`PRAGMA quick_check` found damage: SQLite's own verdict, as good as SQLITE_CORRUPT."""


def busy_error(path: Path, timeout_ms: int) -> SwarmError:
    """The HISTORY_BUSY error: another process held the database longer than the time-out."""
    return SwarmError(
        HISTORY_BUSY,
        f"the hand-off history {path} stayed locked by another process for more than {timeout_ms / 1000:g} s;"
        " it was left as it is",
        details={"path": str(path), "timeout_seconds": timeout_ms / 1000},
        hint=f"run the command again when the other process is done, or raise {ENV_TIMEOUT} (seconds)",
        recoverable=True,
    )


def _failure(exc: sqlite3.Error, path: Path, timeout_ms: int) -> SwarmError:
    """Turn an error met while using an open database into a coded error naming the file."""
    if is_busy(exc):
        return busy_error(path, timeout_ms)
    if is_corrupt(exc):
        return SwarmError(
            HISTORY_CORRUPT,
            f"the hand-off history {path} is damaged: {exc}",
            details={"path": str(path)},
            hint="run the command again: the damaged file is then set aside (renamed, never deleted)",
        )
    return SwarmError(
        HISTORY_UNAVAILABLE,
        f"cannot use the hand-off history {path}: {exc}",
        details={"path": str(path)},
        hint="check the permissions and free space of the config folder",
    )


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
            raise _failure(exc, self.path, self.timeout_ms) from None

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
                str(payload_path),
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


# Columns added after the first release: (name, SQL type). Added inside the schema transaction,
# after looking, so two first users racing never add one twice.
_LATER_COLUMNS = (("eligibility_override", "TEXT"), ("trace_id", "TEXT"), ("parent_span_id", "TEXT"))


def _add_columns(connection: sqlite3.Connection) -> None:
    """Add the columns a history made by an earlier version lacks."""
    have = {row[1] for row in connection.execute("PRAGMA table_info(handoffs)")}
    for name, kind in _LATER_COLUMNS:
        if name not in have:
            connection.execute(f"ALTER TABLE handoffs ADD COLUMN {name} {kind}")
    connection.execute("CREATE INDEX IF NOT EXISTS handoffs_trace ON handoffs(trace_id)")


def _connect(path: Path, timeout_ms: int) -> sqlite3.Connection:
    connection = sqlite3.connect(str(path), timeout=timeout_ms / 1000, isolation_level=None)
    try:
        connection.execute(f"PRAGMA busy_timeout = {int(timeout_ms)}")
        connection.execute("PRAGMA journal_mode = WAL")
        verdict = connection.execute("PRAGMA quick_check").fetchone()[0]
        if verdict != "ok":
            raise _QuickCheckFailed(f"database disk image is malformed (quick_check: {verdict})")
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        if version < SCHEMA_VERSION:
            # one script, one transaction: two first users racing both succeed (IF NOT EXISTS)
            connection.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    connection.execute(statement)
            _add_columns(connection)
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            connection.execute("COMMIT")
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


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_dev, found.st_ino)


def open_history(config_dir: Path, *, timeout_ms: int | None = None) -> History:
    """Open (creating on first use) the history; a damaged file is set aside and reported, not emptied.

    A database another process holds locked longer than the busy time-out raises HISTORY_BUSY and
    is left exactly as it is: waiting is SQLite's answer to a second writer, not starting afresh.
    """
    timeout_ms = busy_timeout_ms() if timeout_ms is None else timeout_ms
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
    opened = _identity(path)
    try:
        connection = _connect(path, timeout_ms)
    except sqlite3.Error as exc:
        if not is_corrupt(exc) or not path.is_file():
            raise _failure(exc, path, timeout_ms) from None
        try:
            # a second copy of this command may have set the damaged file aside and started a new
            # one since we opened it: that new file is not ours to move
            kept: Path | None = set_aside(path) if _identity(path) == opened else None
        except FileNotFoundError:
            kept = None
        except OSError as move:
            raise SwarmError(
                HISTORY_CORRUPT,
                f"the hand-off history {path} is damaged ({exc}) and cannot be moved aside: {move.strerror or move}",
                details={"path": str(path)},
                hint="move the file away yourself; a new history is started on the next run",
            ) from None
        if kept is not None:
            problems.append(
                Problem(
                    HISTORY_CORRUPT,
                    f"the hand-off history {path} was damaged ({exc}); it was moved to {kept} and a new one started",
                    path=str(kept),
                    hint="inspect or recover the old file with the sqlite3 tool; nothing in it was deleted",
                    severity=Severity.WARNING,
                )
            )
        try:
            connection = _connect(path, timeout_ms)
        except sqlite3.Error as again:
            raise _failure(again, path, timeout_ms) from None
    return History(connection, path, tuple(problems), timeout_ms=timeout_ms)


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
