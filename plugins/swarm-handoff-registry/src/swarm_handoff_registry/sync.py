"""`registry sync`: regenerate the registry from discovery while keeping what the user wrote.

The file is edited with ruamel.yaml's round-trip mode, so comments, key order, quoting, custom
keys and entries that discovery does not know (remote workflows) survive. For each discovered
local workflow the fields that come from its frontmatter are updated only where they differ, so
unchanged values keep their formatting; a new workflow is appended. The previous file is kept as
`handoff-registry.yaml.bak`, and the new one is written atomically.

What is synced is the user's own: the user-level skills folder (the seed's "scan all
`~/.claude/skills/*/SKILL.md`") and, when asked (`--packs`), installed packs, never a project or git
root, whose skills are not the user's everywhere. A pack entry records the environment it was
found in (`environment: sys.prefix`), so another environment does not take it for its own. An
entry whose `skill_path` is gone is marked `stale: true` (with `stale_reason`), kept with its
manual edits, and removed only by `registry prune`.
"""

from __future__ import annotations

import datetime
import io
import os
import sys
from pathlib import Path
from typing import Any, ClassVar

import attrs

from swarm_handoff.api import Problem, Scope, SkillRecord, SwarmError, atomic_write, locked, plain
from swarm_handoff_registry.registry import remote_host
from swarm_handoff_registry.registry_file import (
    REGISTRY_MAX_BYTES,
    REGISTRY_SYNC_FAILED,
    REGISTRY_TOO_LARGE,
    keep_backup,
    load_registry,
    refuse_oversized,
    write_registry,
)
from swarm_handoff_registry.sync_check import confirm_written, validate_text

__all__ = [
    "REGISTRY_MAX_BYTES",
    "REGISTRY_SYNC_FAILED",
    "REGISTRY_TOO_LARGE",
    "PruneReport",
    "SyncReport",
    "prune",
    "sync",
]


@attrs.frozen
class SyncReport:
    """The `registry sync` document: what was added, updated and left alone."""

    kind: ClassVar[str] = "registry-sync"
    path: str
    backup: str | None
    added: tuple[str, ...]
    updated: tuple[str, ...]
    kept: tuple[str, ...]
    stale: tuple[str, ...] = ()
    remote: tuple[str, ...] = ()
    # what re-reading the written file found wrong with entries the user wrote (each kept as written)
    problems: tuple[Problem, ...] = ()

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        data = attrs.asdict(self, filter=lambda a, _v: a.name != "problems")
        data["problems"] = [p.to_data() for p in self.problems]
        return data

    def to_text(self) -> str:
        """A short summary of the sync."""
        lines = [f"wrote {self.path}" + (f" (previous file kept as {self.backup})" if self.backup else "")]
        for label, names in (
            ("added", self.added),
            ("updated", self.updated),
            ("kept as written", self.kept),
            ("stale (skill gone; `registry prune` removes)", self.stale),
            ("remote (on another machine: kept, never stale)", self.remote),
        ):
            if names:
                lines.append(f"  {label}: {', '.join(names)}")
        lines += [f"  {p.location()}: {p.code}: {p.message}" for p in self.problems]
        return "\n".join(lines) + "\n"


def _entry_fields(record: SkillRecord) -> dict[str, Any]:
    """The fields of a registry entry that discovery owns, in the registry format's order."""
    handoff: dict[str, Any] = {}
    if record.accepts_from:
        handoff["accepts_from"] = list(record.accepts_from)
        handoff["provides_to"] = list(record.provides_to)
        handoff["schema_version"] = record.schema_version or "3.0"
        handoff["schema_type"] = record.schema_type or "universal"
    else:  # a v2.0 skill: keep its hand-off block in its own terms
        handoff["accepts_handoff"] = True
        handoff["handoff_categories"] = list(record.categories)
        handoff["handoff_description"] = record.description
        handoff["protocol_version"] = record.protocol_version
    fields: dict[str, Any] = {
        "name": record.name,
        "description": record.description,
        "skill_path": record.path,
        "handoff": handoff,
        "categories": list(record.categories),
    }
    if record.input_requirements:
        fields["input_requirements"] = list(record.input_requirements)
    if record.output_types:
        fields["output_types"] = list(record.output_types)
    if "version" in record.meta:
        fields["version"] = str(record.meta["version"])
    if record.scope is Scope.INSTALLED:  # a pack's path is this environment's: say which one
        fields["environment"] = sys.prefix
    return fields


STALE_KEYS = ("stale", "stale_reason")


def _mark_stale(entry: Any) -> bool:
    """Mark an entry whose local skill is gone; True when it is (now or already) stale.

    A remote entry (`host:` another machine) is never stale here, and loses a mark an earlier sync
    gave it before it said where it lives.
    """
    if remote_host(entry) is not None:
        for key in STALE_KEYS:
            if key in entry:
                del entry[key]
        return False
    skill_path = entry.get("skill_path")
    if not isinstance(skill_path, str) or os.path.exists(os.path.expanduser(skill_path)):
        return bool(entry.get("stale") is True)
    if entry.get("stale") is not True:
        entry["stale"] = True
        entry["stale_reason"] = f"{skill_path} is gone"
    return True


