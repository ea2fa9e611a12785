"""`registry sync`: regenerate the registry from discovery while keeping what the user wrote.

The file is edited with ruamel.yaml's round-trip mode, so comments, key order, quoting, custom
keys and entries that discovery does not know (remote workflows) survive. For each discovered
local workflow the fields that come from its frontmatter are updated only where they differ, so
unchanged values keep their formatting; a new workflow is appended. The previous file is kept as
`handoff-registry.yaml.bak`, and the new one is written atomically.
"""

from __future__ import annotations

import datetime
import io
import os
from pathlib import Path
from typing import Any, ClassVar

import attrs

from swarm_handoff.api import atomic_write
from swarm_handoff.errors import SwarmError
from swarm_handoff.records import Scope, SkillRecord

REGISTRY_SYNC_FAILED = "REGISTRY_SYNC_FAILED"
BACKUP_SUFFIX = ".bak"


@attrs.frozen
class SyncReport:
    """The `registry sync` document: what was added, updated and left alone."""

    kind: ClassVar[str] = "registry-sync"
    path: str
    backup: str | None
    added: tuple[str, ...]
    updated: tuple[str, ...]
    kept: tuple[str, ...]

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return attrs.asdict(self)

    def to_text(self) -> str:
        """A short summary of the sync."""
        lines = [f"wrote {self.path}" + (f" (previous file kept as {self.backup})" if self.backup else "")]
        for label, names in (("added", self.added), ("updated", self.updated), ("kept as written", self.kept)):
            if names:
                lines.append(f"  {label}: {', '.join(names)}")
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
    return fields


def _update(entry: Any, fields: dict[str, Any]) -> bool:
    """Set each owned field that differs; nested mappings are updated key by key. True if changed."""
    from ruamel.yaml.comments import CommentedMap

    changed = False
    for key, value in fields.items():
        current = entry.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            changed = _update(current, value) or changed
        elif _plain(current) != value:
            entry[key] = CommentedMap(value) if isinstance(value, dict) else value
            changed = True
    return changed


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def sync(path: Path, discovered: tuple[SkillRecord, ...], now: datetime.datetime | None = None) -> SyncReport:
    """Merge the discovered local workflows into the registry at `path` and write it back.

    The read-change-write runs under an exclusive lock on the registry's folder (the one `skills
    link` uses for its manifest), so two syncs at once each keep the other's entries.
    """
    from swarm_handoff.safefs import locked

    path.parent.mkdir(parents=True, exist_ok=True)  # the lock is taken on this folder
    with locked(path.parent):
        return _sync_locked(path, discovered, now)


def _read(path: Path) -> bytes | None:
    """The registry's bytes, None when there is none; anything else unreadable stops the sync."""
    from swarm_handoff.yamlio import LoadError, read_regular

    try:
        return read_regular(path)
    except LoadError as exc:
        if not os.path.lexists(path):
            return None
        raise _unreadable(path, exc.problem.message) from None


def _unreadable(path: Path, why: object) -> SwarmError:
    return SwarmError(
        REGISTRY_SYNC_FAILED,
        f"cannot read {path}: {why}",
        hint="fix the file (or move it away) and sync again; it was not changed",
    )


def _keep_backup(path: Path, previous: bytes) -> Path:
    """Keep the previous bytes as `.bak`, as private as the registry was, never through a link."""
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    # A new file renamed into place: a symbolic link planted at the backup's name is replaced,
    # never written through (copying onto it would overwrite whatever it points at).
    atomic_write(backup, previous)
    try:
        mode = os.stat(path).st_mode & 0o777
        fd = os.open(backup, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return backup
    try:
        os.fchmod(fd, mode)
    except (OSError, AttributeError):  # pragma: no cover - fchmod is POSIX
        pass
    finally:
        os.close(fd)
    return backup


def _sync_locked(path: Path, discovered: tuple[SkillRecord, ...], now: datetime.datetime | None) -> SyncReport:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.error import YAMLError

    from swarm_handoff.yamlio import LoadError, check_events, check_nesting
    from swarm_handoff.yamlout import portable_yaml

    yaml = portable_yaml("rt")  # strings YAML 1.1 readers would misread are quoted
    yaml.preserve_quotes = True
    yaml.indent(mapping=2, sequence=4, offset=2)  # the registry format's own layout
    yaml.width = 4096  # never fold a long skill_path onto a second line
    document: Any = None
    previous = _read(path)
    if previous is not None:
        try:
            text = previous.decode("utf-8")
            check_nesting(text, path=str(path))
            check_events(text, path=str(path))  # depth, tags and number limits before the recursive loader
            document = yaml.load(text)
        except LoadError as exc:
            raise SwarmError(
                REGISTRY_SYNC_FAILED,
                f"cannot read {path}: {exc.problem.message}",
                hint="fix the file (or move it away) and sync again; it was not changed",
                problems=(exc.problem,),
            ) from None
        except (YAMLError, ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            raise _unreadable(path, exc) from None
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
        elif _update(entry, fields):
            updated.append(record.name)
    names = {r.name for r in local}
    kept = [str(e.get("name")) for e in workflows if isinstance(e, dict) and e.get("name") not in names]
    stamp = (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y-%m-%dT%H:%M:%SZ")
    document["updated_at"] = stamp
    meta = document.setdefault("meta", CommentedMap())
    if isinstance(meta, dict):
        meta["total_workflows"] = len(workflows)
        meta["last_scan"] = stamp
        meta.setdefault("discovery_mode", "hybrid")
    stream = io.StringIO()
    yaml.dump(document, stream)
    backup = _keep_backup(path, previous) if previous is not None else None
    atomic_write(path, stream.getvalue().encode("utf-8"))
    return SyncReport(
        path=str(path),
        backup=str(backup) if backup else None,
        added=tuple(added),
        updated=tuple(updated),
        kept=tuple(kept),
    )
