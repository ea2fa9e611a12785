"""A received payload that passed every check, as a value: what a chain continues from.

`received.py` reads the payload a skill received as hostile input (limits, validators, integrity,
signature) and builds a `Received`; `continuation.py` builds the next payload from one. Both work
on the record, its coded refusals and a payload's span id, which live here, below both: building
the next payload needs none of the checks (nor the plugin host whose validators they run).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from swarm_handoff.errors import Problem, SwarmError
from swarm_handoff.payload.canonical import span_from_hash

RECEIVED_INVALID = "RECEIVED_PAYLOAD_INVALID"
RECEIVED_UNSEALED = "RECEIVED_PAYLOAD_UNSEALED"
RECEIVED_TAMPERED = "RECEIVED_PAYLOAD_TAMPERED"
RECEIVED_EXPIRED = "RECEIVED_PAYLOAD_EXPIRED"  # a warning: it bounds the hand-off, not the work done since
RECEIVED_NOT_FOR_SOURCE = "RECEIVED_PAYLOAD_NOT_FOR_SOURCE"
RECEIVED_UNSIGNED = "RECEIVED_PAYLOAD_UNSIGNED"


def span_id(payload: Mapping[str, Any]) -> str | None:
    """A payload's span id: the first 16 hex digits of its `payload_hash`, or None when it states none."""
    meta = section(section(payload, "handoff"), "meta")
    return span_from_hash(meta.get("payload_hash")) or None


def section(data: Any, key: str) -> Mapping[str, Any]:
    """`data[key]` when both are mappings, else empty: a received payload's shape is not trusted."""
    value = data.get(key) if isinstance(data, Mapping) else None
    return value if isinstance(value, Mapping) else {}


@attrs.frozen(kw_only=True)
class Received:
    """A received payload that passed every check, and what continuing from it needs."""

    path: Path
    payload: dict[str, Any]
    version: str
    skill: str  # its target: the skill that now continues the chain
    chain: tuple[str, ...]
    span: str
    problem_type: str
    warnings: tuple[Problem, ...] = ()
    signature: str = "absent"  # valid or absent (an invalid one is refused): an absent one is recorded
    unsigned_hops: tuple[str, ...] = ()  # the earlier hops that continued from an unsigned payload

    @property
    def handoff(self) -> dict[str, Any]:
        """The received `handoff` mapping."""
        return dict(self.payload["handoff"])


def refuse(code: str, path: Path, why: str, hint: str, problems: list[str] | None = None) -> SwarmError:
    """The coded refusal of a received payload: it names the file, and nothing is continued from it."""
    return SwarmError(
        code,
        f"{path}: cannot continue from this payload: {why}",
        details={"missing_fields": [], "validation_errors": problems or [why], "received_payload": str(path)},
        hint=hint,
        recoverable=False,
    )
