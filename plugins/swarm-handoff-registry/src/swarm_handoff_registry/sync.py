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

from swarm_handoff.api import DOCUMENT_MAX_BYTES, Problem, Scope, SkillRecord, SwarmError, atomic_write

REGISTRY_SYNC_FAILED = "REGISTRY_SYNC_FAILED"
REGISTRY_TOO_LARGE = "REGISTRY_TOO_LARGE"
# What every reader of the registry accepts (the core's document limit, `textfile.MAX_BYTES`, which
# discovery's reader applies): sync reads with it and never writes more, so it never writes a
# registry that discovery, `registry show` or the next sync would refuse.
REGISTRY_MAX_BYTES = DOCUMENT_MAX_BYTES
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
    from swarm_handoff_registry.registry import remote_host

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
    from swarm_handoff.api import locked

    path.parent.mkdir(parents=True, exist_ok=True)  # the lock is taken on this folder
    with locked(path.parent):
        return _sync_locked(path, discovered, now)


def _read(path: Path) -> bytes | None:
    """The registry's bytes, None when there is none; anything else unreadable stops the sync."""
    from swarm_handoff.api import LoadError, read_regular

    try:
        return read_regular(path, limit=REGISTRY_MAX_BYTES)
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


def _write(path: Path, previous: bytes | None, text: str) -> Path | None:
    """Keep the previous file as `.bak`, then write `text`; a registry over the read limit is refused first."""
    data = text.encode("utf-8")
    _refuse_oversized(path, data)
    backup = _keep_backup(path, previous) if previous is not None else None
    atomic_write(path, data)
    return backup


def _refuse_oversized(path: Path, data: bytes) -> None:
    """Refuse, before the backup or the write, a registry its own readers would refuse."""
    if len(data) > REGISTRY_MAX_BYTES:
        raise SwarmError(
            REGISTRY_TOO_LARGE,
            f"{path}: the new registry would be {len(data)} bytes, over the {REGISTRY_MAX_BYTES} bytes "
            "every reader of it accepts; nothing was written",
            details={"path": str(path), "size_bytes": len(data), "limit_bytes": REGISTRY_MAX_BYTES},
            hint="run `swarm-handoff registry prune` to drop stale entries, or remove entries (long "
            "descriptions) you no longer need, then sync again",
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


def _load(path: Path) -> tuple[Any, Any, bytes | None]:
    """The round-trip loader, the document (None when there is no file) and the file's bytes."""
    from ruamel.yaml.error import YAMLError

    from swarm_handoff.api import LoadError, check_events, check_nesting, portable_yaml

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
    return yaml, document, previous


def _sync_locked(path: Path, discovered: tuple[SkillRecord, ...], now: datetime.datetime | None) -> SyncReport:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    yaml, document, previous = _load(path)
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
    from swarm_handoff_registry.registry import remote_host

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
    _refuse_oversized(path, written)
    problems = _validate(text, path, [r.name for r in local])  # the seed's step 5, before anything is replaced
    backup = _keep_backup(path, previous) if previous is not None else None
    atomic_write(path, written)
    _confirm_written(path, written, previous)  # ... and the file on disk holds exactly that text
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


def _written_wrong(path: Path, why: str) -> SwarmError:
    return SwarmError(
        REGISTRY_SYNC_FAILED,
        f"the registry sync was about to write to {path} does not read back: {why}",
        hint="the previous file was left (or put back) in place; report this with the registry file attached",
    )


def _check(data: Any, path: Path, synced: list[str]) -> tuple[Problem, ...]:
    """Validate a parsed registry as discovery reads it: every synced workflow there, entries' problems reported."""
    from swarm_handoff_registry.registry import REGISTRY_INVALID, entries_of

    _entries, problems = entries_of(data, path)
    if any(p.code == REGISTRY_INVALID for p in problems):
        raise _written_wrong(path, problems[0].message)
    listed = data.get("workflows") if isinstance(data, dict) else None
    present = {e.get("name") for e in listed or () if isinstance(e, dict)}
    missing = sorted(set(synced) - present)  # written, not there: a writer's bug, never the user's
    if missing:
        raise _written_wrong(path, f"no usable entry for {', '.join(missing)}")
    return tuple(problems)


def _validate(text: str, path: Path, synced: list[str]) -> tuple[Problem, ...]:
    """Parse the text about to be written with the safe loader discovery uses, and check it as discovery would.

    Returns the problems of entries the user wrote by hand (kept as written, never a failure).
    """
    from swarm_handoff.api import LoadError, parse_yaml

    try:
        data = parse_yaml(text, path=str(path))
    except LoadError as exc:
        if exc.problem.code in _READER_LIMITS:  # the registry outgrew what readers accept: the user's to trim
            raise _over_limit(path, exc.problem) from None
        raise _written_wrong(path, exc.problem.message) from None
    return _check(data, path, synced)


# The reader's refusals that mean "too big", not "written wrong": values (aliases expanded), nesting, bytes.
_READER_LIMITS = frozenset({"YAML_TOO_MANY_NODES", "YAML_TOO_DEEP", "YAML_TOO_LARGE"})


def _over_limit(path: Path, problem: Problem) -> SwarmError:
    """REGISTRY_TOO_LARGE for a registry that would pass one of its readers' limits; nothing is written."""
    return SwarmError(
        REGISTRY_TOO_LARGE,
        f"{path}: the new registry would be refused by every reader of it ({problem.message}); nothing was written",
        details={"path": str(path), "limit": problem.code},
        hint="run `swarm-handoff registry prune` to drop stale entries, or remove entries (long tag lists, "
        "deep custom keys) you no longer need, then sync again",
    )


def _confirm_written(path: Path, written: bytes, previous: bytes | None) -> None:
    """Read the written file back from disk; when it is not byte for byte what was validated, put the previous back.

    Equal bytes parse as the text `_validate` checked, so they are compared, not parsed a second time.
    """
    from swarm_handoff.api import LoadError, read_regular

    try:
        same = read_regular(path, limit=REGISTRY_MAX_BYTES) == written
        why = "the file on disk is not what was written"
    except LoadError as exc:
        same, why = False, exc.problem.message
    if same:
        return
    if previous is not None:
        atomic_write(path, previous)
    else:
        path.unlink(missing_ok=True)
    raise _written_wrong(path, why)


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
    from swarm_handoff.api import locked

    path.parent.mkdir(parents=True, exist_ok=True)
    with locked(path.parent):
        yaml, document, previous = _load(path)
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
        stream = io.StringIO()
        yaml.dump(document, stream)
        backup = _write(path, previous, stream.getvalue())
        return PruneReport(path=str(path), backup=str(backup), removed=tuple(removed))
