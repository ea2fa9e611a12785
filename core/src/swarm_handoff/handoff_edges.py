"""Outgoing `handoffs:` edges read from the receiving side: who a skill is named by, and with which prompt.

A spec-kit or VS Code skill says where it hands off (`handoffs: [{agent, label, prompt}]`), and
its targets usually declare nothing. Once every source has answered, `receive_named` looks at all
records together: each named target records the entries that name it (`meta["handoffs_in"]`),
and a target that declared no hand-off metadata at all becomes eligible to receive from exactly
the skills that name it. A target that declared its own metadata keeps it (its author's word wins),
as does a name some other scope's record already holds eligibly (so nothing shadows a real target).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from swarm_handoff.errors import Problem, Severity
from swarm_handoff.records import SkillRecord

HANDOFF_NAMED = "HANDOFF_NAMED"
_ABSENT = "HANDOFF_ABSENT"


def agent_key(name: str) -> str:
    """The form names are compared in: spec-kit's agent `speckit.plan` is the skill folder `speckit-plan`."""
    return name.strip().replace(".", "-")


def _names(record: SkillRecord) -> set[str]:
    names = {record.name, agent_key(record.name)}
    if record.declared_name:
        names |= {record.declared_name, agent_key(record.declared_name)}
    return names


def declares_nothing(record: SkillRecord) -> bool:
    """Undeclared (only HANDOFF_ABSENT kept it out) and readable: nothing the author said is overruled."""
    codes = {p.code for p in record.problems if p.severity is not Severity.INFO}
    return not record.eligible and not codes and any(p.code == _ABSENT for p in record.problems)


def receive_named(records: Sequence[SkillRecord]) -> Sequence[SkillRecord]:
    """Every record, with the `handoffs:` entries naming it attached and undeclared targets made eligible."""
    senders = [r for r in records if r.meta.get("handoffs")]
    if not senders:  # the common case costs one pass
        return records
    incoming: dict[str, list[dict[str, Any]]] = {}
    for sender in senders:
        for entry in sender.meta["handoffs"]:
            if isinstance(entry, Mapping) and isinstance(entry.get("agent"), str):
                incoming.setdefault(agent_key(entry["agent"]), []).append({"from": sender.name, **entry})
    held = {r.name for r in records if r.eligible}
    out: list[SkillRecord] = []
    for record in records:
        found = {id(e): e for key in _names(record) for e in incoming.get(key, ()) if e["from"] != record.name}
        if not found:
            out.append(record)
            continue
        entries = list(found.values())
        meta = {**dict(record.meta), "handoffs_in": entries}
        if declares_nothing(record) and record.name not in held:
            out.append(_promoted(record, meta, entries))
        else:
            out.append(attrs.evolve(record, meta=meta))
    return out


def _promoted(record: SkillRecord, meta: dict[str, Any], entries: list[dict[str, Any]]) -> SkillRecord:
    senders = tuple(dict.fromkeys(e["from"] for e in entries))
    note = Problem(
        HANDOFF_NAMED,
        f"declares no hand-off metadata, but {', '.join(senders)} hand(s) off to it (handoffs:), "
        "so it accepts hand-offs from them",
        path=record.path,
        hint="to accept hand-offs from any skill, add metadata (swarm-handoff adopt SKILL)",
        severity=Severity.INFO,
    )
    kept = tuple(p for p in record.problems if p.code != _ABSENT)
    return attrs.evolve(
        record, eligible=True, accepts_from=senders, protocol_version="3.0", meta=meta, problems=(*kept, note)
    )


def incoming_from(record: SkillRecord, source: str) -> dict[str, Any] | None:
    """The `handoffs:` entry by which `source` names `record` (its label, prompt and send), if any."""
    for entry in record.meta.get("handoffs_in") or ():
        if isinstance(entry, Mapping) and entry.get("from") == source:
            return {k: entry.get(k) for k in ("from", "label", "prompt", "send") if entry.get(k) is not None}
    return None
