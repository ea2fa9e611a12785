"""Sessions that end: creation with a marker, `close`, `gc` and resume from a checkpoint.

The hand-off seed keeps a session's state until the target acknowledges the hand-off, the user
closes the session, or 24 hours pass. The tool makes session folders in the temporary folder
(`$TMPDIR`, else the system's) as `swarm-session-YYYYMMDD-HHMMSS-xxxxxxxx` and writes
`.swarm-session.json` into each when it creates it: that marker is what lets `gc` remove only
folders the tool made. `close` writes `.swarm-session-closed.json` beside it (never into the
marker, so closing a folder you made yourself never makes it removable).

`gc` runs in a shared, world-writable folder, so every candidate is opened without following a
symbolic link, must be a directory owned by this user holding a regular-file marker, and is
locked (the same `flock` payload writers take) before it is checked again and removed. A folder
another process holds locked is left for the next run.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import attrs

from swarm_handoff import safefs
from swarm_handoff.errors import SwarmError, UsageError
from swarm_handoff.history import db_path, open_history
from swarm_handoff.payload.v2 import new_workflow_id
from swarm_handoff.yamlio import LoadError, read_text

PREFIX = "swarm-session-"
MARKER = ".swarm-session.json"
CLOSED = ".swarm-session-closed.json"
CHECKPOINT = ".swarm-checkpoint.json"
MARKER_FORMAT = 1
TOOL = "swarm-handoff"
DEFAULT_MAX_AGE = dt.timedelta(hours=24)  # the seed's "24-hour expiry"
_MAX_MARKER = 64 * 1024  # a marker is a few hundred bytes; a bigger file is not ours
_MAX_ENTRIES = 100_000  # entries of the temporary folder looked at in one gc run

SESSION_UNACKNOWLEDGED = "SESSION_UNACKNOWLEDGED"
SESSION_NOT_FOUND = "SESSION_NOT_FOUND"
SESSION_WRITE_FAILED = "SESSION_WRITE_FAILED"  # the same code the session cache uses for a write it cannot do
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$")
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def _stamp(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse(text: Any) -> dt.datetime | None:
    if not isinstance(text, str):
        return None
    try:
        value = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.timezone.utc)


def sessions_root(env: Mapping[str, str] | None = None) -> Path:
    """The folder sessions are made in: `$TMPDIR` when it is a folder, else the system's temporary one."""
    env = os.environ if env is None else env
    given = env.get("TMPDIR", "")
    if given and os.path.isdir(given):
        return Path(given)
    return Path(tempfile.gettempdir())


def parse_duration(text: str, option: str = "--older-than") -> dt.timedelta:
    """Read a duration option (`90s`, `30m`, `24h`, `2d`, `1w`; a bare number is seconds)."""
    match = _DURATION.match(text)
    if match is None or len(text) > 32:
        raise UsageError(  # exit 2, like every other option that cannot be read
            f"{option} {text!r} is not a duration",
            hint="write a number and a unit: 90s, 30m, 24h, 2d or 1w",
            option=option,
        )
    return dt.timedelta(seconds=float(match.group(1)) * _UNITS[match.group(2)])


def _marker_bytes(moment: dt.datetime) -> bytes:
    data = {"format": MARKER_FORMAT, "tool": TOOL, "created_at": _stamp(moment), "uid": _uid()}
    return (json.dumps(data, indent=2) + "\n").encode("utf-8")


def _uid() -> int:
    getuid = getattr(os, "getuid", None)
    return int(getuid()) if callable(getuid) else -1


def mark_created(folder: Path, now: dt.datetime | None = None) -> None:
    """Write the creation marker into a session folder the tool has just made (never replacing one)."""
    safefs.create_new(folder / MARKER, _marker_bytes(now or _now()), mode=0o600)


def new_session(root: Path | None = None, now: dt.datetime | None = None) -> Path:
    """Make a fresh session folder (mode 0700) named like a v2.0 `workflow_id`, with its marker."""
    root = root or sessions_root()
    moment = now or _now()
    for _ in range(100):  # eight random hex digits: a clash is rare, a hundred in a row is impossible
        folder = root / new_workflow_id(moment)
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            continue
        except OSError as exc:
            raise SwarmError(
                SESSION_WRITE_FAILED,
                f"cannot make a session folder in {root}: {exc.strerror or exc}",
                hint="set TMPDIR to a writable folder",
            ) from None
        mark_created(folder, moment)
        return folder
    raise SwarmError(SESSION_WRITE_FAILED, f"cannot find a free session name in {root}", hint="run the command again")


