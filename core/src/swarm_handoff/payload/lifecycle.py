"""The hand-off lifecycle: find the target, build, validate, confirm, check health, write, record.

Every step that can fail after the payload is built preserves it first (in the session folder, or
under the config folder when the session is not writable) and names the file in the error, so no
work is lost: the user fixes the cause and hands the preserved payload over by hand, or retries.
What was asked and the run that preserves the payload on any failure are `handoff_run.py`'s; the
last step (writing the payload and its side files, and recording it) is `handoff_write.py`'s.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from swarm_handoff import tracing
from swarm_handoff.discovery import discover, make_context
from swarm_handoff.eligibility import accepted_sources, accepts
from swarm_handoff.errors import ErrorCode, SwarmError, UsageError
from swarm_handoff.handoff_edges import incoming_from
from swarm_handoff.inputs import Spelling, given, handoff_spelling, ref, spell_error, spell_problem, switched_on
from swarm_handoff.operations import CLI
from swarm_handoff.payload import continuation, targeting
from swarm_handoff.payload.adapters import Downgrade
from swarm_handoff.payload.build3 import PayloadTooLarge, build_v3, too_large_hint
from swarm_handoff.payload.canonical import seal
from swarm_handoff.payload.handoff_checks import SAFE_NAME as SAFE_NAME
from swarm_handoff.payload.handoff_checks import SESSION_WRITABLE_BY_OTHERS as SESSION_WRITABLE_BY_OTHERS
from swarm_handoff.payload.handoff_checks import UNSAFE_NAME as UNSAFE_NAME
from swarm_handoff.payload.handoff_checks import by_frontmatter_name, gone_target, not_found, remote_host, remote_note
from swarm_handoff.payload.handoff_checks import check_name as check_name
from swarm_handoff.payload.handoff_checks import check_session as check_session
from swarm_handoff.payload.handoff_checks import loop_message as loop_message
from swarm_handoff.payload.handoff_checks import session_warnings as session_warnings
from swarm_handoff.payload.handoff_checks import substitute as substitute
from swarm_handoff.payload.handoff_run import HANDOFF_FAILED as HANDOFF_FAILED
from swarm_handoff.payload.handoff_run import HandoffOptions as HandoffOptions
from swarm_handoff.payload.handoff_run import HandoffRun, fail_safely, unexpected
from swarm_handoff.payload.handoff_run import preserve as preserve
from swarm_handoff.payload.handoff_write import HandoffResult as HandoffResult
from swarm_handoff.payload.handoff_write import write_payload
from swarm_handoff.payload.health import declared_env, health_error, run_health_check
from swarm_handoff.payload.received import continuing_source, load_received, unsafe_source
from swarm_handoff.payload.signing import sign
from swarm_handoff.payload.unsigned import carried_over, signature_required
from swarm_handoff.payload.v2 import SOURCE_SKILL, build_v2, stamp, utc_now
from swarm_handoff.payload.v3 import CHAIN_APPROVAL_AFTER, REENTRY_NEEDS_REASON
from swarm_handoff.payload.validate import validate_payload
from swarm_handoff.plugins import PluginHost, get_host
from swarm_handoff.records import DiscoveryContext, SkillRecord
from swarm_handoff.skill_keys import in_chain
from swarm_handoff.synthesis import load_synthesis
from swarm_handoff.termsafe import quoted
from swarm_handoff.tracing import TRACEPARENT_ENV
from swarm_handoff.undeclared import is_undeclared, named_undeclared
from swarm_handoff.undeclared import override_record as undeclared_override

SCHEMAS = ("2.0", "3.0")
Confirm = Callable[[str], bool]


# How long a payload may stay valid: a hand-off is short-lived work, but a review may wait out a holiday.
MAX_EXPIRES_IN = dt.timedelta(days=30)


def hand_off(
    options: HandoffOptions,
    *,
    host: PluginHost | None = None,
    context: DiscoveryContext | None = None,
    confirm: Confirm | None = None,
    now: dt.datetime | None = None,
    surface: str = CLI,
    remote: SkillRecord | None = None,
) -> HandoffResult:
    """Hand off to `options.target`; `confirm(message)` answers the loop and long-chain questions.

    `remote` is the target as another host's card describes it (`handoff --to`,
    `transport.remote_target`): the payload is built for it, and no skill here is looked up.

    Refusals name inputs by neutral name (`inputs.py`); they leave here spelt as `surface` spells
    them (the operations table's `cli` or `mcp` spelling), with the neutral names in
    `details["inputs"]`. The payload and the history record an override as that surface spells it.

    Whatever goes wrong once the payload is built (a plugin's bug, MemoryError, Ctrl-C) goes
    through `run.fail`, so the payload is preserved on every failure path, not only the foreseen ones.
    """
    context = context or make_context()
    run = HandoffRun(options, context)
    spelling = handoff_spelling(surface)
    caller = tracing.trace_context(context.env)  # the caller's trace context, before this hand-off's span starts
    attributes = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": options.target}
    with tracing.trace_span("swarm_handoff.handoff", attributes, env=context.env):
        try:
            result = _hand_off(run, options, host or get_host(), context, confirm, now, spelling, caller, remote)
        except SwarmError as error:
            raise fail_safely(run, spell_error(error, spelling)) from None
        except Exception as exc:  # MemoryError included: a coded error with the payload kept, never a traceback
            raise fail_safely(run, unexpected(exc)) from exc
        except BaseException:  # Ctrl-C or exit: keep the payload, then let the interruption go on
            fail_safely(run, unexpected(None))
            raise
        chain = {"gen_ai.conversation.id": result.trace_id, "swarm_handoff.payload_hash": result.payload_hash}
        tracing.annotate({k: v for k, v in chain.items() if v})
        return result


def _target(options: HandoffOptions, context: DiscoveryContext, host: PluginHost) -> tuple[SkillRecord, str | None]:
    """The target record discovered here, and a note when it was found by its frontmatter name."""
    found = discover(context, host)
    record = found.named(options.target)
    alias_note = None
    if record is None:  # a skill's frontmatter `name:` where it differs from its folder, as `why` takes it
        record, alias_note = by_frontmatter_name(found.workflows, options.target)
    undeclared = named_undeclared(found, options.target) if record is None else None
    if record is None and undeclared is not None and options.allow_undeclared:
        record = undeclared
    if record is None:
        raise not_found(
            options.target, [r.name for r in found.workflows], list(found.ineligible), undeclared is not None
        )
    return record, alias_note


def _check_remote(options: HandoffOptions, record: SkillRecord, source: str) -> None:
    """What a hand-off to another host cannot do: run the target's health check here, be v2.0, override its policy."""
    where = record.meta.get("remote")
    if options.health_check:
        raise UsageError(
            f"{ref('health_check')}: {record.name} runs on {where}; its health_check runs there",
            hint=f"hand off without {ref('health_check')}, and run the check on that host",
            option=ref("health_check"),
        )
    if options.schema not in (None, "3.0"):
        raise UsageError(
            f"{ref('schema')} {options.schema}: a hand-off to another host is a v3.0 payload",
            hint=f"drop {ref('schema')}, or pass {given('schema', '3.0')}",
            option=ref("schema"),
        )
    if not accepts(record, source):  # the host refuses it, whatever the sender overrides
        allowed = ", ".join(accepted_sources(record)) or "nobody"
        raise SwarmError(
            targeting.SOURCE_NOT_ACCEPTED,
            f"{record.name} at {where} does not accept hand-offs from {source}; it accepts from: {allowed}",
            details={"target_skill": record.name, "source": source, "remote": where},
            hint=f"hand off from one of {allowed} ({ref('source')}): the host at {where} checks accepts_from "
            f"itself and does not honour {ref('override_accepts_from')}",
            recoverable=True,
        )


def _check_expires_in(expires_in: dt.timedelta | None, option: str = "expires_in") -> None:
    """Refuse an expiry that is not in the future or is longer than MAX_EXPIRES_IN (`option`: neutral name)."""
    if expires_in is None:
        return
    if expires_in < dt.timedelta(seconds=1) or expires_in > MAX_EXPIRES_IN:
        raise UsageError(
            f"{ref(option)} must be between 1 second and {MAX_EXPIRES_IN.days} days, not {expires_in}",
            hint=f"for example {given(option, '3h')} or {given(option, '2d')}",
            option=ref(option),
        )


def _hand_off(
    run: HandoffRun,
    options: HandoffOptions,
    host: PluginHost,
    context: DiscoveryContext,
    confirm: Confirm | None,
    now: dt.datetime | None,
    spelling: Spelling,
    caller: Mapping[str, str],
    card_record: SkillRecord | None = None,
) -> HandoffResult:
    ask: Confirm = confirm or (lambda _message: False)
    if options.schema is not None and options.schema not in SCHEMAS:
        raise UsageError(
            f"unknown schema {options.schema!r}", hint=f"use {given('schema', '2.0')} or {given('schema', '3.0')}"
        )
    if options.schema == "2.0" and options.source not in (None, SOURCE_SKILL):
        raise UsageError(f"{ref('source')} is for v3.0 payloads; v2.0 payloads always come from perspective-swarm")
    if options.source is not None:
        check_name(options.source, ref("source"))  # it becomes part of the v3.0 file name
    check_session(options.session)
    _check_expires_in(options.expires_in)
    if options.synthesis is None and options.received is None:
        raise UsageError(
            f"give {given('synthesis', 'FILE')}, or {given('received', 'PAYLOAD')} to continue the chain "
            "of a received payload"
        )
    moment = now or utc_now()
    received = None
    if options.received is not None:  # checked before anything else is read: it is someone else's file
        required = signature_required(context.config_dir, options.require_signature)
        received = load_received(
            options.received,
            host,
            context.config_dir,
            moment,
            require_signature=required,
            option=spelling.spell("require_signature"),  # received.py speaks the caller's spelling
        )
    given_synthesis = options.synthesis
    synthesis = load_synthesis(given_synthesis) if isinstance(given_synthesis, (str, Path)) else given_synthesis
    record, alias_note = (card_record, None) if card_record is not None else _target(options, context, host)
    gone = gone_target(record)
    if gone is not None:
        raise gone
    target = record.name  # the folder name: what discovery, the payload and the history use
    if received is not None:
        source = continuing_source(received, options.source, ref("source"))
        if not SAFE_NAME.match(source):
            raise unsafe_source(received, source)
    else:
        source = options.source or SOURCE_SKILL
    if card_record is not None:
        _check_remote(options, record, source)
    override = targeting.check_source(
        record, source, override=options.override_accepts_from, option=spelling.spell("override_accepts_from")
    )
    choice = targeting.choose_version(
        record,
        forced=options.schema,
        source_is_v3=received.version == "3.0" if received is not None else source != SOURCE_SKILL,
        problem_type=synthesis.problem_type if synthesis is not None else received.problem_type if received else "",
        synthesis_path=synthesis.source_path if synthesis is not None else str(options.received),
    )
    choice = attrs.evolve(choice, warnings=tuple(spell_problem(p, spelling) for p in choice.warnings))
    if received is not None and received.version == "3.0" and choice.version == "2.0":
        choice = attrs.evolve(choice, downconvert=True)  # a forced 2.0 from a 3.0 chain: built, then converted
    run.version = version = choice.version
    build_v3_first = version == "3.0" or choice.downconvert
    if build_v3_first and not SAFE_NAME.match(record.name):
        raise SwarmError(
            UNSAFE_NAME,
            f"the skill name {quoted(record.name)} cannot be part of a file name, so no v3.0 payload is written for it",
            details={"target_skill": record.name, "skill_path": record.path},
            hint=f"rename the skill (letters, digits, '.', '_' and '-'), or hand off with {given('schema', '2.0')}",
        )
    chain = options.chain or (source,)
    if build_v3_first and chain[-1] != source:  # the skill handing off appends itself (v3-rules)
        chain = (*chain, source)
    notes: list[str] = [alias_note] if alias_note else []  # kept ahead of what the builder notes
    remote = remote_host(record)
    if remote is not None:
        if options.health_check:  # asked for, but the check is a command on the other machine
            raise UsageError(
                f"{ref('health_check')}: {target} is a remote workflow on {remote}; its health_check runs there",
                hint=f"hand off without {ref('health_check')}, and run the check on {remote}",
                option=ref("health_check"),
            )
        notes.append(remote_note(record, remote))
    side_files: tuple[tuple[Path, Any], ...] = ()
    dropped: tuple[str, ...] = ()
    try:
        if received is not None:
            chain = continuation.continued_chain(received, source)
            hop = continuation.Hop(
                record=record,
                session=run.session,
                source=source,
                chain=chain,
                moment=moment,
                reason=options.reason,
                feedback=options.feedback,
                approved=continuation.check_loop_rules(chain, record.name, source, options.reason, ask),
            )
            built = continuation.next_payload(received, hop, "3.0" if build_v3_first else "2.0", synthesis)
            run.payload, side_files, notes = built.payload, built.side_files, [*notes, *built.notes]
        elif synthesis is None:
            raise UsageError(f"{ref('synthesis')} is required without {ref('received')}")
        elif not build_v3_first:
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
            run.payload, side_files, notes = built.payload, built.side_files, [*notes, *built.notes]
    except PayloadTooLarge as exc:
        run.payload = exc.payload
        exc.hint = too_large_hint(given("schema", "2.0"))
        raise run.fail(exc) from None
    if choice.downconvert:
        run.payload, dropped, rewritten = _downconvert(run.payload)
        notes.append(f"down-converted from v3.0 for {record.name} (reads {version}): dropped {len(dropped)} field(s)")
        notes.extend(rewritten)
        side_files = ()  # v2.0 carries no references, so no side file is written
    if options.expires_in is not None:  # the caller's expiry instead of the one-hour default
        run.payload["handoff"]["expires_at"] = stamp(moment + options.expires_in)
        run.payload = seal(run.payload)
    if override is not None:  # said in the payload, so the target and the history both see it
        run.payload["handoff"].setdefault("meta", {})["eligibility_override"] = override
        run.payload = seal(run.payload)
        notes.append(f"{source} is not in {record.name}'s accepts_from; handed off with {override['option']}")
    if is_undeclared(record):  # said in the payload, so the target and the history both see it
        override_record = undeclared_override(source, spelling.spell("allow_undeclared"))
        run.payload["handoff"].setdefault("meta", {})["eligibility_override"] = override_record
        run.payload = seal(run.payload)
        notes.append(
            f"{record.name} declares no hand-off metadata; handed off with {spelling.spell('allow_undeclared')}"
        )
    named = incoming_from(record, source)  # the source's `handoffs:` entry: its prompt travels with the work
    if named is not None:
        run.payload["handoff"].setdefault("meta", {})["handoff_prompt"] = named
        run.payload = seal(run.payload)
    # The caller's trace context (`tracing.trace_context`: the current span's, as the MCP server has it from a
    # tool call's `_meta`, else TRACEPARENT/TRACESTATE, OpenTelemetry's carriers to a child process)
    # travels with the work in a v3.0 payload's `tracing.tags`, sealed and signed: one trace follows it.
    if caller and version == "3.0":
        if tracing.TRACEPARENT.match(caller["traceparent"]):
            run.payload["handoff"].setdefault("tracing", {}).setdefault("tags", {}).update(caller)
            run.payload = seal(run.payload)
        else:
            notes.append(f"{TRACEPARENT_ENV} is not a W3C traceparent; not recorded in the payload")
    if options.sign:
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
                hint=f"pass the session folder the swarm wrote ({given('session', 'DIR')})",
            )
        )
    report = validate_payload(run.payload, host)
    if not report.valid:
        error = report.to_error(target=target)
        if [p.code for p in report.errors] == [REENTRY_NEEDS_REASON]:  # the input, as the caller spells it
            error.hint = f"say why the work goes back to it ({ref('reason')})"
        raise run.fail(error)
    missing, optional = targeting.requirements(record, run.payload)
    if missing:
        raise run.fail(targeting.requirements_error(record, missing, version))
    notes.extend(optional)
    if in_chain(target, chain) and not ask(loop_message(target, chain)):
        raise run.fail(
            SwarmError(
                ErrorCode.VALIDATION_FAILED,
                f"hand-off to {target} refused: it is already in the chain and was not confirmed",
                details={
                    "missing_fields": [],
                    "validation_errors": [f"handoff.target.skill: {target} is already in the chain"],
                    "target_skill": target,
                    "override": "confirm",
                },
                hint=f"answer y at the prompt, or pass {switched_on('confirm')} when there is no terminal",
            )
        )
    health = None
    if options.health_check:
        if record.health_check:
            folder = Path(record.path).parent if record.path else None
            health = run_health_check(record.health_check, cwd=folder, env_names=declared_env(record.meta))
            if not health.ok:
                raise run.fail(health_error(target, health, None, ref("health_check")))
        else:
            notes.append(f"{target} declares no health_check; nothing to run")
    warnings = (*(received.warnings if received else ()), *choice.warnings, *report.warnings)
    return write_payload(run, record, warnings, notes, side_files, health, dropped)


def _downconvert(payload: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...], tuple[str, ...]]:
    """Turn the built v3.0 payload into v2.0 with the adapter (which marks it converted): payload, dropped, notes."""
    result = Downgrade().convert(payload)
    return carried_over(payload, seal(result.payload)), result.dropped, result.notes
