"""The swarm-handoff A2A extension: what a message carrying a hand-off payload looks like.

A receiving host declares `EXTENSION_URI` in its agent card (`capabilities.extensions`): "a
message may carry a swarm-handoff payload". Such a message lists the URI in `Message.extensions`
and holds one data part whose `media_type` is `PAYLOAD_MEDIA_TYPE` and whose `metadata.extension`
is the URI. The part's data is a mapping: `payload` (the payload file's exact text: a signed
payload is compared byte for byte, and numbers must not pass through JSON doubles), `payload_hash`
(its stated `meta.payload_hash`) and `target` (the skill it is for). The message's metadata carries
the W3C `traceparent` under `traceparent`. Nothing in the message names a path on the receiver.

The extension's `params` in the card say `payload_versions`, `max_payload_bytes` and, under
`skills`, per skill id what a sender builds a payload for it from (`trigger`, `accepts_from`,
`requires`, `optional_consumes`, `schema_version`); `skill_handoff` reads one entry, bounded.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

import attrs
from a2a.types import AgentCard, Message, Part, Role
from google.protobuf.json_format import MessageToDict
from google.protobuf.struct_pb2 import Value

from swarm_handoff.api import TRACEPARENT as W3C_TRACEPARENT  # the core's parser: anything else is dropped
from swarm_handoff.api import escape_controls
from swarm_handoff_a2a.ids import EXTENSION_URI as EXTENSION_URI
from swarm_handoff_a2a.ids import task_id_for as task_id_for

PAYLOAD_MEDIA_TYPE = "application/vnd.swarm-handoff.payload+json"
ERROR_MEDIA_TYPE = "application/vnd.swarm-handoff.error+json"  # a refusal's code, message and hint
TRACEPARENT = "traceparent"
SKILLS_PARAM = "skills"  # the extension's params: per skill id, what a payload for it is built from
# A card is another host's say-so: each hand-off field read from it is bounded, and one that is not
# what it should be is left out (the sender then uses the default, and the host checks the payload).
MAX_CARD_LIST = 100
MAX_CARD_TEXT = 500
_CARD_LISTS = ("accepts_from", "requires", "optional_consumes")
# The message's own target and hash only label spans (the checked payload decides); a sender's
# say-so is cut to this length, its control characters escaped, before it reaches a trace exporter.
MAX_LABEL_CHARS = 200


@attrs.frozen
class CarriedPayload:
    """The hand-off payload a message carries: its exact text, the hash it states and its target."""

    text: str
    payload_hash: str
    target: str
    traceparent: str | None = None


def data_value(data: Mapping[str, Any]) -> Value:
    """A mapping as the `data` of a Part (a protobuf Value holding a Struct)."""
    value = Value()
    value.struct_value.update(dict(data))
    return value


def payload_message(
    text: str, payload_hash: str, target: str, *, traceparent: str | None = None, message_id: str | None = None
) -> Message:
    """The A2A message that carries one payload under the extension (a text part says what it is)."""
    data = {"payload": text, "payload_hash": payload_hash, "target": target}
    metadata: dict[str, Any] = {"swarm_handoff": {"payload_hash": payload_hash, "target": target}}
    if traceparent:
        metadata[TRACEPARENT] = traceparent
    return Message(
        message_id=message_id or str(uuid.uuid4()),
        role=Role.ROLE_USER,
        extensions=[EXTENSION_URI],
        parts=[
            Part(text=f"swarm-handoff payload for skill {target} ({payload_hash})"),
            Part(data=data_value(data), media_type=PAYLOAD_MEDIA_TYPE, metadata={"extension": EXTENSION_URI}),
        ],
        metadata=metadata,
    )


def carried_payload(message: Message | None) -> CarriedPayload | None:
    """The payload `message` carries under the extension, or None when it carries none."""
    if message is None:
        return None
    for part in message.parts:
        if part.media_type != PAYLOAD_MEDIA_TYPE or not part.HasField("data"):
            continue
        data = MessageToDict(part.data)
        if not isinstance(data, Mapping):
            continue
        text, stated, target = data.get("payload"), data.get("payload_hash"), data.get("target")
        if isinstance(text, str):
            meta = MessageToDict(message.metadata) if message.HasField("metadata") else {}
            parent = meta.get(TRACEPARENT) if isinstance(meta, Mapping) else None
            return CarriedPayload(
                text=text,
                payload_hash=_label(stated),
                target=_label(target),
                traceparent=parent if isinstance(parent, str) and W3C_TRACEPARENT.match(parent) else None,
            )
    return None


def _label(value: Any) -> str:
    """A sender's say-so as a span label: cut, and with control characters escaped (an exporter may write lines)."""
    return escape_controls(value[:MAX_LABEL_CHARS])[:MAX_LABEL_CHARS] if isinstance(value, str) else ""


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and len(value) <= MAX_CARD_TEXT and value.isprintable() else None


def skill_handoff(params: Mapping[str, Any], skill_id: str) -> dict[str, Any]:
    """The hand-off fields the extension's params give for one skill, each checked and bounded; {} when none."""
    skills = params.get(SKILLS_PARAM)
    entry = skills.get(skill_id) if isinstance(skills, Mapping) else None
    if not isinstance(entry, Mapping):
        return {}
    found: dict[str, Any] = {}
    for name in ("trigger", "schema_version"):
        text = _text(entry.get(name))
        if text:
            found[name] = text
    for name in _CARD_LISTS:
        items = entry.get(name)
        if isinstance(items, list) and len(items) <= MAX_CARD_LIST:
            texts = [_text(item) for item in items]
            if all(texts):
                found[name] = texts
    return found


def declares_extension(card: AgentCard) -> bool:
    """Whether the card declares the swarm-handoff extension (a host that can check our payloads)."""
    return any(ext.uri == EXTENSION_URI for ext in card.capabilities.extensions)


def extension_params(card: AgentCard) -> dict[str, Any]:
    """The params of our extension in the card ({} when it has none)."""
    for ext in card.capabilities.extensions:
        if ext.uri == EXTENSION_URI and ext.HasField("params"):
            params = MessageToDict(ext.params)
            return params if isinstance(params, dict) else {}
    return {}
