"""The payload a skill received, read as hostile input before a chain continues from it.

`swarm-handoff handoff TARGET --from RECEIVED --session DIR` reads the received payload first: size
and shape limits (the loader), every validator of its version, its integrity (hash and size, the
checksums of the files it references, any signature). Only a payload that passes all three is used,
and each refusal is a coded error naming the file; `continuation.py` then builds the next payload.
The record both work on (`Received`, its refusals, a payload's span id) is in `received_record.py`.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from swarm_handoff.errors import Problem, Severity, SwarmError
from swarm_handoff.payload.integrity import examine, untrusted_hint
from swarm_handoff.payload.names import switched_off
from swarm_handoff.payload.received_record import (
    RECEIVED_EXPIRED,
    RECEIVED_INVALID,
    RECEIVED_NOT_FOR_SOURCE,
    RECEIVED_TAMPERED,
    RECEIVED_UNSEALED,
    RECEIVED_UNSIGNED,
    Received,
    refuse,
    section,
    span_id,
)
from swarm_handoff.payload.schema import parse_time
from swarm_handoff.payload.signing import ABSENT
from swarm_handoff.payload.unsigned import unsigned_hops, unsigned_refusal
from swarm_handoff.payload.v2 import DEFAULT_TTL, stamp
from swarm_handoff.payload.validate import read_payload, validate_payload
from swarm_handoff.plugins import PluginHost
from swarm_handoff.termsafe import quoted


def load_received(
    path: Path,
    host: PluginHost,
    config: Path,
    now: dt.datetime,
    *,
    require_signature: bool = False,
    option: str = "--require-signature",
) -> Received:
    """Load and check the received payload (limits, validators, integrity); refuse it with a coded error.

    `require_signature` refuses a payload without a valid signature, or one whose chain already
    went through an unsigned hop (`unsigned.py`); `option` is that requirement as the caller spells it.
    """
    text, payload = read_payload(path)  # INVALID_PAYLOAD naming the file: too large, too deep, not YAML/JSON
    report = validate_payload(payload, host, path=str(path))
    if not report.valid:
        messages = [p.message for p in report.errors]
        raise refuse(
            RECEIVED_INVALID,
            path,
            f"it is not a valid payload ({len(messages)} problem(s): {'; '.join(messages)[:400]})",
            f"run `swarm-handoff validate {path}`; ask the sender to hand off again",
            messages,
        )
    findings = examine(payload, path, config, text=text)
    if findings.status == "absent":
        raise refuse(
            RECEIVED_UNSEALED,
            path,
            "it states no meta.payload_hash and meta.payload_size_bytes, so nothing says it is what was sent",
            "ask the sender to hand off with `swarm-handoff handoff`, which seals every payload",
        )
    if findings.problems:
        raise refuse(
            RECEIVED_TAMPERED,
            path,
            "it fails its integrity check: " + "; ".join(findings.problems),
            untrusted_hint(findings, f"run `swarm-handoff verify {path}` and ask for it again"),
            findings.problems,
        )
    earlier = unsigned_hops(payload)
    refusal = unsigned_refusal(findings.signature.status, earlier, "it")
    if require_signature and refusal is not None:
        raise refuse(
            RECEIVED_UNSIGNED,
            path,
            refusal[1],
            "ask the sender to hand off again with --sign; to continue anyway, pass "
            f"{switched_off(option)} (the next payload then records this hop as unsigned)",
        )
    handoff = payload["handoff"]
    warnings: list[Problem] = []
    created, expires = parse_time(handoff.get("timestamp")), parse_time(handoff.get("expires_at"))
    expires = expires or (created + DEFAULT_TTL if created is not None else None)
    if expires is not None and expires <= now:
        warnings.append(
            Problem(
                RECEIVED_EXPIRED,
                f"{path} expired at {stamp(expires)}; continuing from it anyway (its expiry bounds the hand-off, "
                "not the work done since)",
                path=str(path),
                hint="check that its content is still current",
                severity=Severity.WARNING,
            )
        )
    if findings.signature.status == ABSENT:
        warnings.append(
            Problem(
                RECEIVED_UNSIGNED,
                f"{path} has no signature; continuing from it, and the next payload records this hop as unsigned "
                "(tracing.tags.unsigned_hops, or meta.unsigned_hops in v2.0)",
                path=str(path),
                hint="ask the sender to hand off with --sign, and require signatures with --require-signature",
                severity=Severity.WARNING,
            )
        )
    chain = section(handoff, "meta").get("handoff_chain")
    source = section(handoff, "source").get("skill")
    return Received(
        path=path,
        payload=payload,
        version=str(report.version),
        skill=str(section(handoff, "target")["skill"]),
        chain=tuple(chain) if isinstance(chain, list) and chain else (str(source),),
        span=span_id(payload) or "",
        problem_type=str(section(handoff, "context").get("problem_type", "")),
        warnings=tuple(warnings),
        signature=findings.signature.status,
        unsigned_hops=earlier,
    )


def continuing_source(received: Received, given: str | None, option: str = "--source") -> str:
    """The skill that continues: the received payload's target; a different `--source` (`option`) is refused."""
    if given is not None and given != received.skill:
        raise refuse(
            RECEIVED_NOT_FOR_SOURCE,
            received.path,
            f"it was handed to {received.skill}, not to {given}",
            f"drop {option} (it defaults to {received.skill}, the received payload's target)",
        )
    return received.skill


def unsafe_source(received: Received, source: str) -> SwarmError:
    """The continuing skill's name (the received target) would become part of a file name: refuse it."""
    return refuse(
        "UNSAFE_NAME",
        received.path,
        f"its target.skill {quoted(source)} cannot be part of a file name",
        "ask the sender to hand off to a skill named with letters, digits, '.', '_' and '-'",
    )
