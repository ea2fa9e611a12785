"""The hand-off lifecycle: find the target, build, validate, confirm, check health, write, record.

Every step that can fail after the payload is built preserves it first (in the session folder, or
under the config folder when the session is not writable) and names the file in the error, so no
work is lost: the user fixes the cause and hands the preserved payload over by hand, or retries.
"""

from __future__ import annotations

import datetime as dt
import difflib
import os
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import attrs

from swarm_handoff.discovery import discover, make_context
from swarm_handoff.errors import ErrorCode, Problem, Severity, SwarmError, UsageError
from swarm_handoff.payload.build3 import PayloadTooLarge, build_v3, file_stamp, v3_path
from swarm_handoff.payload.canonical import check_integrity
from swarm_handoff.payload.health import HealthResult, health_error, run_health_check
from swarm_handoff.payload.io import dump_payload, keep_earlier, unique_path, write_atomic
from swarm_handoff.payload.v2 import FILE_NAME, SOURCE_SKILL, build_v2, invocation_for, utc_now
from swarm_handoff.payload.v3 import CHAIN_APPROVAL_AFTER
from swarm_handoff.payload.validate import validate_payload
from swarm_handoff.plugins import PluginHost, get_host
from swarm_handoff.records import DiscoveryContext, SkillRecord
from swarm_handoff.synthesis import load_synthesis

SCHEMAS = ("2.0", "3.0")
Confirm = Callable[[str], bool]


@attrs.frozen(kw_only=True)
class HandoffOptions:
    """What the user asked for: the target, the inputs, and the optional parts of the payload."""

    target: str
    synthesis: Path
    session: Path
    schema: str = "2.0"
    source: str | None = None
    reason: str = ""
    feedback: str | None = None
    chain: tuple[str, ...] = ()
    health_check: bool = False
    sign: bool = False


@attrs.frozen(kw_only=True)
class HandoffResult:
    """The `handoff` document: where the payload went and the command that hands it over."""

    kind: ClassVar[str] = "handoff"
    target: str
    version: str
    payload_path: str
    invocation: str
    payload_hash: str
    payload_size_bytes: int
    kept_earlier: str | None = None
    side_files: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    warnings: tuple[Problem, ...] = ()
    health_check: HealthResult | None = None
    history_id: int | None = None

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {
            "target": self.target,
            "version": self.version,
            "payload_path": self.payload_path,
            "invocation": self.invocation,
            "payload_hash": self.payload_hash,
            "payload_size_bytes": self.payload_size_bytes,
            "kept_earlier": self.kept_earlier,
            "side_files": list(self.side_files),
            "notes": list(self.notes),
            "warnings": [w.to_data() for w in self.warnings],
            "health_check": self.health_check.to_data() if self.health_check else None,
            "history_id": self.history_id,
        }


def substitute(record: SkillRecord, payload_path: Path) -> str:
    """The command that hands the payload over, `{payload_path}` replaced by the shell-quoted path."""
    template = invocation_for(record)
    quoted = shlex.quote(str(payload_path))
    if "{payload_path}" not in template:  # a trigger without the placeholder still gets the path
        return f"{template} {quoted}"
    return template.replace("{payload_path}", quoted)


def loop_message(target: str, chain: tuple[str, ...] | list[str]) -> str:
    """The loop warning shown before handing off to a skill that is already in the chain."""
    return (
        f"warning: {target} is already in this session's hand-off chain; handing off again may go round in "
        f"a circle.\n  chain: {' -> '.join([*chain, target])}\n  Hand off anyway?"
    )


def _not_found(target: str, found: list[str], ineligible: list[str]) -> SwarmError:
    close = difflib.get_close_matches(target, found, n=3, cutoff=0.6)
    if target in ineligible:
        hint = f"{target} exists but does not accept hand-offs (its SKILL.md has no eligible handoff: block)"
    elif close:
        hint = f"did you mean: {', '.join(close)}?"
    else:
        hint = "run `swarm-handoff discover` to list the skills that accept a hand-off"
    return SwarmError(
        ErrorCode.TARGET_NOT_FOUND,
        f"no skill named {target!r} accepts a hand-off here",
        details={"target_skill": target, "closest": close},
        hint=hint,
        recoverable=True,
    )