def _update(entry: Any, fields: dict[str, Any]) -> bool:
    """Set each owned field that differs; nested mappings are updated key by key. True if changed."""
    from ruamel.yaml.comments import CommentedMap

    changed = False
    for key, value in fields.items():
        current = entry.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            changed = _update(current, value) or changed
        elif plain(current) != value:  # the core's reading of loaded YAML: a date is its ISO text
            entry[key] = CommentedMap(value) if isinstance(value, dict) else value
            changed = True
    return changed


def sync(path: Path, discovered: tuple[SkillRecord, ...], now: datetime.datetime | None = None) -> SyncReport:
    """Merge the discovered local workflows into the registry at `path` and write it back.

    The read-change-write runs under an exclusive lock on the registry's folder (the one `skills
    link` uses for its manifest), so two syncs at once each keep the other's entries.
    """
    path.parent.mkdir(parents=True, exist_ok=True)  # the lock is taken on this folder
    with locked(path.parent):
        return _sync_locked(path, discovered, now)


def _sync_locked(path: Path, discovered: tuple[SkillRecord, ...], now: datetime.datetime | None) -> SyncReport:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    yaml, document, previous = load_registry(path)
    if document is None:
        document = CommentedMap([("version", "1.0"), ("updated_at", ""), ("workflows", CommentedSeq())])
    if not isinstance(document, dict) or not isinstance(document.get("workflows", []), list):
        raise SwarmError(REGISTRY_SYNC_FAILED, f"{path} is not a registry (no 'workflows:' list)")
    workflows = document.setdefault("workflows", CommentedSeq())
    by_name = {e.get("name"): e for e in workflows if isinstance(e, dict)}
    added: list[str] = []
    updated: list[str] = []
    local = [r for r in discovered if r.scope is not Scope.REGISTRY]
    for record in local:
        fields = _entry_fields(record)
        entry = by_name.get(record.name)
        if entry is None:
            workflows.append(CommentedMap(fields))
            added.append(record.name)
        else:
            changed = _update(entry, fields)
            for key in STALE_KEYS:  # the skill is back
                if key in entry:
                    del entry[key]
                    changed = True
            if changed:
                updated.append(record.name)
    names = {r.name for r in local}
    others = [e for e in workflows if isinstance(e, dict) and e.get("name") not in names]
    kept = [str(e.get("name")) for e in others]
    stale = [str(e.get("name")) for e in others if _mark_stale(e)]

    remote = [str(e.get("name")) for e in others if remote_host(e) is not None]
    stamp = (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y-%m-%dT%H:%M:%SZ")
    document["updated_at"] = stamp
    meta = document.setdefault("meta", CommentedMap())
    if isinstance(meta, dict):
        meta["total_workflows"] = len(workflows)
        meta["last_scan"] = stamp
        meta.setdefault("discovery_mode", "hybrid")
    text = _dump(yaml, document)
    written = text.encode("utf-8")
    refuse_oversized(path, written)
    problems = validate_text(text, path, [r.name for r in local])  # the seed's step 5, before anything is replaced
    backup = keep_backup(path, previous) if previous is not None else None
    atomic_write(path, written)
    confirm_written(path, written, previous)  # ... and the file on disk holds exactly that text
    return SyncReport(
        path=str(path),
        backup=str(backup) if backup else None,
        added=tuple(added),
        updated=tuple(updated),
        kept=tuple(kept),
        stale=tuple(stale),
        remote=tuple(remote),
        problems=problems,
    )


def _dump(yaml: Any, document: Any) -> str:
    """The registry's text as the round-trip writer lays it out."""
    stream = io.StringIO()
    yaml.dump(document, stream)
    return stream.getvalue()


@attrs.frozen
class PruneReport:
    """The `registry prune` document: the stale entries removed."""

    kind: ClassVar[str] = "registry-prune"
    path: str
    backup: str | None
    removed: tuple[str, ...]

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return attrs.asdict(self)

    def to_text(self) -> str:
        """What was removed, or that nothing was stale."""
        if not self.removed:
            return f"{self.path}: no stale entry\n"
        return f"removed from {self.path}: {', '.join(self.removed)} (previous file kept as {self.backup})\n"


def prune(path: Path) -> PruneReport:
    """Remove the entries `sync` marked stale (their skill is gone), keeping everything else as written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with locked(path.parent):
        yaml, document, previous = load_registry(path)
        workflows = document.get("workflows") if isinstance(document, dict) else None
        if previous is None or not isinstance(workflows, list):
            return PruneReport(path=str(path), backup=None, removed=())
        removed = [str(e.get("name")) for e in workflows if isinstance(e, dict) and e.get("stale") is True]
        if not removed:
            return PruneReport(path=str(path), backup=None, removed=())
        for index in reversed(range(len(workflows))):
            entry = workflows[index]
            if isinstance(entry, dict) and entry.get("stale") is True:
                del workflows[index]
        meta = document.get("meta")
        if isinstance(meta, dict) and "total_workflows" in meta:
            meta["total_workflows"] = len(workflows)
        backup = write_registry(path, previous, _dump(yaml, document))
        return PruneReport(path=str(path), backup=str(backup), removed=tuple(removed))
