"""What a receiving host advertises: its agent card (skills that accept a hand-off, the extension, its auth scheme).

Built once when the receiver starts, from the skills discovery finds here; only eligible skills are
listed, each with its categories as tags and at most ten examples. The extension's params say, per
skill, what a sender builds a payload for it from (`handoff_params`). See docs/a2a.md.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentExtension,
    AgentInterface,
    AgentSkill,
    APIKeySecurityScheme,
    HTTPAuthSecurityScheme,
    SecurityRequirement,
    SecurityScheme,
    StringList,
)

from swarm_handoff.api import SkillRecord
from swarm_handoff_a2a.auth import Auth
from swarm_handoff_a2a.extension import EXTENSION_URI, PAYLOAD_MEDIA_TYPE, SKILLS_PARAM


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine only (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def skill_of(record: SkillRecord) -> AgentSkill:
    """One skill as the card lists it: id and name, description, categories as tags, examples when it has some."""
    examples = record.meta.get("examples")
    listed = [e for e in examples if isinstance(e, str)][:10] if isinstance(examples, (list, tuple)) else []
    return AgentSkill(
        id=record.name,
        name=record.declared_name or record.name,
        description=record.description or f"Takes a swarm-handoff payload for {record.name}.",
        tags=list(record.categories),
        examples=listed,
        input_modes=[PAYLOAD_MEDIA_TYPE],
        output_modes=["application/json"],
    )


def handoff_params(record: SkillRecord) -> dict[str, Any]:
    """What a sender builds a payload for this skill from (the extension's `skills` entry; docs/a2a.md)."""
    return {
        "trigger": record.trigger,
        "accepts_from": list(record.accepts_from or ("*",)),  # listed skills are eligible: none means anyone
        "requires": list(record.requires),
        "optional_consumes": list(record.optional_consumes),
        "schema_version": "3.0",  # what this host takes in, whatever the skill reads locally
    }


def agent_card(
    url: str,
    records: tuple[SkillRecord, ...] | list[SkillRecord],
    *,
    name: str = "swarm-handoff receiver",
    description: str = "Takes swarm-handoff payloads for the skills listed, verified before anything is written.",
    auth: Auth | None = None,
) -> AgentCard:
    """The agent card of a receiving host: its skills, its JSON-RPC interface, the extension, its auth scheme."""
    card = AgentCard(
        name=name,
        description=description,
        version="1.0",
        supported_interfaces=[AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")],
        capabilities=AgentCapabilities(
            streaming=False,
            push_notifications=False,
            extensions=[
                AgentExtension(
                    uri=EXTENSION_URI,
                    description="A message may carry a swarm-handoff payload (a data part of media type "
                    f"{PAYLOAD_MEDIA_TYPE}); it is verified here before anything is written.",
                    required=False,
                    params={
                        "payload_versions": ["3.0"],
                        "max_payload_bytes": 4 * 1024 * 1024,
                        SKILLS_PARAM: {r.name: handoff_params(r) for r in records if r.eligible},
                    },
                )
            ],
        ),
        default_input_modes=[PAYLOAD_MEDIA_TYPE, "text/plain"],
        default_output_modes=["application/json", "text/plain"],
        skills=[skill_of(r) for r in records if r.eligible],
    )
    if auth is not None:
        key, scheme = card_scheme(auth)
        card.security_schemes[key].CopyFrom(scheme)
        card.security_requirements.append(SecurityRequirement(schemes={key: StringList(list=[])}))
    return card


def card_scheme(auth: Auth) -> tuple[str, SecurityScheme]:
    """The scheme as the agent card declares it."""
    if auth.scheme == "bearer":
        return "bearer", SecurityScheme(
            http_auth_security_scheme=HTTPAuthSecurityScheme(scheme="Bearer", description="swarm-handoff token")
        )
    return "apiKey", SecurityScheme(
        api_key_security_scheme=APIKeySecurityScheme(location="header", name=auth.header, description="API key")
    )
