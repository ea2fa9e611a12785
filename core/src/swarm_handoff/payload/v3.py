"""Payload v3.0 ("universal"): the schema's rules, and the rules a schema cannot hold.

The shape is checked with the same declarative checker as v2.0, but closed: the root and the
`handoff` mapping accept no field the version does not name. `v3-rules` adds the cross-field rules:
the 2,000-token budget (characters / 4 of the indented JSON form; `meta.token_count` within 30 %
of it), no hand-off to oneself,
a reason to re-enter a skill already in the chain, approval past five hops and never past ten,
`source.skill` last in the chain (each skill appends itself when it hands on, so the chain reads
origin first), and `timestamp` before `expires_at`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from swarm_handoff.errors import Problem
from swarm_handoff.payload.canonical import HASH_PATTERN, strip_integrity
from swarm_handoff.payload.loops import loop_warning
from swarm_handoff.payload.schema import Arr, Bool, Num, Obj, Str, check, parse_time, problem
from swarm_handoff.skill_keys import in_chain, same_skill
from swarm_handoff.termsafe import shown

TOKEN_CAP = 2000
SUMMARY_CAP = 500
CHAIN_APPROVAL_AFTER = 5
CHAIN_MAX = 10
PROBLEM_TYPES_V3 = ("decision", "creative", "analytical", "strategic", "implementation", "research", "verification")
CONFIDENCE = ("high", "medium", "low")
ARTIFACT_TYPES = ("specification", "analysis", "code", "documentation", "data", "model", "report")
RELEVANCE = ("critical", "important", "optional")
EVENT_TYPES = ("created", "validated", "transmitted", "received", "processed", "error")
# The v3.0 times are stricter than ISO 8601 in general: upper-case T, and Z or +hh:mm.
V3_TIME = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$"

TOKEN_BUDGET = "PAYLOAD_TOKEN_BUDGET"
TOKEN_COUNT_OFF = "PAYLOAD_TOKEN_COUNT_OFF"
TOKEN_COUNT_TOLERANCE = 0.30
SELF_HANDOFF = "PAYLOAD_SELF_HANDOFF"
REENTRY_NEEDS_REASON = "PAYLOAD_REENTRY_NEEDS_REASON"
CHAIN_NEEDS_APPROVAL = "PAYLOAD_CHAIN_NEEDS_APPROVAL"
CHAIN_TOO_LONG = "PAYLOAD_CHAIN_TOO_LONG"
SOURCE_NOT_CHAIN_END = "PAYLOAD_SOURCE_NOT_CHAIN_END"
EXPIRES_BEFORE_CREATED = "PAYLOAD_EXPIRES_BEFORE_CREATED"

_time = Str(fmt="date-time", pattern=V3_TIME)
_strings = Arr(Str())
SCHEMA = Obj(
    required=("handoff",),
    closed=True,
    fields={
        "handoff": Obj(
            required=(
                "version",
                "schema_type",
                "timestamp",
                "trace_id",
                "source",
                "target",
                "context",
                "payload",
                "meta",
            ),
            closed=True,
            fields={
                "version": Str(choices=("3.0",)),
                "schema_type": Str(choices=("universal",)),
                "timestamp": _time,
                "expires_at": _time,
                "trace_id": Str(fmt="uuid"),
                "source": Obj(
                    required=("skill", "workflow_id", "session_path", "phase"),
                    fields={
                        "skill": Str(min_len=1),
                        "workflow_id": Str(min_len=1),
                        "session_path": Str(fmt="path"),
                        "phase": Str(),
                    },
                ),
                "target": Obj(
                    required=("skill",),
                    fields={"skill": Str(min_len=1), "invocation": Str(), "category": Str(), "expected_phase": Str()},
                ),
                "context": Obj(
                    required=("summary", "problem_type"),
                    fields={
                        "summary": Str(min_len=1, max_len=SUMMARY_CAP),
                        "original_prompt": Str(),
                        "problem_type": Str(choices=PROBLEM_TYPES_V3),
                        "focus_areas": _strings,
                        "known_gaps": _strings,
                        "success_criteria": _strings,
                    },
                ),
                "payload": Obj(
                    required=("working",),
                    fields={
                        "working": Obj(),
                        "session": Obj(
                            fields={
                                "artifacts": Arr(
                                    Obj(
                                        required=("name", "path", "type"),
                                        fields={
                                            "name": Str(),
                                            "path": Str(fmt="path"),
                                            "type": Str(choices=ARTIFACT_TYPES),
                                            "description": Str(),
                                            "checksum": Str(pattern=HASH_PATTERN),
                                        },
                                    )
                                ),
                                "state": Obj(),
                            }
                        ),
                        "references": Obj(
                            fields={
                                "files": Arr(
                                    Obj(
                                        required=("path",),
                                        fields={
                                            "path": Str(fmt="path"),
                                            "description": Str(),
                                            "relevance": Str(choices=RELEVANCE),
                                        },
                                    )
                                ),
                                "urls": Arr(
                                    Obj(required=("url",), fields={"url": Str(fmt="uri"), "description": Str()})
                                ),
                            }
                        ),
                    },
                ),
                "meta": Obj(
                    required=("token_count", "confidence"),
                    fields={
                        "token_count": Num(integer=True, minimum=0, maximum=TOKEN_CAP),
                        "confidence": Str(choices=CONFIDENCE),
                        "handoff_chain": Arr(Str(), min_items=1),
                        "handoff_reason": Str(),
                        "payload_hash": Str(pattern=HASH_PATTERN),
                        "payload_size_bytes": Num(integer=True, minimum=0),
                        "user_approved": Bool(),
                    },
                ),
                "tracing": Obj(
                    fields={
                        "events": Arr(
                            Obj(
                                required=("timestamp", "event_type", "workflow"),
                                fields={
                                    "timestamp": Str(fmt="date-time"),
                                    "event_type": Str(choices=EVENT_TYPES),
                                    "workflow": Str(),
                                    "details": Obj(),
                                },
                            )
                        ),
                        "parent_span_id": Str(nullable=True),
                        "tags": Obj(values=Str()),
                    }
                ),
            },
        )
    },
)


def estimate_tokens(payload: Mapping[str, Any]) -> int:
    """Estimate tokens as real writers count them: characters of the 2-space-indented JSON / 4, rounded up.

    The integrity fields (`payload_hash`, `payload_size_bytes`, `signature`) are left out, so sealing
    a payload never changes its estimate; everything else counts, whitespace of the indentation too.
    """
    text = json.dumps(strip_integrity(payload), indent=2, ensure_ascii=False, allow_nan=True)
    return math.ceil(len(text) / 4)


def token_count_problem(payload: Mapping[str, Any], estimate: int) -> Problem | None:
    """A declared `meta.token_count` more than 30 % away from the estimate: the budget cannot be trusted."""
    declared = _section(_section(payload, "handoff"), "meta").get("token_count")
    if isinstance(declared, bool) or not isinstance(declared, int) or estimate <= 0:
        return None  # a missing or mistyped count is the schema's to report
    if abs(declared - estimate) <= TOKEN_COUNT_TOLERANCE * estimate:
        return None
    return problem(
        TOKEN_COUNT_OFF,
        "handoff.meta.token_count",
        f"is {declared}, but the payload is about {estimate} tokens; more than {TOKEN_COUNT_TOLERANCE:.0%} apart",
        "set token_count to the length of the payload written as 2-space-indented JSON, divided by 4",
    )


class SchemaValidator:
    """`v3-schema`: every rule of the v3.0 JSON Schema, closed root and `handoff` included."""

    versions = ("3.0",)

    def validate(self, payload: Mapping[str, Any]) -> list[Problem]:
        """Return every shape problem of `payload`."""
        return check(SCHEMA, payload)


def _section(data: Any, key: str) -> Mapping[str, Any]:
    value = data.get(key) if isinstance(data, Mapping) else None
    return value if isinstance(value, Mapping) else {}


class RulesValidator:
    """`v3-rules`: token budget, self hand-off, re-entry, chain length and start, time order."""

    versions = ("3.0",)

    def validate(self, payload: Mapping[str, Any]) -> list[Problem]:
        """Return the cross-field problems of `payload` (shape problems are `v3-schema`'s)."""
        found: list[Problem] = []
        handoff = _section(payload, "handoff")
        meta = _section(handoff, "meta")
        source = _section(handoff, "source").get("skill")
        target = _section(handoff, "target").get("skill")
        chain = meta.get("handoff_chain")
        chain = [c for c in chain if isinstance(c, str)] if isinstance(chain, list) else None
        tokens = estimate_tokens(payload)
        off = token_count_problem(payload, tokens)
        if off is not None:
            found.append(off)
        if tokens > TOKEN_CAP:
            found.append(
                problem(
                    TOKEN_BUDGET,
                    "handoff",
                    f"is about {tokens} tokens (characters / 4), over the {TOKEN_CAP}-token cap",
                    "move session content to payload.references and drop optional fields",
                )
            )
        if isinstance(source, str) and isinstance(target, str) and same_skill(source, target):
            found.append(problem(SELF_HANDOFF, "handoff.target.skill", f"{target} cannot hand off to itself"))
        if chain is not None and isinstance(target, str) and in_chain(target, chain):
            reason = meta.get("handoff_reason")
            if not isinstance(reason, str) or not reason.strip():
                found.append(
                    problem(
                        REENTRY_NEEDS_REASON,
                        "handoff.meta.handoff_reason",
                        f"is required because {target} is already in the hand-off chain",
                        "say why the work goes back to it (the hand-off's reason)",  # the interface names its input
                    )
                )
            warning = loop_warning(target, chain)
            if warning is not None:
                found.append(warning)
        if chain is not None:
            if len(chain) > CHAIN_MAX:
                found.append(
                    problem(
                        CHAIN_TOO_LONG, "handoff.meta.handoff_chain", f"has {len(chain)} entries, {CHAIN_MAX} at most"
                    )
                )
            elif len(chain) > CHAIN_APPROVAL_AFTER and meta.get("user_approved") is not True:
                found.append(
                    problem(
                        CHAIN_NEEDS_APPROVAL,
                        "handoff.meta.user_approved",
                        f"must be true for a chain of {len(chain)} entries (more than {CHAIN_APPROVAL_AFTER})",
                        "ask the user, then set user_approved: true",
                    )
                )
            if chain and isinstance(source, str) and chain[-1] != source:
                found.append(
                    problem(
                        SOURCE_NOT_CHAIN_END,
                        "handoff.meta.handoff_chain",
                        f"ends with {shown(chain[-1])} but source.skill is {shown(source)}",
                        "the skill handing off appends itself: the chain ends with the source skill",
                    )
                )
        created, expires = parse_time(handoff.get("timestamp")), parse_time(handoff.get("expires_at"))
        if created is not None and expires is not None and expires <= created:
            found.append(
                problem(
                    EXPIRES_BEFORE_CREATED,
                    "handoff.expires_at",
                    f"{handoff.get('expires_at')} is not after timestamp {handoff.get('timestamp')}",
                )
            )
        return found
