"""Continue a chain: the payload a skill received becomes the start of the one it hands on.

`swarm-handoff handoff TARGET --from RECEIVED --session DIR` first reads the received payload as
hostile input (`received.py`: every check, each refusal a coded error naming the file); what comes
out is a `Received` (`received_record.py`), and this module builds on that record alone.

The next payload then carries on from it. The chain is the received chain plus the continuing skill
(the received payload's target), the context and tiers carry over (a `--synthesis` replaces them),
and v3.0 keeps the received `trace_id`, records the received payload's span as `parent_span_id` and
appends this hop's events (`received`, `processed`, `created`) to the received ones. A payload's span
id is the first 16 hex digits of its `payload_hash` (OpenTelemetry's span-id size): the v3.0 schema
has no span field, and the hash is what every reader of the file can recompute and what the history
already records, so a hop points at its parent without a new field.

A v2.0 payload continues as v2.0 (its `source` block, the swarm's session, stays: v2.0 knows only
`perspective-swarm` as a source, and the continuing skill is the chain's last entry), unless the
target reads 3.0: then its content is rebuilt as v3.0 with a trace id derived from it.
"""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from swarm_handoff.errors import SwarmError
from swarm_handoff.inputs import given, ref, switched_on
from swarm_handoff.payload.build3 import Built, draft_v3, fit_budget, side_path_for
from swarm_handoff.payload.canonical import seal, strip_integrity
from swarm_handoff.payload.integrity import locate
from swarm_handoff.payload.received_record import RECEIVED_INVALID, Received, refuse
from swarm_handoff.payload.received_record import section as _section
from swarm_handoff.payload.signing import ABSENT
from swarm_handoff.payload.unsigned import mark_unsigned
from swarm_handoff.payload.v2 import DEFAULT_TTL, build_v2, invocation_for, stamp, trace_id_for, workflow_id_for
from swarm_handoff.payload.v3 import (
    CHAIN_APPROVAL_AFTER,
    CHAIN_MAX,
    CHAIN_NEEDS_APPROVAL,
    CHAIN_TOO_LONG,
    REENTRY_NEEDS_REASON,
    SELF_HANDOFF,
)
from swarm_handoff.records import SkillRecord
from swarm_handoff.skill_keys import in_chain, same_skill
from swarm_handoff.synthesis import Synthesis, parse_synthesis

CONTINUED_PHASE = "Hand-off"  # source.phase when the received payload names no expected phase
Ask = Callable[[str], bool]


def continued_chain(received: Received, source: str) -> tuple[str, ...]:
    """The received chain plus the continuing skill (once: a chain that already ends with it stays)."""
    return received.chain if same_skill(str(received.chain[-1]), source) else (*received.chain, source)


def check_loop_rules(
    chain: tuple[str, ...],
    target: str,
    source: str,
    reason: str,
    ask: Ask,
) -> bool | None:
    """The loop rules on a continued chain, in any version; return `user_approved` (None: not asked).

    Hints name the inputs by neutral name; each interface renders its spelling (`inputs.py`).
    """
    where = "handoff.meta.handoff_chain"

    def refuse(code: str, message: str, hint: str, override: str | None = None) -> SwarmError:
        details = {"missing_fields": [], "validation_errors": [f"{where}: {message}"], "target_skill": target}
        if override is not None:
            details["override"] = override
        return SwarmError(
            code, f"hand-off to {target} refused: {message}", details=details, hint=hint, recoverable=True
        )

    if same_skill(target, source):  # `Next`, `next ` and its full-width form are one skill (skill_keys.py)
        raise refuse(SELF_HANDOFF, f"{source} cannot hand off to itself", "choose another target")
    if len(chain) > CHAIN_MAX:
        raise refuse(
            CHAIN_TOO_LONG,
            f"the chain would have {len(chain)} entries ({' -> '.join(chain)}), {CHAIN_MAX} at most",
            f"end the chain here, or start a new one from a synthesis ({ref('synthesis')}, without {ref('received')})",
        )
    if in_chain(target, chain) and not reason.strip():
        raise refuse(
            REENTRY_NEEDS_REASON,
            f"{target} is already in the chain ({' -> '.join(chain)}) and no reason was given",
            f"say why the work goes back to it ({ref('reason')})",
        )
    if len(chain) <= CHAIN_APPROVAL_AFTER:
        return None
    if not ask(f"The hand-off chain already has {len(chain)} entries ({' -> '.join(chain)}). Approve?"):
        raise refuse(
            CHAIN_NEEDS_APPROVAL,
            f"a chain of {len(chain)} entries (more than {CHAIN_APPROVAL_AFTER}) needs the user's approval",
            f"answer y at the prompt, or pass {switched_on('confirm')} when there is no terminal",
            "confirm",
        )
    return True