def preserve(payload: Any, session: Path, version: str, env_config: Path) -> str | None:
    """Keep a payload that could not be handed off, in the session folder or else the config folder."""
    suffix = ".yaml" if version == "2.0" else ".json"
    name = f"handoff-payload.failed-{file_stamp(utc_now())}{suffix}"
    for folder in (session, env_config / "swarm-handoff" / "preserved"):
        try:
            if folder == session and not folder.is_dir():
                continue
            path = unique_path(folder / name)
            write_atomic(path, dump_payload(payload, path))
            return str(path)
        except OSError:
            continue
    return None


class _Run:
    """One hand-off in progress: holds the payload so any failure can preserve it."""

    def __init__(self, options: HandoffOptions, context: DiscoveryContext) -> None:
        self.options = options
        self.session = options.session.expanduser()
        self.config = context.config_dir
        self.payload: Any = None

    def fail(self, error: SwarmError) -> SwarmError:
        """Preserve the payload (when there is one) and name it in `error`."""
        if self.payload is not None and error.payload_preserved is None:
            kept = preserve(self.payload, self.session, self.options.schema, self.config)
            error.payload_preserved = kept
            if kept:
                error.message += f" (payload preserved at {kept})"
                _record(self, Path(kept), status="failed")  # the history shows failed attempts too
        return error


def hand_off(
    options: HandoffOptions,
    *,
    host: PluginHost | None = None,
    context: DiscoveryContext | None = None,
    confirm: Confirm | None = None,
    now: dt.datetime | None = None,
) -> HandoffResult:
    """Hand off to `options.target`; `confirm(message)` answers the loop and long-chain questions."""
    host = host or get_host()
    context = context or make_context()
    ask: Confirm = confirm or (lambda _message: False)
    if options.schema not in SCHEMAS:
        raise UsageError(f"unknown schema {options.schema!r}", hint="use --schema 2.0 or --schema 3.0")
    if options.schema == "2.0" and options.source not in (None, SOURCE_SKILL):
        raise UsageError("--source is for v3.0 payloads; v2.0 payloads always come from perspective-swarm")
    run = _Run(options, context)
    synthesis = load_synthesis(options.synthesis)
    found = discover(context, host)
    record = found.named(options.target)
    if record is None:
        raise _not_found(options.target, [r.name for r in found.workflows], [r.name for r in found.ineligible])
    source = options.source or SOURCE_SKILL
    chain = options.chain or (source,)
    moment = now or utc_now()
    notes: list[str] = []
    side_files: tuple[tuple[Path, Any], ...] = ()
    try:
        if options.schema == "2.0":
            run.payload = build_v2(
                synthesis,
                record,
                run.session,
                now=moment,
                chain=chain,
                reason=options.reason,
                feedback=options.feedback,
            )
        else:
            approved = None
            if len(chain) > CHAIN_APPROVAL_AFTER:
                approved = ask(f"The hand-off chain already has {len(chain)} entries ({' -> '.join(chain)}). Approve?")
            built = build_v3(
                synthesis,
                record,
                run.session,
                source=source,
                now=moment,
                chain=chain,
                reason=options.reason,
                feedback=options.feedback,
                user_approved=approved,
            )
            run.payload, side_files, notes = built.payload, built.side_files, list(built.notes)
    except PayloadTooLarge as exc:
        run.payload = exc.payload
        raise run.fail(exc) from None
    if options.sign:
        from swarm_handoff.payload.signing import sign

        try:
            run.payload = sign(run.payload, context.config_dir)
        except SwarmError as exc:
            raise run.fail(exc) from None
    if not run.session.is_dir() or not os.access(run.session, os.R_OK | os.W_OK | os.X_OK):
        raise run.fail(
            SwarmError(
                ErrorCode.VALIDATION_FAILED,
                f"the session folder {run.session} is missing or not readable and writable",
                details={"missing_fields": [], "validation_errors": [f"session_path: {run.session} is not accessible"]},
                hint="pass the session folder the swarm wrote (--session DIR)",
            )
        )
    report = validate_payload(run.payload, host)
    if not report.valid:
        raise run.fail(report.to_error(target=options.target))
    if options.target in chain and not ask(loop_message(options.target, chain)):
        raise run.fail(
            SwarmError(
                ErrorCode.VALIDATION_FAILED,
                f"hand-off to {options.target} refused: it is already in the chain and was not confirmed",
                details={
                    "missing_fields": [],
                    "validation_errors": [f"handoff.target.skill: {options.target} is already in the chain"],
                    "target_skill": options.target,
                },
                hint="answer y at the prompt, or pass --yes when there is no terminal",
            )
        )
    health = None
    if options.health_check:
        if record.health_check:
            folder = Path(record.path).parent if record.path else None
            health = run_health_check(record.health_check, cwd=folder)
            if not health.ok:
                raise run.fail(health_error(options.target, health, None))
        else:
            notes.append(f"{options.target} declares no health_check; nothing to run")
    return _write(run, record, report.warnings, notes, side_files, health)


