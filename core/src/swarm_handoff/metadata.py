"""Turn a skill's frontmatter into a `SkillRecord`: v2.0 and v3.0 hand-off metadata, lenient where the seed is.

v2.0 (`handoff.accepts_handoff`, `handoff_categories`, `handoff_description`) is eligible when
`accepts_handoff` is true and there is at least one category and a description (the skill's main
`description` stands in for a missing `handoff_description`; a string category becomes a list).
v3.0 (`handoff.accepts_from`, `provides_to`, `schema_version`, `schema_type`, top-level
`categories`, `input_requirements`, `output_types`) is eligible when `accepts_from` is non-empty.
Where a skill has both, the v3.0 fields win; a skill with only v2.0 fields is marked `legacy`.
Without a `handoff:` block, the spec-conformant keys under `metadata:` are read the v3.0 way, and a
`handoffs:` list (spec-kit, VS Code) adds outgoing edges in any form (metadata_forms.py).
A skill that is not eligible is still a record, with `eligible=False` and the reason as a problem.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from swarm_handoff import handoff_keys, metadata_forms
from swarm_handoff.errors import Problem, Severity
from swarm_handoff.frontmatter_fields import HANDOFF_BAD_FIELD as HANDOFF_BAD_FIELD
from swarm_handoff.frontmatter_fields import SCHEMA_HINT, FieldReader, value_kind
from swarm_handoff.records import Scope, SkillRecord
from swarm_handoff.termsafe import escape_undecodable, quoted

HANDOFF_ABSENT = "HANDOFF_ABSENT"
HANDOFF_NOT_MAPPING = "HANDOFF_NOT_MAPPING"
HANDOFF_NOT_ACCEPTED = "HANDOFF_NOT_ACCEPTED"
HANDOFF_NO_ACCEPT_FIELD = "HANDOFF_NO_ACCEPT_FIELD"
HANDOFF_NO_CATEGORIES = "HANDOFF_NO_CATEGORIES"
HANDOFF_NO_DESCRIPTION = "HANDOFF_NO_DESCRIPTION"
# The Agent Skills spec's own codes (lint_spec.py reports the same ones, located by line).
SPEC_NAME_TYPE = "SPEC_NAME_TYPE"
SPEC_DESCRIPTION_TYPE = "SPEC_DESCRIPTION_TYPE"
SKILL_NAME_NOT_UTF8 = "SKILL_NAME_NOT_UTF8"

# Keys kept in `meta` when present (free-form facts shown to users, never used for eligibility).
_META_KEYS = ("version", "estimated_duration", "complexity", "autonomous", "tags", "license", "examples")


def record_from_frontmatter(
    data: Mapping[str, Any] | None,
    *,
    name: str,
    scope: Scope | str,
    source: str,
    path: str | None,
    problems: Sequence[Problem] = (),
) -> SkillRecord:
    """Build the record of one skill from its frontmatter (None when it could not be read)."""
    if data is None:
        return SkillRecord(name=name, scope=scope, source=source, path=path, eligible=False, problems=tuple(problems))
    reader = FieldReader(path)
    reader.problems.extend(problems)
    if not name.isascii() and _not_utf8(name):
        # Payloads, session files and other agents (Node reads it as U+FFFD) cannot name this folder.
        reader.add(
            SKILL_NAME_NOT_UTF8,
            f"the folder name {escape_undecodable(name)} is not UTF-8 text (\\xNN: a byte that is not)",
            "rename the folder to UTF-8 text, e.g. the frontmatter name",
        )
        return SkillRecord(
            name=name, scope=scope, source=source, path=path, eligible=False, problems=tuple(reader.problems)
        )
    declared = _declared_name(data, name, reader)
    declared_name = declared if declared is not None and declared != name else None
    main_description = _description(data.get("description"), reader)
    meta = {key: data[key] for key in _META_KEYS if key in data}
    if isinstance(data.get("meta"), Mapping):
        meta.update(data["meta"])
    if isinstance(data.get("metadata"), Mapping):  # the Agent Skills spec's free-form block (packs use it)
        meta["metadata"] = dict(data["metadata"])
    base: dict[str, Any] = {
        "name": name,
        "scope": scope,
        "source": source,
        "path": path,
        "declared_name": declared_name,
        "description": main_description,
        "meta": meta,
    }
    outgoing: list[str] = []
    if handoff_keys.HANDOFFS_KEY in data:  # outgoing edges, whichever form says what the skill accepts
        entries = metadata_forms.handoff_entries(data[handoff_keys.HANDOFFS_KEY], reader)
        meta["handoffs"] = entries
        outgoing = [e["agent"] for e in entries]
        base["provides_to"] = outgoing
    handoff = data.get("handoff")
    if handoff is None and handoff_keys.has_metadata_form(data.get("metadata")):
        fields = metadata_forms.metadata_fields(data["metadata"], main_description, reader)
        fields["provides_to"] = _union(fields["provides_to"], outgoing)
        eligible = _check_metadata_form(fields, reader)
        return SkillRecord(**{**base, **fields}, eligible=eligible, problems=tuple(reader.problems))
    if handoff is None:
        reader.add(HANDOFF_ABSENT, *_absent_reason(data), Severity.INFO)
        return SkillRecord(**base, eligible=False, problems=tuple(reader.problems))
    if not isinstance(handoff, Mapping):
        reader.add(HANDOFF_NOT_MAPPING, "'handoff:' must be a mapping of fields", SCHEMA_HINT)
        return SkillRecord(**base, eligible=False, problems=tuple(reader.problems))
    fields, eligible = _interpret(data, handoff, main_description, reader)
    fields["provides_to"] = _union(fields["provides_to"], outgoing)
    if "health_check_env" in handoff:  # the variables its health check needs, kept with the free-form facts
        base["meta"] = {
            **meta,
            "health_check_env": reader.strings(handoff["health_check_env"], "handoff.health_check_env"),
        }
    return SkillRecord(**{**base, **fields}, eligible=eligible, problems=tuple(reader.problems))


def _absent_reason(data: Mapping[str, Any]) -> tuple[str, str]:
    """HANDOFF_ABSENT's message and hint; a misspelt or misplaced hand-off key gets its "did you mean"."""
    message = "no hand-off metadata ('handoff:' block or metadata.accepts-from), so the skill does not accept hand-offs"
    hint = (  # block style: `lint --strict-spec` refuses the flow style `metadata: {...}`
        "add a 'metadata:' block with the indented lines 'accepts-from: \"*\"' and 'handoff-categories: \"...\"' "
        "(or run swarm-handoff adopt SKILL, which writes them)"
    )
    near = handoff_keys.misplaced_handoff_key(data)
    if near is not None:
        meant = handoff_keys.did_you_mean_handoff(near, data[near])
        return (f"{message}; {meant[0]}", meant[1]) if meant is not None else (message, hint)
    misspelt = handoff_keys.misspelt_metadata_key(data.get("metadata"))
    if misspelt is not None:
        key, right = misspelt
        return (
            f"{message}; metadata.{key} is not a hand-off key: did you mean {right!r}?",
            f"rename metadata.{key} to {right} (see docs/handoff-metadata.md)",
        )
    return message, hint