def _target_block(record: SkillRecord) -> dict[str, Any]:
    block: dict[str, Any] = {"skill": record.name, "invocation": invocation_for(record)}
    if record.categories:
        block["category"] = record.categories[0]
    return block


@attrs.frozen(kw_only=True)
class Hop:
    """What this hop adds to the received payload: who, to whom, when, why, along which chain."""

    record: SkillRecord
    session: Path
    source: str
    chain: tuple[str, ...]
    moment: dt.datetime
    reason: str = ""
    feedback: str | None = None
    approved: bool | None = None


def next_payload(
    received: Received,
    hop: Hop,
    version: str,
    synthesis: Synthesis | None,
) -> Built:
    """Build the next payload of the chain in `version` (2.0 only from a 2.0 payload; else 3.0)."""
    if version == "2.0" and received.version != "3.0":
        return Built(payload=_carry_v2(received, hop, synthesis))
    if received.version == "3.0" and synthesis is None:
        payload = _carry_v3(received, hop)
    else:
        payload = draft_v3(
            synthesis or _synthesis_of_v2(received),
            hop.record,
            hop.session,
            source=hop.source,
            now=hop.moment,
            chain=hop.chain,
            reason=hop.reason,
            feedback=hop.feedback,
            user_approved=hop.approved,
            phase=_phase(received),
        )
    _link(payload, received, hop)
    return fit_budget(payload, side_path_for(payload))


def _phase(received: Received) -> str:
    phase = _section(received.handoff, "target").get("expected_phase")
    return phase if isinstance(phase, str) and phase.strip() else CONTINUED_PHASE


def _carry_v3(received: Received, hop: Hop) -> dict[str, Any]:
    """The received v3.0 payload's context and tiers under a new source, target, time and chain."""
    old = copy.deepcopy(received.handoff)
    session = hop.session.resolve()
    meta: dict[str, Any] = {
        "token_count": 0,
        "confidence": _section(old, "meta").get("confidence", "low"),
        "handoff_chain": list(hop.chain),
    }
    if hop.reason:
        meta["handoff_reason"] = hop.reason
    if hop.approved is not None:
        meta["user_approved"] = hop.approved
    handoff: dict[str, Any] = {
        "version": "3.0",
        "schema_type": "universal",
        "timestamp": stamp(hop.moment),
        "expires_at": stamp(hop.moment + DEFAULT_TTL),
        "trace_id": old["trace_id"],
        "source": {
            "skill": hop.source,
            "workflow_id": workflow_id_for(session, hop.moment),
            "session_path": str(session),
            "phase": _phase(received),
        },
        "target": _target_block(hop.record),
        "context": old["context"],
        "payload": _anchored(old["payload"], received),
        "meta": meta,
    }
    if hop.feedback:
        handoff["payload"].setdefault("working", {})["user_feedback"] = hop.feedback
    return {"handoff": handoff}


def _anchored(tiers: dict[str, Any], received: Received) -> dict[str, Any]:
    """Make the tiers' relative file paths absolute: they were relative to the received payload's session."""
    for section, key in (("references", "files"), ("session", "artifacts")):
        block = tiers.get(section)
        for item in block.get(key, []) if isinstance(block, dict) else []:
            path = item.get("path") if isinstance(item, dict) else None
            if isinstance(path, str) and path and not Path(path).is_absolute():
                item["path"] = str(locate(path, received.payload, received.path).absolute())
    return tiers


