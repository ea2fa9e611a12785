"""Skill packs: skills that a `pip install`ed distribution registers in the `swarm_handoff.skills` group.

The shape of an entry point (shared with the workflow engine, which reads the same group):

* its value names a module or an object (`pack.skills.review` or `pack.skills:REVIEW`);
* the object is a skill when it has `SKILL_MD` (a path or an `importlib.resources` Traversable to a
  SKILL.md shipped as package data) or `SKILL` (a mapping with the same keys as a frontmatter); an
  object that is itself a Traversable/path or a mapping counts too, and so does a package that
  ships a `SKILL.md` next to its `__init__.py`;
* `WORKFLOW` is the workflow engine's business: an object with only a `WORKFLOW` is not reported.

The entry point's name is the skill's name. Scope `installed`, priority 4 (below `global`). Each
entry point is loaded on its own: a broken one becomes a problem naming the entry point, the
distribution and its version, and every other pack still loads.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from typing import Any

import attrs

from swarm_handoff.cache import not_cacheable, watch
from swarm_handoff.entrypoints import dist_of
from swarm_handoff.entrypoints import entry_points as all_entry_points
from swarm_handoff.errors import Problem, Severity
from swarm_handoff.metadata import record_from_frontmatter
from swarm_handoff.plugin_checks import quiet
from swarm_handoff.plugins import SKILLS_ENTRY_POINT_GROUP, env_list
from swarm_handoff.records import DiscoveryContext, Scope, SkillRecord, SourceResult
from swarm_handoff.skillmd import Frontmatter, load_skill_resource, plain

SOURCE = "packs"
ENV_LOAD_PACKS = "SWARM_HANDOFF_LOAD_PACKS"
ENV_DISABLE_PACKS = "SWARM_HANDOFF_DISABLE_PACKS"
PACK_LOAD_FAILED = "PACK_LOAD_FAILED"
PACK_NOT_A_SKILL = "PACK_NOT_A_SKILL"


def entry_points(env: Mapping[str, str] | None = None) -> Iterator[Any]:
    """Yield the group's entry points once each, honouring the packs' allow and block lists.

    A distribution seen twice on sys.path counts once. `SWARM_HANDOFF_LOAD_PACKS` (allow-list;
    empty: none) and `SWARM_HANDOFF_DISABLE_PACKS` work like their plugin counterparts and, like
    them, are read from the process environment: which installed distributions count is a
    property of the process, not of one discovery's context.
    """
    env = os.environ if env is None else env
    allow = env_list(env.get(ENV_LOAD_PACKS))
    block = env_list(env.get(ENV_DISABLE_PACKS)) or frozenset()
    seen: set[tuple[str, str]] = set()
    for ep in all_entry_points(SKILLS_ENTRY_POINT_GROUP):
        if (ep.name, ep.value) in seen or ep.name in block or (allow is not None and ep.name not in allow):
            continue
        seen.add((ep.name, ep.value))
        yield ep


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


def _real_path(resource: Any) -> str | None:
    """The file system path of a SKILL.md when it has one (zip-imported packs have none)."""
    if isinstance(resource, (str, os.PathLike)):
        return os.fspath(resource)
    path = str(resource)
    return path if os.path.isfile(path) else None


def load_pack(ep: Any) -> tuple[SkillRecord | None, list[Problem]]:
    """Turn one entry point into a record; problems instead of exceptions; what it reads is watched."""
    distribution, version = dist_of(ep)
    where = f"entry point {ep.name!r} ({distribution} {version})"
    info = _dist_info(ep)
    # The metadata folder changes on reinstall; its parent gains a folder when a pack is installed.
    if info:
        watch(info)
        watch(os.path.dirname(info))
    try:
        with quiet():  # a pack that prints at import must not corrupt a JSON document
            obj = ep.load()
    except (Exception, SystemExit) as exc:
        problem = Problem(
            PACK_LOAD_FAILED,
            f"{where} failed to load: {type(exc).__name__}: {exc}",
            hint=f"fix or uninstall {distribution}",
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
            PACK_NOT_A_SKILL,
            f"{where} has neither SKILL_MD nor SKILL",
            hint="set SKILL_MD to the packaged SKILL.md, or SKILL to a metadata mapping (see docs/skill-packs.md)",
            severity=Severity.WARNING,
        )
        return None, [problem]
    kind, value = found
    path: str | None
    if kind == "file":
        real = _real_path(value)
        if real:
            watch(real)
        front = load_skill_resource(value)
        path = real or str(value)
    else:
        front = Frontmatter(plain(dict(value)))
        path = None
    record = record_from_frontmatter(
        front.data, name=ep.name, scope=Scope.INSTALLED, source=SOURCE, path=path, problems=front.problems
    )
    meta = {**record.meta, "distribution": distribution, "distribution_version": version, "entry_point": ep.value}
    return attrs.evolve(record, meta=meta), []


def _dist_info(ep: Any) -> str | None:
    """The distribution's metadata folder: reinstalling or upgrading a pack changes or removes it."""
    path = getattr(getattr(ep, "dist", None), "_path", None)
    return os.fspath(path) if path is not None else None


class PackSource:
    """The `packs` discovery source: skills of installed distributions."""

    priority = 4

    def discover(self, context: DiscoveryContext) -> SourceResult:
        """Load every skill entry point on its own and build its record."""
        records: list[SkillRecord] = []
        problems: list[Problem] = []
        # A new distribution adds a folder to the sys.path entry it is installed in (site-packages,
        # or any folder on PYTHONPATH), which changes that folder's mtime; sys.path itself is part
        # of the cache key, so a new path entry is noticed too.
        for entry in sys.path:
            watch(os.path.abspath(entry))
        for ep in entry_points():
            record, found = load_pack(ep)
            problems.extend(found)
            if record is not None:
                records.append(record)
        # A pack that failed to import is never cached: fixing it in place touches nothing we stat.
        if any(p.code == PACK_LOAD_FAILED for p in problems):
            not_cacheable("a skill pack failed to import")
        return SourceResult(records=tuple(records), problems=tuple(problems), scanned=len(records))

    def cache_key(self, context: DiscoveryContext) -> str:  # CachedSource
        """The allow and block lists change the answer without touching any file."""
        return f"{os.environ.get(ENV_LOAD_PACKS)!r}|{os.environ.get(ENV_DISABLE_PACKS)!r}"

    def locations(self, context: DiscoveryContext, name: str) -> list[Any]:
        """The one place a pack skill called `name` would be: an entry point of that name (for `why`)."""
        from swarm_handoff.explain import Location

        return [Location(Scope.INSTALLED, f"entry point {name!r} in group {SKILLS_ENTRY_POINT_GROUP}")]