def _not_utf8(name: str) -> bool:
    """True when a folder name holds bytes that are not UTF-8 (read by Python as lone surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _declared_name(data: Mapping[str, Any], folder: str, reader: FieldReader) -> str | None:
    """The frontmatter's `name` as text; a value YAML read as another type is a wrong type, not a missing name.

    `name: 123` still counts as the name `123` (that is what its author typed); a list, mapping,
    boolean or null names nothing. Either way the folder name stays the skill's name.
    """
    if "name" not in data or isinstance(data["name"], str):
        return data.get("name")
    value = data["name"]
    reader.add(
        SPEC_NAME_TYPE,
        f"name must be text, not {value_kind(value)} ({value!r}); the folder name {quoted(folder)} is used",
        f'quote it: name: "{folder}"',
        Severity.WARNING,
    )
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def _description(value: Any, reader: FieldReader) -> str:
    """The frontmatter's `description` as text; a number is kept as its digits, other types are dropped."""
    if value is None or isinstance(value, str):
        return value or ""
    kept = isinstance(value, (int, float)) and not isinstance(value, bool)
    reader.add(
        SPEC_DESCRIPTION_TYPE,
        f"description must be text, not {value_kind(value)}" + ("" if kept else " (it was ignored)"),
        'quote it: description: "Use when ..." (YAML reads [..], {..}, true and numbers as other types)',
        Severity.WARNING,
    )
    return str(value) if kept else ""


