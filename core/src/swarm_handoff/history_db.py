"""The history's SQLite file: where it lives, its schema, SQLite's failures as coded errors, damage set aside.

Several processes may hand off at once: the database runs in WAL mode with a busy time-out, and
every write is one `BEGIN IMMEDIATE` transaction (`history.History.transaction`). A database
another process keeps locked longer than the time-out is left alone and reported as
`HISTORY_BUSY`: busy is not damaged. Only a file SQLite itself calls damaged (SQLITE_CORRUPT,
SQLITE_NOTADB, a failed quick check) is set aside, never emptied or overwritten: it is renamed to
`history.sqlite3.corrupt-<time>` (with its -wal/-shm files), a fresh database takes its place, and
the rename is reported as a warning. What is stored and read is `history.py`'s business.
"""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
import time
from collections.abc import Mapping
from pathlib import Path

from swarm_handoff.errors import Problem, Severity, SwarmError

DB_NAME = "history.sqlite3"
# How long a command waits for another process's lock before giving up with HISTORY_BUSY.
BUSY_TIMEOUT_MS = 15_000
ENV_TIMEOUT = "SWARM_HANDOFF_HISTORY_TIMEOUT"  # seconds; overrides BUSY_TIMEOUT_MS
SCHEMA_VERSION = 4  # 2: eligibility_override column; 3: trace_id and parent_span_id (chains); 4: remote_tasks

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
CREATE TABLE IF NOT EXISTS remote_tasks (
    payload_hash TEXT NOT NULL,
    url TEXT NOT NULL,
    task_id TEXT,
    state TEXT NOT NULL,
    detail TEXT,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (payload_hash, url)
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


def failure(exc: sqlite3.Error, path: Path, timeout_ms: int) -> SwarmError:
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


def _switch_to_wal(connection: sqlite3.Connection, timeout_ms: int) -> None:
    """Turn on WAL, waiting out another first user doing the same.

    SQLite answers a journal-mode change that meets another connection's at once with "database is
    locked" without calling the busy handler, so two first users of a new history (two threads of
    an A2A receiver, two commands started together) would see the second fail: it is retried here,
    within the same busy timeout as every other wait.
    """
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        try:
            connection.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(0.005)


def _connect(path: Path, timeout_ms: int) -> sqlite3.Connection:
    connection = sqlite3.connect(str(path), timeout=timeout_ms / 1000, isolation_level=None)
    try:
        connection.execute(f"PRAGMA busy_timeout = {int(timeout_ms)}")
        _switch_to_wal(connection, timeout_ms)
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


def open_database(config_dir: Path, timeout_ms: int) -> tuple[sqlite3.Connection, Path, tuple[Problem, ...]]:
    """Open (creating on first use) the database; a damaged file is set aside and reported, not emptied.

    A database another process holds locked longer than the busy time-out raises HISTORY_BUSY and
    is left exactly as it is: waiting is SQLite's answer to a second writer, not starting afresh.
    """
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
            raise failure(exc, path, timeout_ms) from None
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
            raise failure(again, path, timeout_ms) from None
    return connection, path, tuple(problems)
