"""Read candidate workflows from a file in the session cache format, for `rank --workflows`.

Stage 4 scores what Stage 1 cached in `available-workflows.yaml`, so `rank` can take that file
instead of discovering again. Entries use the cache's keys (`skill`, `scope`, `categories`,
`description`, `trigger`) and may add any other `SkillRecord` field (`schema_version`, `schema_type`,
`input_requirements`, `meta`, ...) in the form `SkillRecord.to_data` writes it, which is also how it
is read back (`SkillRecord.from_data`, the one serialisation of a record). One bad entry is reported and skipped; the
others are still ranked.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from swarm_handoff.errors import ErrorCode, Problem, Severity, SwarmError
from swarm_handoff.records import RECORD_FIELDS, Scope, SkillRecord
from swarm_handoff.yamlio import load_document

WORKFLOW_ENTRY_INVALID = "WORKFLOW_ENTRY_INVALID"
WORKFLOW_DUPLICATE = "WORKFLOW_DUPLICATE"
SOURCE_NAME = "workflows-file"

# Fields an entry may not set: identity and scope are checked on their own, the source is this file,
# and problems belong to the scan that found the skill. Every other record field is read through
# `SkillRecord.from_data` (the one serialisation), after checking its kind below.
_NOT_FROM_FILE = {"name", "scope", "source", "categories", "problems"}
_KIND_WORDS = {"text": "a string", "text?": "a string", "strings": "a list of strings", "bool": "true or false"}


def _checked(kind: str, value: Any) -> tuple[bool, Any]:
    """(ok, value in the record's data form) for one field of an entry, by the field's kind."""
    if kind in ("text", "text?"):
        ok = isinstance(value, (str, int, float)) and not isinstance(value, bool)
        return ok, str(value) if ok else value
    if kind == "strings":
        value = [value] if isinstance(value, str) else value
        return isinstance(value, list) and all(isinstance(v, str) for v in value), value
    if kind == "bool":
        return isinstance(value, bool), value
    if kind == "mapping":
        return isinstance(value, Mapping), value
    return False, value


def _entry(entry: Any, index: int, path: str) -> tuple[SkillRecord | None, Problem | None]:
    def bad(message: str) -> tuple[None, Problem]:
        hint = "each entry needs `skill:` and `categories:`; see docs/rank.md (candidate workflows)"
        where = f"workflows[{index}]"
        return None, Problem(
            WORKFLOW_ENTRY_INVALID, f"{where}: {message}", path=path, hint=hint, severity=Severity.WARNING
        )

    if not isinstance(entry, Mapping):
        return bad(f"must be a mapping, not {type(entry).__name__}")
    name = entry.get("skill", entry.get("name"))
    if not isinstance(name, str) or not name.strip():
        return bad("`skill` must be a non-empty string")
    categories = entry.get("categories")
    if isinstance(categories, str):
        categories = [categories]
    if not isinstance(categories, list) or not categories or not all(isinstance(c, str) for c in categories):
        return bad(f"{name}: `categories` must be a non-empty list of strings")
    scope = entry.get("scope", Scope.GLOBAL.value)
    if scope not in {s.value for s in Scope}:
        return bad(f"{name}: scope {scope!r} is not one of {', '.join(s.value for s in Scope)}")
    data: dict[str, Any] = {"skill": name.strip(), "scope": scope, "categories": categories}
    for attr, key, kind in RECORD_FIELDS:
        value = entry.get(key)
        if attr in _NOT_FROM_FILE or kind == "derived" or value is None:
            continue
        ok, data[key] = _checked(kind, value)
        if not ok:
            return bad(f"{name}: `{key}` must be {_KIND_WORDS.get(kind, 'a mapping')}")
    return SkillRecord.from_data(data, source=SOURCE_NAME), None


def load_workflows(path: Path | str) -> tuple[tuple[SkillRecord, ...], tuple[Problem, ...]]:
    """Return the valid workflows of `path` and one problem per entry that had to be skipped."""
    path = Path(path)
    data = load_document(path, "workflows")
    entries = data.get("workflows") if isinstance(data, Mapping) else None
    if not isinstance(entries, list):
        raise SwarmError(
            ErrorCode.VALIDATION_FAILED,
            f"{path} has no `workflows:` list",
            hint="use a session's available-workflows.yaml, or write `workflows:` with one entry per skill",
        )
    records: dict[str, SkillRecord] = {}
    problems: list[Problem] = []
    for index, entry in enumerate(entries):
        record, problem = _entry(entry, index, str(path))
        if problem is not None:
            problems.append(problem)
        if record is None:
            continue
        kept = records.get(record.name)
        if kept is not None:
            # One name, one menu entry: the more local scope wins, as it does in discovery.
            winner, loser = (record, kept) if record.priority < kept.priority else (kept, record)
            records[record.name] = winner
            message = f"workflows[{index}]: {record.name} is listed twice; keeping the {winner.scope.value} entry"
            hint = f"remove the {loser.scope.value} entry"
            problems.append(Problem(WORKFLOW_DUPLICATE, message, path=str(path), hint=hint, severity=Severity.WARNING))
            continue
        records[record.name] = record
    return tuple(records.values()), tuple(problems)
