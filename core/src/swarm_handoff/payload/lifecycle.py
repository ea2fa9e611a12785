"""The hand-off lifecycle: find the target, build, validate, confirm, check health, write, record.

Every step that can fail after the payload is built preserves it first (in the session folder, or
under the config folder when the session is not writable) and names the file in the error, so no
work is lost: the user fixes the cause and hands the preserved payload over by hand, or retries.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import difflib
import errno
import os
import re
import shlex
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import attrs

from swarm_handoff import safefs
from swarm_handoff.discovery import discover, make_context
from swarm_handoff.errors import ErrorCode, Problem, Severity, SwarmError, UsageError
from swarm_handoff.handoff_edges import incoming_from
from swarm_handoff.payload import targeting
from swarm_handoff.payload.build3 import PayloadTooLarge, build_v3, file_stamp, v3_path
from swarm_handoff.payload.canonical import check_integrity, seal
from swarm_handoff.payload.health import HealthResult, declared_env, health_error, run_health_check
from swarm_handoff.payload.io import dump_payload, write_new
from swarm_handoff.payload.v2 import FILE_NAME, SOURCE_SKILL, build_v2, invocation_for, utc_now
from swarm_handoff.payload.v3 import CHAIN_APPROVAL_AFTER
from swarm_handoff.payload.validate import validate_payload
from swarm_handoff.plugins import PluginHost, get_host
from swarm_handoff.records import DiscoveryContext, SkillRecord
from swarm_handoff.synthesis import load_synthesis
from swarm_handoff.undeclared import OPTION as UNDECLARED_OPTION
from swarm_handoff.undeclared import is_undeclared, named_undeclared
from swarm_handoff.undeclared import override_record as undeclared_override

SCHEMAS = ("2.0", "3.0")
Confirm = Callable[[str], bool]
# A name that becomes part of a file name: no separator, no `.`/`..`, no leading dot or dash.
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")
UNSAFE_NAME = "UNSAFE_NAME"  # a skill's name cannot be part of a file name
SESSION_WRITABLE_BY_OTHERS = "SESSION_WRITABLE_BY_OTHERS"  # warning: others may plant or swap files there


@attrs.frozen(kw_only=True)
class HandoffOptions:
    """What the user asked for: the target, the inputs, and the optional parts of the payload."""

    target: str
    synthesis: Path
    session: Path
    schema: str | None = None  # None: the target's schema version decides (docs/payloads.md)
    source: str | None = None
    reason: str = ""
    feedback: str | None = None
    chain: tuple[str, ...] = ()
    health_check: bool = False
    sign: bool = False
    override_accepts_from: bool = False  # hand off although the target does not accept the source
    allow_undeclared: bool = False  # hand off to a skill that declares no hand-off metadata (recorded)


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
    dropped: tuple[str, ...] = ()
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
            "dropped": list(self.dropped),
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


def _not_found(target: str, found: list[str], ineligible: list[str], undeclared: bool = False) -> SwarmError:
    close = difflib.get_close_matches(target, found, n=3, cutoff=0.6)
    if undeclared:
        hint = (
            f"{target} declares no hand-off metadata: hand off anyway with {UNDECLARED_OPTION} (recorded in the "
            f"payload and the history), or make it a target (swarm-handoff adopt {target})"
        )
    elif target in ineligible:
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


def check_name(value: str, option: str) -> None:
    """Refuse an option value that would become part of a file name but could leave its folder."""
    if not SAFE_NAME.match(value):
        raise UsageError(
            f"{option} {value!r} cannot be part of a file name",
            hint="use letters, digits, '.', '_' and '-', starting with a letter or digit (at most 128)",
            option=option,
            value=value,
        )


def check_session(session: str | os.PathLike[str]) -> None:
    """Refuse a `--session` that names no folder of its own: an empty value or the root of the disk."""
    text = os.fspath(session)
    if not text.strip():
        raise UsageError(
            "--session is empty", hint="pass the session folder the swarm wrote (--session DIR)", option="--session"
        )
    resolved = Path(text).expanduser().resolve()
    if resolved == Path(resolved.anchor):
        raise UsageError(
            f"--session {text!r} is the root folder {resolved}; payloads are never written there",
            hint="pass the session folder the swarm wrote (--session DIR)",
            option="--session",
            value=text,
        )


def session_warnings(session: Path) -> tuple[Problem, ...]:
    """Warn when people other than the user can write into the session (and so swap or plant files)."""
    try:
        mode = session.stat().st_mode
    except OSError:
        return ()
    who = [name for bit, name in ((stat.S_IWGRP, "its group"), (stat.S_IWOTH, "everyone")) if mode & bit]
    if not who:
        return ()
    return (
        Problem(
            SESSION_WRITABLE_BY_OTHERS,
            f"the session folder {session} can be written by {' and '.join(who)} (mode {stat.S_IMODE(mode):o}); "
            "others could replace or plant files the target will read",
            path=str(session),
            hint=f"chmod go-w {session}, or use a session folder of your own",
            severity=Severity.WARNING,
        ),
    )


def preserve(payload: Any, session: Path, version: str, env_config: Path) -> str | None:
    """Keep a payload that could not be handed off, in the session folder or else the config folder."""
    suffix = ".yaml" if version == "2.0" else ".json"
    name = f"handoff-payload.failed-{file_stamp(utc_now())}{suffix}"
    for folder in (session, env_config / "swarm-handoff" / "preserved"):
        try:
            if folder == session and not folder.is_dir():
                continue
            return str(write_new(folder / name, dump_payload(payload, folder / name)))  # its own name, always
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
        self.version = options.schema or "3.0"  # until the target's version is known

    def fail(self, error: SwarmError) -> SwarmError:
        """Preserve the payload (when there is one) and name it in `error`."""
        if self.payload is not None and error.payload_preserved is None:
            kept = preserve(self.payload, self.session, self.version, self.config)
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
    """Hand off to `options.target`; `confirm(message)` answers the loop and long-chain questions.

    Whatever goes wrong once the payload is built (a plugin's bug, MemoryError, Ctrl-C) goes
    through `run.fail`, so the payload is preserved on every failure path, not only the foreseen ones.
    """
    context = context or make_context()
    run = _Run(options, context)
    try:
        return _hand_off(run, options, host or get_host(), context, confirm, now)
    except SwarmError as error:
        raise _fail_safely(run, error) from None
    except Exception as exc:  # MemoryError included: a coded error with the payload kept, never a traceback
        raise _fail_safely(run, _unexpected(exc)) from exc
    except BaseException:  # Ctrl-C or exit: keep the payload, then let the interruption go on
        _fail_safely(run, _unexpected(None))
        raise


HANDOFF_FAILED = "HANDOFF_FAILED"


def _unexpected(exc: BaseException | None) -> SwarmError:
    what = "interrupted" if exc is None else f"unexpected {type(exc).__name__}: {exc}"[:500]
    return SwarmError(
        HANDOFF_FAILED,
        f"the hand-off failed: {what}",
        hint="the payload is kept (see payload_preserved); hand it over by hand or retry, and report the error",
    )


def _fail_safely(run: _Run, error: SwarmError) -> SwarmError:
    """`run.fail(error)`, but a failure to preserve is said in the error, never raised over it."""
    try:
        return run.fail(error)
    except Exception as exc:
        error.message += f" (the payload could not be preserved: {type(exc).__name__}: {exc})"[:500]
        return error


def _hand_off(
    run: _Run,
    options: HandoffOptions,
    host: PluginHost,
    context: DiscoveryContext,
    confirm: Confirm | None,
    now: dt.datetime | None,
) -> HandoffResult:
    ask: Confirm = confirm or (lambda _message: False)
    if options.schema is not None and options.schema not in SCHEMAS:
        raise UsageError(f"unknown schema {options.schema!r}", hint="use --schema 2.0 or --schema 3.0")
    if options.schema == "2.0" and options.source not in (None, SOURCE_SKILL):
        raise UsageError("--source is for v3.0 payloads; v2.0 payloads always come from perspective-swarm")
    if options.source is not None:
        check_name(options.source, "--source")  # it becomes part of the v3.0 file name
    check_session(options.session)
    synthesis = load_synthesis(options.synthesis)
    found = discover(context, host)
    record = found.named(options.target)
    undeclared = named_undeclared(found, options.target) if record is None else None
    if record is None and undeclared is not None and options.allow_undeclared:
        record = undeclared
    if record is None:
        names = [r.name for r in found.workflows]
        raise _not_found(options.target, names, [r.name for r in found.ineligible], undeclared is not None)
    source = options.source or SOURCE_SKILL
    override = targeting.check_source(record, source, override=options.override_accepts_from)
    choice = targeting.choose_version(
        record,
        forced=options.schema,
        source_is_v3=source != SOURCE_SKILL,
        problem_type=synthesis.problem_type,
        synthesis_path=synthesis.source_path,
    )
    run.version = version = choice.version
    build_v3_first = version == "3.0" or choice.downconvert
    if build_v3_first and not SAFE_NAME.match(record.name):
        raise SwarmError(
            UNSAFE_NAME,
            f"the skill name {record.name!r} cannot be part of a file name, so no v3.0 payload is written for it",
            details={"target_skill": record.name, "skill_path": record.path},
            hint="rename the skill (letters, digits, '.', '_' and '-'), or hand off with --schema 2.0",
        )
    chain = options.chain or (source,)
    moment = now or utc_now()
    notes: list[str] = []
    side_files: tuple[tuple[Path, Any], ...] = ()
    dropped: tuple[str, ...] = ()
    try:
        if not build_v3_first:
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
    if choice.downconvert:
        run.payload, dropped = _downconvert(run.payload)
        notes.append(f"down-converted from v3.0 for {record.name} (reads {version}): dropped {len(dropped)} field(s)")
        side_files = ()  # v2.0 carries no references, so no side file is written
    if override is not None:  # said in the payload, so the target and the history both see it
        run.payload["handoff"].setdefault("meta", {})["eligibility_override"] = override
        run.payload = seal(run.payload)
        notes.append(f"{source} is not in {record.name}'s accepts_from; handed off with {override['option']}")
    if is_undeclared(record):  # said in the payload, so the target and the history both see it
        run.payload["handoff"].setdefault("meta", {})["eligibility_override"] = undeclared_override(source)
        run.payload = seal(run.payload)
        notes.append(f"{record.name} declares no hand-off metadata; handed off with {UNDECLARED_OPTION}")
    named = incoming_from(record, source)  # the source's `handoffs:` entry: its prompt travels with the work
    if named is not None:
        run.payload["handoff"].setdefault("meta", {})["handoff_prompt"] = named
        run.payload = seal(run.payload)
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
    missing, optional = targeting.requirements(record, run.payload)
    if missing:
        raise run.fail(targeting.requirements_error(record, missing, version))
    notes.extend(optional)
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
            health = run_health_check(record.health_check, cwd=folder, env_names=declared_env(record.meta))
            if not health.ok:
                raise run.fail(health_error(options.target, health, None))
        else:
            notes.append(f"{options.target} declares no health_check; nothing to run")
    warnings = (*choice.warnings, *report.warnings)
    return _write(run, record, warnings, notes, side_files, health, dropped)


def _write(
    run: _Run,
    record: SkillRecord,
    warnings: tuple[Problem, ...],
    notes: list[str],
    side_files: tuple[tuple[Path, Any], ...],
    health: HealthResult | None,
    dropped: tuple[str, ...] = (),
) -> HandoffResult:
    payload = run.payload
    handoff = payload["handoff"]
    warnings = (*warnings, *session_warnings(run.session))
    try:
        if run.version == "2.0":
            wanted = run.session / FILE_NAME
        else:
            moment = dt.datetime.strptime(handoff["timestamp"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc)
            wanted = v3_path(run.session, handoff["source"]["skill"], record.name, moment)
            _own_folder(wanted.parent)
        for side_path, content in side_files:
            _own_folder(side_path.parent)
            if not safefs.create_new(side_path, dump_payload(content, side_path).encode("utf-8")):
                raise FileExistsError(errno.EEXIST, "a file of that name is already there", str(side_path))
        # Each run gets a name of its own (`handoff-payload.yaml`, then `handoff-payload-2.yaml`, ...):
        # a path once reported is never moved or replaced, so the invocation printed stays true.
        path = write_new(wanted, dump_payload(payload, wanted))
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        raise run.fail(
            SwarmError(
                ErrorCode.VALIDATION_FAILED,
                f"cannot write the payload into {run.session}: {exc.strerror or exc}{where}",
                details={"missing_fields": [], "validation_errors": [str(exc)]},
                hint="check the session folder's permissions and free space",
            )
        ) from None
    history_id, history_warnings = _record(run, path)
    integrity = check_integrity(payload)
    return HandoffResult(
        target=record.name,
        version=run.version,
        payload_path=str(path),
        invocation=substitute(record, path),
        payload_hash=integrity.computed_hash,
        payload_size_bytes=integrity.computed_size,
        dropped=dropped,
        kept_earlier=None,  # nothing is moved aside any more; kept in the document for its readers
        side_files=tuple(str(p) for p, _ in side_files),
        notes=tuple(notes),
        warnings=(*warnings, *history_warnings),
        health_check=health,
        history_id=history_id,
    )


def _downconvert(payload: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """Turn the built v3.0 payload into v2.0 with the registered adapter, marked as converted."""
    from swarm_handoff.payload.adapters import Downgrade

    result = Downgrade().convert(payload)
    converted = result.payload
    converted["handoff"].setdefault("meta", {})["converted_from"] = "3.0"
    return seal(converted), result.dropped


def _own_folder(folder: Path) -> None:
    """Make a folder the tool owns inside the session; refuse one that is a symlink (it could lead anywhere)."""
    with contextlib.suppress(FileExistsError):
        folder.mkdir()
    if folder.is_symlink() or not folder.is_dir():
        why = "not a folder of its own (a symlink or a file is in its place)"
        raise NotADirectoryError(errno.ENOTDIR, why, str(folder))


def _record(run: _Run, path: Path, *, status: str = "written") -> tuple[int | None, tuple[Problem, ...]]:
    """Record the hand-off; a history that cannot be written warns but never undoes the hand-off."""
    import sqlite3

    from swarm_handoff.history import HISTORY_UNAVAILABLE, open_history

    try:
        with open_history(run.config) as history:
            return history.record(path, run.payload, status=status), history.problems
    except (SwarmError, sqlite3.Error, OSError) as exc:
        message = exc.message if isinstance(exc, SwarmError) else f"{type(exc).__name__}: {exc}"
        code = exc.code if isinstance(exc, SwarmError) else HISTORY_UNAVAILABLE  # HISTORY_BUSY stays itself
        warning = Problem(code, f"hand-off not recorded in the history: {message}", severity=Severity.WARNING)
        return None, (warning,)
