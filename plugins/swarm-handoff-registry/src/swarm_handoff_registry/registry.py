"""The registry file `$CLAUDE_CONFIG_DIR/handoff-registry.yaml` (else `~/.claude/...`) as a discovery source.

The file is optional: when it is absent the source says nothing at all. Each entry of `workflows:`
becomes a record of scope `registry`. Discovery's merge then lays a local skill's frontmatter over
the entry of the same name, field by field (the frontmatter wins), so the registry only fills in
what the skill leaves out; entries with no local skill (remote workflows) stay scope `registry`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from swarm_handoff.api import (
    OVERLAY,
    DiscoveryContext,
    LoadError,
    Location,
    Problem,
    Scope,
    ScopeSpec,
    Severity,
    SkillRecord,
    SourceResult,
    config_dir,
    load_file,
    plain,
    quoted,
    record_from_frontmatter,
    watch,
)

if TYPE_CHECKING:
    from swarm_handoff.api import Location

REGISTRY_FILE = "handoff-registry.yaml"
SOURCE = "registry"
REGISTRY_INVALID = "REGISTRY_INVALID"
REGISTRY_ENTRY_INVALID = "REGISTRY_ENTRY_INVALID"
REGISTRY_ENTRY_STALE = "REGISTRY_ENTRY_STALE"
REGISTRY_OTHER_ENVIRONMENT = "REGISTRY_OTHER_ENVIRONMENT"


def registry_path(env: Mapping[str, str] | None = None) -> Path:
    """Where the registry lives: next to the user's skills folder."""
    return config_dir(env) / REGISTRY_FILE


def _warn(code: str, message: str, path: Path, hint: str) -> Problem:
    return Problem(code, message, path=str(path), hint=hint, severity=Severity.WARNING)


def read_entries(path: Path) -> tuple[list[Mapping[str, Any]], list[Problem]]:
    """The file's workflow entries, or none (silently) when it does not exist."""
    if not path.exists():
        return [], []
    try:
        data = load_file(path)
    except LoadError as exc:
        return [], [attrs.evolve(exc.problem, severity=Severity.WARNING)]
    return entries_of(data, path)


def entries_of(data: Any, path: Path) -> tuple[list[Mapping[str, Any]], list[Problem]]:
    """The usable workflow entries of a parsed registry, with a problem for each one set aside."""
    if data is None:
        return [], []
    if not isinstance(data, Mapping) or not isinstance(data.get("workflows", []), list):
        return [], [
            _warn(REGISTRY_INVALID, "expected a mapping with a 'workflows:' list", path, "see docs/registry.md")
        ]
    entries: list[Mapping[str, Any]] = []
    problems: list[Problem] = []
    for index, entry in enumerate(data.get("workflows") or []):
        if not (isinstance(entry, Mapping) and isinstance(entry.get("name"), str) and entry["name"].strip()):
            problems.append(
                _warn(REGISTRY_ENTRY_INVALID, f"workflows[{index}] has no 'name'", path, "give every entry a name")
            )
            continue
        why = entry_problem(entry)
        if why is not None:
            problems.append(_warn(REGISTRY_ENTRY_INVALID, f"workflows[{index}] {why}; skipped", path, _ENTRY_HINT))
            continue
        entries.append(entry)
    return entries, problems


_ENTRY_HINT = "a name is a plain skill name; skill_path is the absolute path of a SKILL.md"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def entry_problem(entry: Mapping[str, Any]) -> str | None:
    """Why an entry's name or skill_path cannot be used to build a path, or None when both can.

    Names become parts of file names (a v3.0 payload is `{source}-to-{target}-...json`) and
    skill_path the folder a health check runs in, so neither may smuggle in another location.
    """
    name = entry["name"]
    if name in (".", "..") or any(sep in name for sep in ("/", "\\")) or _CONTROL.search(name):
        return f"has the name {quoted(name)}, which is a path or holds control characters, not a skill name"
    host = entry.get("host")
    if host is not None and not (isinstance(host, str) and _HOST.fullmatch(host)):
        return f"has the host {quoted(host)}, which is not a machine name (letters, digits, '.', '-', '_')"
    skill_path = entry.get("skill_path")
    if skill_path is None:
        return None
    if not isinstance(skill_path, str) or "\0" in skill_path or _CONTROL.search(skill_path):
        return f"has a skill_path that is not a path: {quoted(skill_path)}"
    expanded = os.path.expanduser(skill_path)
    if not os.path.isabs(expanded) or ".." in Path(expanded).parts:
        why = f"has the skill_path {quoted(skill_path)}: it must be absolute, with no '..'"
        if "://" in skill_path:  # a URL: the machine is said with `host:`, the path is a path there
            why += "; for a workflow on another machine write its path there and add `host: MACHINE`"
        return why
    return None


_HOST = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,252}")


def this_host() -> str:
    """This machine's name, as a registry entry's `host:` names a machine.

    `os.uname().nodename` is what `socket.gethostname()` returns on POSIX, without importing
    `socket` into discovery; no DNS lookup (`getfqdn`) is made: a short name matches its full form.
    """
    if hasattr(os, "uname"):
        return os.uname().nodename
    import socket  # pragma: no cover - Windows has no uname

    return socket.gethostname()


def remote_host(entry: Mapping[str, Any], here: str | None = None) -> str | None:
    """The machine a remote entry's skill lives on; None when the entry is this machine's.

    An entry is remote when its `host:` names another machine (case ignored; a short name matches
    its fully qualified form). Its `skill_path` is a path on that machine, so its absence here
    says nothing: such an entry is never stale, and a hand-off to it writes the payload here for
    the user to carry over.
    """
    host = entry.get("host")
    if not isinstance(host, str) or not host.strip():
        return None
    mine = (here if here is not None else this_host()).casefold()
    theirs = host.strip().casefold()
    if theirs == mine or theirs.split(".")[0] == mine.split(".")[0]:
        return None
    return host.strip()