def _write(
    run: _Run,
    record: SkillRecord,
    warnings: tuple[Problem, ...],
    notes: list[str],
    side_files: tuple[tuple[Path, Any], ...],
    health: HealthResult | None,
) -> HandoffResult:
    payload = run.payload
    handoff = payload["handoff"]
    kept = None
    try:
        if run.options.schema == "2.0":
            path = run.session / FILE_NAME
            kept_path = keep_earlier(path)
            kept = str(kept_path) if kept_path else None
        else:
            moment = dt.datetime.strptime(handoff["timestamp"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc)
            path = unique_path(v3_path(run.session, handoff["source"]["skill"], record.name, moment))
        for side_path, content in side_files:
            write_atomic(side_path, dump_payload(content, side_path))
        write_atomic(path, dump_payload(payload, path))
    except OSError as exc:
        raise run.fail(
            SwarmError(
                ErrorCode.VALIDATION_FAILED,
                f"cannot write the payload into {run.session}: {exc.strerror or exc}",
                details={"missing_fields": [], "validation_errors": [str(exc)]},
                hint="check the session folder's permissions and free space",
            )
        ) from None
    history_id, history_warnings = _record(run, path)
    integrity = check_integrity(payload)
    return HandoffResult(
        target=record.name,
        version=run.options.schema,
        payload_path=str(path),
        invocation=substitute(record, path),
        payload_hash=integrity.computed_hash,
        payload_size_bytes=integrity.computed_size,
        kept_earlier=kept,
        side_files=tuple(str(p) for p, _ in side_files),
        notes=tuple(notes),
        warnings=(*warnings, *history_warnings),
        health_check=health,
        history_id=history_id,
    )


def _record(run: _Run, path: Path, *, status: str = "written") -> tuple[int | None, tuple[Problem, ...]]:
    """Record the hand-off; a history that cannot be written warns but never undoes the hand-off."""
    import sqlite3

    from swarm_handoff.history import HISTORY_UNAVAILABLE, open_history

    try:
        with open_history(run.config) as history:
            return history.record(path, run.payload, status=status), history.problems
    except (SwarmError, sqlite3.Error, OSError) as exc:
        message = exc.message if isinstance(exc, SwarmError) else f"{type(exc).__name__}: {exc}"
        warning = Problem(
            HISTORY_UNAVAILABLE, f"hand-off not recorded in the history: {message}", severity=Severity.WARNING
        )
        return None, (warning,)
