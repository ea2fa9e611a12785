"""What a hand-off owes its target before it is written: an accepted source, a version it reads, its `requires`.

`hand_off` asks three questions here. May this source hand off to the target (`accepts_from`,
overridable and then recorded)? Which payload version goes to it (the target's own by default, the
registry's compatibility matrix deciding what is refused, partial or converted)? Does the built
payload carry every field the target `requires` (and which `optional_consumes` it lacks)? Each
refusal is a coded error whose hint names the one thing to change.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from swarm_handoff.eligibility import (
    NO,
    PARTIAL,
    WRITABLE,
    accepted_sources,
    accepts,
    compatibility,
    target_version,
)
from swarm_handoff.errors import ErrorCode, Problem, Severity, SwarmError
from swarm_handoff.inputs import finding, given, ref, switched_on
from swarm_handoff.records import SkillRecord
from swarm_handoff.synthesis import PROBLEM_TYPES

SOURCE_NOT_ACCEPTED = "SOURCE_NOT_ACCEPTED"
SCHEMA_INCOMPATIBLE = "SCHEMA_INCOMPATIBLE"
SCHEMA_PARTIAL = "SCHEMA_PARTIAL"
PROBLEM_TYPE_NOT_IN_V2 = "PROBLEM_TYPE_NOT_IN_V2"
OVERRIDE_OPTION = "--override-accepts-from"  # what a payload records when no caller says its own spelling


def check_source(
    record: SkillRecord,
    source: str,
    *,
    override: bool,
    option: str = OVERRIDE_OPTION,
) -> dict[str, Any] | None:
    """Refuse a source the target does not accept; with `override`, what the payload records (`option`: as given).

    The refusal names the inputs by neutral name; each interface renders its spelling (`inputs.py`).
    """
    if accepts(record, source):
        return None
    allowed = list(accepted_sources(record))
    if override:
        return {"source": source, "accepts_from": allowed, "option": option}
    raise SwarmError(
        SOURCE_NOT_ACCEPTED,
        f"{record.name} does not accept hand-offs from {source}; it accepts from: {', '.join(allowed) or 'nobody'}",
        details={
            "target_skill": record.name,
            "source": source,
            "accepts_from": allowed,
            "override": "override_accepts_from",
        },
        hint=f"hand off from one of {', '.join(allowed) or '(none)'} ({ref('source')}), choose another target "
        f"({finding('accepts_from', source)}), or pass {switched_on('override_accepts_from')} "
        "to hand off anyway "
        "(recorded in the payload and the history)",
        recoverable=True,
    )


@attrs.frozen(kw_only=True)
class VersionChoice:
    """The payload version to write, whether it is built as 3.0 and down-converted, and the warnings."""

    version: str
    downconvert: bool = False
    warnings: tuple[Problem, ...] = ()


def choose_version(
    record: SkillRecord,
    *,
    forced: str | None,
    source_is_v3: bool,
    problem_type: str,
    synthesis_path: str | None,
) -> VersionChoice:
    """Pick the payload version for `record`: the forced one, else the version the target reads.

    Refusals name the inputs by neutral name; each interface renders its spelling (`inputs.py`).
    """
    wanted = target_version(record)
    if forced is not None:
        status, note = compatibility(forced, wanted)
        if status == NO or wanted not in WRITABLE:
            _incompatible(record, forced, wanted, note)
        warnings: tuple[Problem, ...] = ()
        if status == PARTIAL:
            warnings = (
                Problem(
                    SCHEMA_PARTIAL,
                    f"{record.name} reads schema {wanted}; a {forced} payload is only partially compatible: {note}",
                    hint=f"drop {ref('schema')} to let the target's version ({wanted}) decide",
                    severity=Severity.WARNING,
                ),
            )
        if forced == "2.0":
            _check_v2_problem_type(record, problem_type, synthesis_path, forced=True)
        return VersionChoice(version=forced, warnings=warnings)
    if wanted not in WRITABLE:
        _incompatible(record, "3.0", wanted, compatibility("3.0", wanted)[1])
    if wanted == "3.0":
        return VersionChoice(version="3.0")
    _check_v2_problem_type(record, problem_type, synthesis_path, forced=False)
    return VersionChoice(version="2.0", downconvert=source_is_v3)


def _incompatible(record: SkillRecord, version: str, wanted: str, note: str) -> None:
    raise SwarmError(
        SCHEMA_INCOMPATIBLE,
        f"{record.name} reads schema {wanted}: a {version} payload is not compatible ({note})",
        details={"target_skill": record.name, "target_version": wanted, "payload_version": version},
        hint=f"choose a target that reads 2.0 or 3.0 ({finding('schema_version', '3.0')}); "
        "no adapter to its schema exists yet",
        recoverable=False,
    )


def _check_v2_problem_type(record: SkillRecord, problem_type: str, synthesis_path: str | None, *, forced: bool) -> None:
    if problem_type in PROBLEM_TYPES:
        return
    v2, v3 = given("schema", "2.0"), given("schema", "3.0")
    why = f"{v2} was given" if forced else f"{record.name} reads only schema 2.0"
    fix = f"drop {v2} (or pass {v3})" if forced else "hand off to a skill that reads v3.0"
    kinds = ", ".join(PROBLEM_TYPES)
    # A synthesis without a file is a request in words (`request_words`): its type was an input.
    change = (
        f"in {synthesis_path}, change problem_type: {problem_type} to one of {kinds}"
        if synthesis_path
        else f"pass {ref('problem_type')} as one of {kinds}"
    )
    raise SwarmError(
        PROBLEM_TYPE_NOT_IN_V2,
        f"problem_type {problem_type!r} cannot be carried by a v2.0 payload, and {why}",
        details={"target_skill": record.name, "problem_type": problem_type, "v2_problem_types": list(PROBLEM_TYPES)},
        hint=f"{change}; or {fix}",
        recoverable=True,
    )


def lookup(handoff: Mapping[str, Any], path: str) -> bool:
    """True when the dotted `path` (relative to `handoff`, a leading `handoff.` allowed) has a value."""
    parts = path.strip().split(".")
    if parts and parts[0] == "handoff":
        parts = parts[1:]
    value: Any = handoff
    for part in parts:
        if not isinstance(value, Mapping) or part not in value:
            return False
        value = value[part]
    return value is not None and value != ""


def requirements(record: SkillRecord, payload: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The `requires` paths the payload lacks, and notes for the missing `optional_consumes`."""
    handoff = payload.get("handoff")
    handoff = handoff if isinstance(handoff, Mapping) else {}
    missing = [p for p in record.requires if not lookup(handoff, p)]
    notes = [
        f"{record.name} can use {p} (optional_consumes), which this payload does not carry"
        for p in record.optional_consumes
        if not lookup(handoff, p)
    ]
    return missing, notes


def requirements_error(record: SkillRecord, missing: list[str], version: str) -> SwarmError:
    """VALIDATION_FAILED naming every required path the payload lacks."""
    return SwarmError(
        ErrorCode.VALIDATION_FAILED,
        f"{record.name} requires {', '.join(missing)}, which the v{version} payload does not carry",
        details={
            "missing_fields": missing,
            "validation_errors": [f"{p}: required by {record.name} (handoff.requires)" for p in missing],
            "target_skill": record.name,
        },
        hint="add the missing fields to the synthesis, or hand off with the --schema version whose payload "
        "carries them (paths are relative to handoff:)",
        recoverable=True,
    )