def entry_record(entry: Mapping[str, Any], path: Path) -> SkillRecord:
    """One registry entry as a record of scope `registry` (same fields as a frontmatter)."""
    data = plain(dict(entry))
    skill_path = data.get("skill_path")
    remote = remote_host(entry)
    local_path = os.path.expanduser(skill_path) if isinstance(skill_path, str) and remote is None else None
    record = record_from_frontmatter(
        data,
        name=data["name"],
        scope=Scope.REGISTRY,
        source=SOURCE,
        # a remote entry's skill_path is a path on its host: nothing here may read it
        path=local_path or str(path),
    )
    meta: dict[str, Any] = {**record.meta, "registry_file": str(path)}
    if remote is not None:
        meta["remote_host"] = remote
        if isinstance(skill_path, str):
            meta["remote_skill_path"] = skill_path
    record = attrs.evolve(record, meta=meta)
    why = None if remote is not None else unusable(entry, path)  # a remote skill is neither gone nor another env's
    if why is None:
        return record
    return attrs.evolve(record, eligible=False, problems=(*record.problems, why))


def unusable(entry: Mapping[str, Any], path: Path) -> Problem | None:
    """Why a local entry is never a hand-off target here: its skill is gone, or it is another environment's pack.

    Asked only of a local entry: a remote one (`host:` another machine) is neither, its skill_path
    being a path over there.
    """
    import sys

    name = entry.get("name")
    stale = entry.get("stale") is True
    reason = entry.get("stale_reason") or "its skill is gone"
    skill_path = entry.get("skill_path")
    if not stale and isinstance(skill_path, str) and not os.path.exists(os.path.expanduser(skill_path)):
        # gone since the last `registry sync`: `handoff` refuses it, so the listing must not offer it
        stale, reason = True, f"{skill_path} is gone"
    if stale:
        return _warn(
            REGISTRY_ENTRY_STALE,
            f"registry entry {name} is stale: {reason}",
            path,
            "`swarm-handoff registry prune` removes it; `registry sync` clears the mark when the skill is back",
        )
    environment = entry.get("environment")
    if isinstance(environment, str) and environment != sys.prefix:
        return _warn(
            REGISTRY_OTHER_ENVIRONMENT,
            f"registry entry {name} is a pack installed in another environment ({environment})",
            path,
            "install the pack here, or hand off from that environment",
        )
    return None


class RegistrySource:
    """The `registry` discovery source."""

    # Its records fill in a more local skill of the same name instead of losing to it.
    scopes = (ScopeSpec("registry", 5, OVERLAY),)

    def discover(self, context: DiscoveryContext) -> SourceResult:
        """Read the registry file, if there is one; its absence is not a problem."""
        path = context.config_dir / REGISTRY_FILE
        watch(path)  # before reading: the core then knows the answer rests on this file (absent or not)
        entries, problems = read_entries(path)
        for entry in entries:  # a skill folder removed since is seen by the next run, cached or not
            skill_path = entry.get("skill_path")
            if isinstance(skill_path, str) and remote_host(entry) is None:  # a remote path is not one here
                watch(Path(os.path.expanduser(skill_path)))
        records = tuple(entry_record(e, path) for e in entries)
        return SourceResult(records=records, problems=tuple(problems))

    def cache_key(self, context: DiscoveryContext) -> str:  # CachedSource
        """Nothing but the watched file: the config folder is already part of every cache key."""
        return ""

    def locations(self, context: DiscoveryContext, name: str) -> list[Location]:  # LocatingSource
        """Where `why` looks: the entry of that name in the registry file."""
        path = context.config_dir / REGISTRY_FILE
        note = None if path.exists() else "no registry file"
        return [Location(Scope.REGISTRY, f"{path} (workflows: name {name})", note)]


@attrs.frozen
class RegistryDocument:
    """The `registry show` document: the file, its entries as records, and any problems."""

    kind: ClassVar[str] = "registry"
    path: str
    exists: bool
    entries: tuple[SkillRecord, ...] = ()
    problems: tuple[Problem, ...] = ()

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {
            "path": self.path,
            "exists": self.exists,
            "workflows": [r.to_data() for r in self.entries],
            "problems": [p.to_data() for p in self.problems],
        }

    def to_text(self) -> str:
        """One line per entry, or a note that there is no file."""
        if not self.exists:
            return f"{self.path}: no registry file (optional; `swarm-handoff registry sync` creates it)\n"
        lines = [f"{self.path}: {len(self.entries)} workflow(s)"]
        for r in self.entries:
            state = "" if r.eligible else f"  [not a target: {r.problems[-1].message}]" if r.problems else ""
            if r.eligible and "remote_host" in r.meta:
                state = f"  [remote: on {r.meta['remote_host']}]"
            lines.append(f"  {r.name}  ({', '.join(r.categories) or '-'})  {r.description}{state}")
        lines += [f"  {p.location()}: {p.code}: {p.message}" for p in self.problems]
        return "\n".join(lines) + "\n"


def show(path: Path) -> RegistryDocument:
    """Read the registry for `registry show`."""
    entries, problems = read_entries(path)
    return RegistryDocument(
        path=str(path),
        exists=path.exists(),
        entries=tuple(entry_record(e, path) for e in entries),
        problems=tuple(problems),
    )
