"""Skill packs as a discovery source: skills that a `pip install`ed distribution registers.

An entry point of the `swarm_handoff.skills` group names a skill (its shape, and how packs load
through the one loader, are in `pack_entries.py`); the entry point's name is the skill's name.
Scope `installed` (precedence 4, below `global`). The same allow/block/strict controls apply,
read from the environment the plugin host was built from (which code a process imports is the
loader's business, not one discovery's), each entry point on its own.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

import attrs

from swarm_handoff.cache import not_cacheable, read_skills, watch
from swarm_handoff.entrypoints import entry_points
from swarm_handoff.errors import Problem, Severity
from swarm_handoff.filecache import path_folders
from swarm_handoff.loader import ENV_DISABLE_PACKS as ENV_DISABLE_PACKS
from swarm_handoff.loader import ENV_LOAD_PACKS as ENV_LOAD_PACKS
from swarm_handoff.loader import PACK_LOAD_FAILED as PACK_LOAD_FAILED
from swarm_handoff.loader import PACKS, SKILLS_ENTRY_POINT_GROUP, Candidate, load_one, policy_key, select
from swarm_handoff.metadata import record_from_frontmatter
from swarm_handoff.pack_entries import NOT_A_SKILL, NOT_A_SKILL_HINT, PACK_NOT_A_SKILL, real_path, skill_resource
from swarm_handoff.records import DiscoveryContext, Location, Scope, SkillRecord, SourceResult
from swarm_handoff.scopes import ScopeSpec
from swarm_handoff.skillmd import Frontmatter, load_skill_resource, plain

SOURCE = "packs"


def load_pack(candidate: Candidate) -> tuple[SkillRecord | None, list[Problem]]:
    """Turn one admitted entry point into a record; problems instead of exceptions; what it reads is watched."""
    ep = candidate.entry_point
    where = f"entry point {candidate.name!r} ({candidate.distribution} {candidate.version})"
    info = _dist_info(ep)
    # The metadata folder changes on reinstall; its parent gains a folder when a pack is installed.
    if info:
        watch(info)
        watch(os.path.dirname(info))
    obj, exc = load_one(candidate)
    if exc is not None:
        problem = Problem(
            PACK_LOAD_FAILED,
            f"{where} failed to load: {type(exc).__name__}: {exc}",
            hint=f"fix or uninstall {candidate.distribution}",
            severity=Severity.WARNING,
        )
        return None, [problem]
    code = getattr(sys.modules.get(getattr(ep, "module", "")), "__file__", None)
    if isinstance(code, str):  # an editable pack's code can change in place, without a reinstall
        watch(code)
    found = skill_resource(obj)
    if found is None:
        if getattr(obj, "WORKFLOW", None) is not None:
            return None, []  # a workflow only: the workflow engine reads it
        problem = Problem(PACK_NOT_A_SKILL, f"{where} {NOT_A_SKILL}", hint=NOT_A_SKILL_HINT, severity=Severity.WARNING)
        return None, [problem]
    kind, value = found
    real = real_path(value) if kind == "file" else None
    if real:
        # A SKILL.md on disk goes through the parse memo like any other: an unchanged pack is not
        # parsed again (nor is ruamel.yaml imported) on a run whose whole answer cannot be replayed.
        record = read_skills([(real, candidate.name, Scope.INSTALLED)], source=SOURCE, jobs=1)[0]
    else:
        if kind == "file":  # package data that is not a plain file (a zip import): read it each time
            front = load_skill_resource(value)
            path: str | None = str(value)
        else:
            front, path = Frontmatter(plain(dict(value))), None
        record = record_from_frontmatter(
            front.data, name=candidate.name, scope=Scope.INSTALLED, source=SOURCE, path=path, problems=front.problems
        )
    meta = {
        **record.meta,
        "distribution": candidate.distribution,
        "distribution_version": candidate.version,
        "entry_point": candidate.value,
    }
    return attrs.evolve(record, meta=meta), []


def _dist_info(ep: Any) -> str | None:
    """The distribution's metadata folder: reinstalling or upgrading a pack changes or removes it."""
    path = getattr(getattr(ep, "dist", None), "_path", None)
    return os.fspath(path) if path is not None else None


class PackSource:
    """The `packs` discovery source: skills of installed distributions."""

    scopes = (ScopeSpec("installed", 4),)  # the one ordering: below `global`, above `registry`

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env  # the loader's controls: those of the host that built this source

    def discover(self, context: DiscoveryContext) -> SourceResult:
        """Load every skill entry point on its own and build its record."""
        records: list[SkillRecord] = []
        problems: list[Problem] = []
        # A new distribution adds a folder to the sys.path entry it is installed in (site-packages,
        # or any folder on PYTHONPATH), which changes that folder's mtime; sys.path itself is part
        # of the cache key, so a new path entry is noticed too.
        for entry in path_folders():
            watch(entry)
        for candidate in select(PACKS, self.env, entry_points(PACKS.name))[0]:
            record, found = load_pack(candidate)
            problems.extend(found)
            if record is not None:
                records.append(record)
        # A pack that failed to import is never cached: fixing it in place touches nothing we stat.
        if any(p.code == PACK_LOAD_FAILED for p in problems):
            not_cacheable("a skill pack failed to import")
        return SourceResult(records=tuple(records), problems=tuple(problems), scanned=len(records))

    def cache_key(self, context: DiscoveryContext) -> str:  # CachedSource
        """The allow and block lists change the answer without touching any file."""
        return policy_key(PACKS, self.env)

    def locations(self, context: DiscoveryContext, name: str) -> list[Location]:
        """The one place a pack skill called `name` would be: an entry point of that name (for `why`)."""
        return [Location(Scope.INSTALLED, f"entry point {name!r} in group {SKILLS_ENTRY_POINT_GROUP}")]
