"""One hand-off in progress: what was asked, and the run that keeps the payload on every failure.

`HandoffOptions` is the request (the target, the inputs, the optional parts of the payload).
`HandoffRun` holds the payload while `lifecycle.hand_off` works, so that every failure after the
payload is built preserves it (in the session folder, or under the config folder) and names the
file in the error; a failed attempt is recorded in the history too (`record_handoff`, which the
written payload's record shares), where a history that cannot be written warns and undoes nothing.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from swarm_handoff.chains import chain_entries
from swarm_handoff.errors import Problem, Severity, SwarmError
from swarm_handoff.history import HISTORY_UNAVAILABLE, open_history
from swarm_handoff.payload.io import dump_payload, file_stamp, write_new
from swarm_handoff.payload.v2 import utc_now
from swarm_handoff.records import DiscoveryContext

if TYPE_CHECKING:
    from swarm_handoff.synthesis import Synthesis


@attrs.frozen(kw_only=True)
class HandoffOptions:
    """What the user asked for: the target, the inputs, and the optional parts of the payload."""

    target: str
    # a file, or a parsed synthesis (`rank`/`handoff --request`: request_words); with `received`: replaces its context
    synthesis: Path | Synthesis | None = None
    session: Path
    schema: str | None = None  # None: the target's schema version decides (docs/payloads.md)
    source: str | None = None
    reason: str = ""
    feedback: str | None = None
    chain: tuple[str, ...] = attrs.field(default=(), converter=chain_entries)  # as `--chain` reads it
    health_check: bool = False
    sign: bool = False
    override_accepts_from: bool = False  # hand off although the target does not accept the source
    received: Path | None = None  # continue the chain of this received payload (payload/continuation.py)
    allow_undeclared: bool = False  # hand off to a skill that declares no hand-off metadata (recorded)
    expires_in: dt.timedelta | None = None  # `expires_at` is `timestamp` + this; None: DEFAULT_TTL (one hour)
    # with `received`: refuse an unsigned one (or one with an unsigned hop); None: required when a signing key exists
    require_signature: bool | None = None


def preserve(
    payload: Any,
    session: Path,
    version: str,
    env_config: Path,
    failures: list[str] | None = None,
    skip: Mapping[Path, str] | None = None,
) -> str | None:
    """Keep a payload that could not be handed off, in the session folder or else the config folder.

    None when neither took it; `failures` (when given) then says, folder by folder, why. A folder in
    `skip` (one already found locked past the wait, with why) is not tried: its lock is not waited for twice.
    """
    suffix = ".yaml" if version == "2.0" else ".json"
    name = f"handoff-payload.failed-{file_stamp(utc_now())}{suffix}"
    for folder in (session, env_config / "swarm-handoff" / "preserved"):
        if skip and folder in skip:
            if failures is not None:
                failures.append(f"{folder}: {skip[folder]}")
            continue
        try:
            if folder == session and not folder.is_dir():
                if failures is not None:
                    failures.append(f"{folder}: not a folder")
                continue
            return str(write_new(folder / name, dump_payload(payload, folder / name)))  # its own name, always
        except OSError as exc:
            if failures is not None:
                failures.append(f"{folder}: {exc.strerror or exc}")
            continue
    return None


class HandoffRun:
    """One hand-off in progress: holds the payload so any failure can preserve it."""

    def __init__(self, options: HandoffOptions, context: DiscoveryContext) -> None:
        self.options = options
        self.session = options.session.expanduser()
        self.config = context.config_dir
        self.payload: Any = None
        self.version = options.schema or "3.0"  # until the target's version is known
        self.preserving_done = False  # preservation runs once, whichever path reports the failure
        self.busy: dict[Path, str] = {}  # folders found locked past the wait: never waited for again

    def fail(self, error: SwarmError) -> SwarmError:
        """Preserve the payload (when there is one, once per run) and name it in `error`."""
        if self.payload is not None and error.payload_preserved is None and not self.preserving_done:
            self.preserving_done = True
            failures: list[str] = []
            kept = preserve(self.payload, self.session, self.version, self.config, failures, skip=self.busy)
            error.payload_preserved = kept
            if kept:
                error.message += f" (payload preserved at {kept})"
                record_handoff(self, Path(kept), status="failed")  # the history shows failed attempts too
            else:
                # Nowhere on disk took it: the error itself carries the payload, so it is not lost.
                name = Path("payload.yaml" if self.version == "2.0" else "payload.json")
                error.details["payload_text"] = dump_payload(self.payload, name)
                error.details["preserve_failures"] = failures
                error.message += (
                    f" (the payload could not be kept on disk: {'; '.join(failures) or 'no folder to keep it in'}; "
                    "its full text travels with this error: printed below it in text output, "
                    "details.payload_text in json and yaml; save it as a file and hand that over)"
                )
        return error


HANDOFF_FAILED = "HANDOFF_FAILED"


def unexpected(exc: BaseException | None) -> SwarmError:
    """The HANDOFF_FAILED error for a failure nobody foresaw (None: an interruption), so it is still coded."""
    what = "interrupted" if exc is None else f"unexpected {type(exc).__name__}: {exc}"[:500]
    return SwarmError(
        HANDOFF_FAILED,
        f"the hand-off failed: {what}",
        hint="the payload is kept (see payload_preserved); hand it over by hand or retry, and report the error",
    )


def fail_safely(run: HandoffRun, error: SwarmError) -> SwarmError:
    """`run.fail(error)`, but a failure to preserve is said in the error, never raised over it."""
    try:
        return run.fail(error)
    except Exception as exc:
        error.message += f" (the payload could not be preserved: {type(exc).__name__}: {exc})"[:500]
        return error


def record_handoff(run: HandoffRun, path: Path, *, status: str = "written") -> tuple[int | None, tuple[Problem, ...]]:
    """Record the hand-off; a history that cannot be written warns but never undoes the hand-off."""
    try:
        with open_history(run.config) as history:
            return history.record(path, run.payload, status=status), history.problems
    except (SwarmError, sqlite3.Error, OSError) as exc:
        message = exc.message if isinstance(exc, SwarmError) else f"{type(exc).__name__}: {exc}"
        code = exc.code if isinstance(exc, SwarmError) else HISTORY_UNAVAILABLE  # HISTORY_BUSY stays itself
        warning = Problem(code, f"hand-off not recorded in the history: {message}", severity=Severity.WARNING)
        return None, (warning,)