def _interpret(
    data: Mapping[str, Any], handoff: Mapping[str, Any], main_description: str, reader: FieldReader
) -> tuple[dict[str, Any], bool]:
    is_v3 = "accepts_from" in handoff
    is_v2 = "accepts_handoff" in handoff
    top_categories = reader.strings(data.get("categories"), "categories")
    v2_categories = reader.strings(handoff.get("handoff_categories"), "handoff.handoff_categories")
    fields: dict[str, Any] = {
        "description": reader.text(handoff.get("handoff_description"), "handoff.handoff_description")
        or main_description,
        "categories": (top_categories or v2_categories) if is_v3 else (v2_categories or top_categories),
        "trigger": reader.text(handoff.get("handoff_trigger"), "handoff.handoff_trigger") or "{payload_path}",
        "health_check": reader.text(handoff.get("health_check"), "handoff.health_check"),
        "requires": reader.strings(handoff.get("requires"), "handoff.requires"),
        "optional_consumes": reader.strings(handoff.get("optional_consumes"), "handoff.optional_consumes"),
        "accepts_from": reader.strings(handoff.get("accepts_from"), "handoff.accepts_from"),
        "provides_to": reader.strings(handoff.get("provides_to"), "handoff.provides_to"),
        "schema_version": reader.text(handoff.get("schema_version"), "handoff.schema_version"),
        "schema_type": reader.text(handoff.get("schema_type"), "handoff.schema_type"),
        "input_requirements": reader.strings(
            data.get("input_requirements", handoff.get("input_requirements")), "input_requirements"
        ),
        "output_types": reader.strings(data.get("output_types", handoff.get("output_types")), "output_types"),
        "legacy": is_v2 and not is_v3,
    }
    declared_protocol = reader.text(handoff.get("protocol_version"), "handoff.protocol_version")
    fields["protocol_version"] = "3.0" if is_v3 else (declared_protocol or "2.0")
    if is_v3:
        return fields, _check_v3(fields, reader)
    if is_v2:
        return fields, _check_v2(handoff, fields, reader)
    reader.add(
        HANDOFF_NO_ACCEPT_FIELD,
        "the 'handoff:' block has neither accepts_from (v3.0) nor accepts_handoff (v2.0)",
        "add accepts_from: ['*'] (v3.0) or accepts_handoff: true (v2.0)",
    )
    return fields, False


def _union(first: Sequence[str], second: Sequence[str]) -> list[str]:
    """Both lists of names, in order, each once (a `handoffs:` agent may repeat a `provides_to`)."""
    return list(dict.fromkeys([*first, *second]))


def _check_metadata_form(fields: dict[str, Any], reader: FieldReader) -> bool:
    if not fields["accepts_from"]:
        reader.add(
            HANDOFF_NO_ACCEPT_FIELD,
            "metadata has hand-off keys but no accepts-from, so no skill may hand off to this one",
            'add accepts-from: "*" under metadata: (or a comma-separated list of skill names)',
        )
        return False
    return _check_v3(fields, reader)


def _check_v3(fields: dict[str, Any], reader: FieldReader) -> bool:
    if not fields["accepts_from"]:
        reader.add(
            HANDOFF_NOT_ACCEPTED,
            "handoff.accepts_from is empty, so no skill may hand off to this one",
            "list the skills it accepts from, or '*' for any",
        )
        return False
    if not fields["categories"]:
        reader.add(
            HANDOFF_NO_CATEGORIES,
            "no categories: the skill is eligible but ranks poorly",
            "add top-level categories: [...]",
            Severity.WARNING,
        )
    return True


def _check_v2(handoff: Mapping[str, Any], fields: dict[str, Any], reader: FieldReader) -> bool:
    ok = True
    accepts = handoff.get("accepts_handoff")
    if accepts is not True:
        reader.add(
            HANDOFF_NOT_ACCEPTED,
            f"handoff.accepts_handoff is {accepts!r}, not true",
            "set accepts_handoff: true (a YAML boolean, unquoted) to accept hand-offs",
        )
        ok = False
    if not fields["categories"]:
        reader.add(
            HANDOFF_NO_CATEGORIES,
            "handoff.handoff_categories is missing or empty (required)",
            "add handoff_categories: [research] (at least one category)",
        )
        ok = False
    if not fields["description"]:
        reader.add(
            HANDOFF_NO_DESCRIPTION,
            "neither handoff.handoff_description nor description is set",
            "add handoff_description: a line shown in the hand-off menu",
        )
        ok = False
    return ok