def read_marker(folder: Path) -> dict[str, Any] | None:
    """The creation marker when it is the tool's (a regular file of the right form), else None."""
    try:
        data = json.loads(read_text(folder / MARKER, limit=_MAX_MARKER, follow=False))
    except (OSError, ValueError, LoadError):
        return None
    if not (isinstance(data, dict) and data.get("format") == MARKER_FORMAT and data.get("tool") == TOOL):
        return None
    return data if _parse(data.get("created_at")) is not None else None


def _read_small(folder: Path, name: str) -> dict[str, Any] | None:
    try:
        data = json.loads(read_text(folder / name, limit=_MAX_MARKER, follow=False))
    except (OSError, ValueError, LoadError):
        return None
    return data if isinstance(data, dict) else None


def closed_at(folder: Path) -> str | None:
    """When the session was closed (`session close`), or None while it is open."""
    data = _read_small(folder, CLOSED)
    value = data.get("closed_at") if data else None
    return value if isinstance(value, str) else None


@attrs.frozen(kw_only=True)
class CloseReport:
    """The `session close` document: the folder, when it was closed, and what was still pending."""

    kind: ClassVar[str] = "session-close"
    session: str
    closed_at: str
    forced: bool
    unacknowledged: tuple[str, ...] = ()
    created_by_tool: bool = False

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {**attrs.asdict(self), "unacknowledged": list(self.unacknowledged)}


def unacknowledged(folder: Path, config: Path) -> list[str]:
    """Payload paths of hand-offs made from `folder` that no target has acknowledged yet."""
    if not db_path(config).is_file():
        return []  # no history, no hand-off to wait for (and none is created just to look)
    with open_history(config) as history:
        rows = history.from_session(str(folder.resolve()))
    return [row.payload_path for row in rows if row.status == "written"]


def close_session(folder: Path, config: Path, *, force: bool = False, now: dt.datetime | None = None) -> CloseReport:
    """Close a session: refuse while a hand-off from it is unacknowledged, unless `force`."""
    if folder.is_symlink() or not folder.is_dir():
        raise SwarmError(
            SESSION_NOT_FOUND,
            f"{folder} is not a session folder",
            hint="give the folder passed as --session to `handoff` (a symbolic link is not followed)",
            details={"session": str(folder)},
        )
    pending = unacknowledged(folder, config)
    if pending and not force:
        raise SwarmError(
            SESSION_UNACKNOWLEDGED,
            f"{folder}: {len(pending)} hand-off(s) from this session are not acknowledged: " + ", ".join(pending),
            hint="the target acknowledges with `swarm-handoff ack PAYLOAD --status received`; "
            "or close anyway with `session close --force`",
            details={"session": str(folder), "unacknowledged": pending},
            recoverable=True,
        )
    moment = _stamp(now or _now())
    record = {"closed_at": moment, "forced": bool(pending), "unacknowledged": pending}
    with safefs.locked(folder):  # the lock payload writers take: no hand-off lands half-way through
        earlier = closed_at(folder)
        if earlier is None:
            safefs.atomic_write(folder / CLOSED, (json.dumps(record, indent=2) + "\n").encode("utf-8"), mode=0o600)
    return CloseReport(
        session=str(folder),
        closed_at=earlier or moment,
        forced=bool(pending),
        unacknowledged=tuple(pending),
        created_by_tool=read_marker(folder) is not None,
    )


def write_checkpoint(folder: Path, now: dt.datetime | None = None) -> Path:
    """Record that the session resumes from a checkpoint; a new content invalidates the discovery cache."""
    import secrets

    if folder.is_symlink() or not folder.is_dir():
        raise SwarmError(
            SESSION_NOT_FOUND,
            f"{folder} is not a session folder",
            hint="give an existing session folder (a symbolic link is not followed)",
            details={"session": str(folder)},
        )
    data = {"resumed_at": _stamp(now or _now()), "resume_id": secrets.token_hex(8)}
    path = folder / CHECKPOINT
    safefs.atomic_write(path, (json.dumps(data, indent=2) + "\n").encode("utf-8"), mode=0o600)
    return path


def checkpoint_text(folder: Path) -> str | None:
    """The checkpoint file's content (the discovery cache is valid only for the one it was built under)."""
    if not os.path.lexists(folder / CHECKPOINT):
        return None
    try:
        return read_text(folder / CHECKPOINT, limit=_MAX_MARKER, follow=False)
    except (OSError, LoadError):
        return "unreadable"  # never equal to a stored content: a damaged checkpoint forces a rebuild
