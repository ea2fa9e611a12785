"""Skill packs: skills that a `pip install`ed distribution registers in the `swarm_handoff.skills` group.

The shape of an entry point (shared with the workflow engine, which reads the same group):

* its value names a module or an object (`pack.skills.review` or `pack.skills:REVIEW`);
* the object is a skill when it has `SKILL_MD` (a path or an `importlib.resources` Traversable to a
  SKILL.md shipped as package data) or `SKILL` (a mapping with the same keys as a frontmatter); an
  object that is itself a Traversable/path or a mapping counts too, and so does a package that
  ships a `SKILL.md` next to its `__init__.py`;
* `WORKFLOW` is the workflow engine's business: an object with only a `WORKFLOW` is not reported.

The entry point's name is the skill's name. Scope `installed` (precedence 4, below `global`).
Packs load through the one loader (`loader.py`), as plugins do: the same allow/block/strict
controls, read from the environment the plugin host was built from (which code a process imports is
the loader's business, not one discovery's), each entry point on its own, and one report
(`swarm-handoff plugins` lists the packs, their skills and their failures).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

import attrs

from swarm_handoff.cache import not_cacheable, read_skills, watch
from swarm_handoff.errors import Problem, Severity, SwarmError
from swarm_handoff.filecache import path_folders
from swarm_handoff.loader import ENV_DISABLE_PACKS as ENV_DISABLE_PACKS
from swarm_handoff.loader import ENV_LOAD_PACKS as ENV_LOAD_PACKS
from swarm_handoff.loader import PACK_LOAD_FAILED as PACK_LOAD_FAILED
from swarm_handoff.loader import PACKS, SKILLS_ENTRY_POINT_GROUP, Candidate, failure, load_one, policy_key, select
from swarm_handoff.metadata import record_from_frontmatter
from swarm_handoff.plugin_checks import quiet as _quiet
from swarm_handoff.plugin_records import LoadFailure, PackSkill, SkippedPlugin
from swarm_handoff.records import DiscoveryContext, Location, Scope, SkillRecord, SourceResult
from swarm_handoff.scopes import ScopeSpec
from swarm_handoff.skillmd import Frontmatter, load_skill_resource, plain

SOURCE = "packs"
PACK_NOT_A_SKILL = "PACK_NOT_A_SKILL"


@attrs.frozen
class LoadedPack:
    """One admitted entry point after its import: the object it names, or the exception it raised."""

    candidate: Candidate
    obj: object = attrs.field(eq=False, repr=False)
    error: BaseException | None = attrs.field(eq=False, default=None)


def load_packs(env: Mapping[str, str]) -> tuple[list[LoadedPack], list[SkippedPlugin]]:
    """Import every admitted pack entry point on its own; the left-out ones say which variable left them out.

    `env` holds the loader's controls: pass the plugin host's (`host.env`), the one set for plugins and packs.
    """
    kept, skipped = select(PACKS, env)
    return [LoadedPack(c, *load_one(c)) for c in kept], skipped


def entry_points(env: Mapping[str, str]) -> list[Any]:
    """The group's entry points the controls in `env` (the host's) admit, once each (nothing imported)."""
    return [c.entry_point for c in select(PACKS, env)[0]]


def skill_resource(obj: Any) -> tuple[str, Any] | None:
    """Say what carries the skill's metadata: ("file", SKILL.md) or ("mapping", metadata), else None."""
    if isinstance(obj, Mapping):
        return ("mapping", obj)
    if isinstance(obj, (str, os.PathLike)) or (hasattr(obj, "open") and hasattr(obj, "is_file")):
        return ("file", obj)
    if getattr(obj, "SKILL_MD", None) is not None:
        return ("file", obj.SKILL_MD)
    if isinstance(getattr(obj, "SKILL", None), Mapping):
        return ("mapping", obj.SKILL)
    if getattr(obj, "__path__", None) is not None:  # a package shipping SKILL.md beside __init__.py
        from importlib.resources import files

        candidate = files(obj.__name__) / "SKILL.md"
        if candidate.is_file():
            return ("file", candidate)
    return None


def real_path(resource: Any) -> str | None:
    """The file system path of a SKILL.md when it has one (zip-imported packs have none)."""
    if isinstance(resource, (str, os.PathLike)):
        return os.fspath(resource)
    path = str(resource)
    return path if os.path.isfile(path) else None


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
        problem = Problem(
            PACK_NOT_A_SKILL, f"{where} {_NOT_A_SKILL}", hint=_NOT_A_SKILL_HINT, severity=Severity.WARNING
        )
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


_NOT_A_SKILL = "has neither SKILL_MD nor SKILL"
_NOT_A_SKILL_HINT = "set SKILL_MD to the packaged SKILL.md, or SKILL to a metadata mapping (see docs/skill-packs.md)"


def report(env: Mapping[str, str]) -> tuple[list[PackSkill], list[LoadFailure], list[SkippedPlugin]]:
    """What `swarm-handoff plugins` says about packs: each skill and what it provides, and every failure.

    Looking `WORKFLOW` up may build the workflow (a pack's lazy module `__getattr__`), so an
    invalid workflow is reported here too, with its own code.
    """
    skills: list[PackSkill] = []
    failures: list[LoadFailure] = []
    loaded, skipped = load_packs(env)
    for pack in loaded:
        c = pack.candidate
        if pack.error is not None:
            failures.append(failure(PACKS, c, pack.error))
            continue
        provides = ["skill"] if skill_resource(pack.obj) is not None else []
        try:
            with _quiet():
                has_workflow = getattr(pack.obj, "WORKFLOW", None) is not None
        except (Exception, SystemExit) as exc:
            code = exc.code if isinstance(exc, SwarmError) else PACK_LOAD_FAILED
            failures.append(failure(PACKS, c, exc, code=str(getattr(code, "value", code))))
            continue
        provides += ["workflow"] if has_workflow else []
        if not provides:
            failures.append(
                LoadFailure(
                    c.name, c.distribution, c.version, PACK_NOT_A_SKILL, _NOT_A_SKILL, _NOT_A_SKILL_HINT, "pack"
                )
            )
            continue
        skills.append(PackSkill(c.name, c.distribution, c.version, c.value, tuple(provides)))
    return skills, failures, skipped


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
        for candidate in select(PACKS, self.env)[0]:
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
