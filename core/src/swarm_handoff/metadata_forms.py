"""The hand-off forms that live beside the `handoff:` block: spec-conformant `metadata:` keys and `handoffs:`.

The Agent Skills spec allows only string values under `metadata:`, so the metadata form spells
lists as comma-separated text (`accepts-from: "*"`, `handoff-categories: "research, analysis"`).
The `handoffs:` list (GitHub spec-kit, VS Code custom agents) names the agents a skill hands off
to, each with a label and a prompt: these are outgoing edges, kept as `provides_to` plus the
entries themselves in `meta["handoffs"]` (SkillRecord gains no field for them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from swarm_handoff.errors import Severity
from swarm_handoff.frontmatter_fields import HANDOFF_BAD_FIELD, FieldReader
from swarm_handoff.handoff_keys import ACCEPTS_FROM

_FORMS_HINT = "see docs/handoff-metadata.md for the hand-off metadata forms"


def _split(value: Any, field: str, reader: FieldReader) -> list[str]:
    """Comma-separated text as a list (a YAML list is tolerated: the spec wants text, lint says so)."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return reader.strings(value, field)


def metadata_fields(metadata: Mapping[str, Any], main_description: str, reader: FieldReader) -> dict[str, Any]:
    """The record fields the metadata form declares (a v3.0 reading: `accepts-from` decides eligibility)."""
    schema = reader.text(metadata.get("handoff-schema-version"), "metadata.handoff-schema-version")
    return {
        "description": reader.text(metadata.get("handoff-description"), "metadata.handoff-description")
        or main_description,
        "categories": _split(metadata.get("handoff-categories"), "metadata.handoff-categories", reader),
        "trigger": reader.text(metadata.get("handoff-trigger"), "metadata.handoff-trigger") or "{payload_path}",
        "accepts_from": _split(metadata.get(ACCEPTS_FROM), "metadata.accepts-from", reader),
        "provides_to": _split(metadata.get("provides-to"), "metadata.provides-to", reader),
        "input_requirements": _split(metadata.get("input-requirements"), "metadata.input-requirements", reader),
        "output_types": _split(metadata.get("output-types"), "metadata.output-types", reader),
        "schema_version": schema.strip() if schema else None,
        "schema_type": reader.text(metadata.get("handoff-schema-type"), "metadata.handoff-schema-type"),
        # The payload paths a hand-off must carry (checked by `handoff`) and those used when present.
        "requires": _split(metadata.get("handoff-requires"), "metadata.handoff-requires", reader),
        "optional_consumes": _split(metadata.get("optional-consumes"), "metadata.optional-consumes", reader),
        "protocol_version": "3.0",
        "legacy": False,
    }


def handoff_entries(value: Any, reader: FieldReader) -> list[dict[str, Any]]:
    """The `handoffs:` list as `{agent, label, prompt, send}` entries; an entry without an agent is skipped."""
    if not isinstance(value, list):
        reader.add(
            HANDOFF_BAD_FIELD,
            f"handoffs must be a list of {{agent, label, prompt}} entries, not {type(value).__name__}",
            _FORMS_HINT,
            Severity.WARNING,
        )
        return []
    entries: list[dict[str, Any]] = []
    for number, item in enumerate(value, start=1):
        agent = item.get("agent") if isinstance(item, Mapping) else None
        if not isinstance(agent, str) or not agent.strip():
            reader.add(
                HANDOFF_BAD_FIELD,
                f"handoffs entry {number} has no 'agent' naming the skill it hands off to; it is skipped",
                "write each entry as - label: ...; agent: NAME; prompt: ...",
                Severity.WARNING,
            )
            continue
        assert isinstance(item, Mapping)
        label = reader.text(item.get("label"), f"handoffs[{number}].label")
        prompt = reader.text(item.get("prompt"), f"handoffs[{number}].prompt")
        entries.append({"agent": agent.strip(), "label": label, "prompt": prompt, "send": item.get("send") is True})
    return entries