def _link(payload: dict[str, Any], received: Received, hop: Hop) -> None:
    """Tie the next v3.0 payload to the received one: same trace, the received span as parent, all events."""
    old = received.handoff
    handoff = payload["handoff"]
    handoff["trace_id"] = old["trace_id"] if received.version == "3.0" else trace_id_for(old)
    tracing = _section(old, "tracing")
    earlier = tracing.get("events")
    events: list[Any] = copy.deepcopy(earlier) if isinstance(earlier, list) else []
    when = stamp(hop.moment)
    events += [
        {
            "timestamp": when,
            "event_type": "received",
            "workflow": hop.source,
            "details": {
                "payload": received.path.name,
                "span_id": received.span,
                "from": str(received.chain[-1]),
                "signature": received.signature,
            },
        },
        {"timestamp": when, "event_type": "processed", "workflow": hop.source},
        {"timestamp": when, "event_type": "created", "workflow": hop.source, "details": {"target": hop.record.name}},
    ]
    handoff["tracing"] = {"events": events, "parent_span_id": received.span}
    if isinstance(tracing.get("tags"), Mapping):
        handoff["tracing"]["tags"] = dict(tracing["tags"])
    mark_unsigned(payload, unsigned_of(received, hop))


def unsigned_of(received: Received, hop: Hop) -> tuple[str, ...]:
    """The unsigned hops the next payload records: the received ones, plus this one when it was unsigned."""
    return (*received.unsigned_hops, *((hop.source,) if received.signature == ABSENT else ()))


def _carry_v2(received: Received, hop: Hop, synthesis: Synthesis | None) -> dict[str, Any]:
    """The received v2.0 payload for a new target, time and chain; a synthesis replaces its content."""
    handoff = copy.deepcopy(strip_integrity(received.payload))["handoff"]
    if synthesis is not None:
        fresh = _synthesis_v2(synthesis, hop)
        for key in ("context", "insights", "research_seeds"):
            handoff[key] = fresh[key]
        handoff["meta"] = {**handoff.get("meta", {}), **fresh["meta"]}
    handoff["timestamp"] = stamp(hop.moment)
    handoff["expires_at"] = stamp(hop.moment + DEFAULT_TTL)
    handoff["target"] = _target_block(hop.record)
    meta = handoff.setdefault("meta", {})
    meta.pop("eligibility_override", None)  # belongs to the received hop, not to this one
    meta["handoff_chain"] = list(hop.chain)
    meta["handoff_reason"] = hop.reason
    if hop.feedback is not None:
        meta["user_feedback"] = hop.feedback
    if hop.approved is not None:
        meta["user_approved"] = hop.approved  # v2.0 is open: the approval is kept as v3.0 would keep it
    payload = {"handoff": handoff}
    mark_unsigned(payload, unsigned_of(received, hop))
    return seal(payload)


def _synthesis_v2(synthesis: Synthesis, hop: Hop) -> dict[str, Any]:
    built = build_v2(synthesis, hop.record, hop.session, now=hop.moment, chain=hop.chain, reason=hop.reason)
    handoff: dict[str, Any] = built["handoff"]
    meta = {k: v for k, v in handoff["meta"].items() if k in ("convergence_level", "user_feedback")}
    return {**handoff, "meta": meta}


def _synthesis_of_v2(received: Received) -> Synthesis:
    """The synthesis a v2.0 payload was built from, to rebuild its content as v3.0 for a 3.0 target."""
    handoff = received.handoff
    context, insights = _section(handoff, "context"), _section(handoff, "insights")
    seeds, meta = _section(handoff, "research_seeds"), _section(handoff, "meta")
    data: dict[str, Any] = {
        "original_prompt": context.get("original_prompt"),
        "problem_type": context.get("problem_type"),
        "reframed_challenge": context.get("reframed_challenge") or "",
        "synthesis_summary": context.get("synthesis_summary") or "",
        "key_uncertainties": list(insights.get("uncertainties") or []),
        "insights": {k: list(insights.get(k) or []) for k in ("convergent", "divergent", "blind_spots")},
        "research_seeds": {k: list(seeds.get(k) or []) for k in ("suggested_terms", "open_questions")},
        "user_feedback": meta.get("user_feedback") or "",
    }
    for key in ("convergence_level", "perspectives_completed"):
        if meta.get(key) is not None:
            data[key] = meta[key]
    try:
        return parse_synthesis(data, path=None)
    except SwarmError as exc:
        raise refuse(
            RECEIVED_INVALID,
            received.path,
            f"its content cannot be carried into v3.0: {exc.message}",
            f"hand off with {given('schema', '2.0')}, or give the content with {ref('synthesis')}",
        ) from None
