"""Skill packs' entry points: what one names, importing each on its own, and what `plugins` says of them.

The shape of an entry point of the `swarm_handoff.skills` group (shared with the workflow engine,
which reads the same group):

* its value names a module or an object (`pack.skills.review` or `pack.skills:REVIEW`);
* the object is a skill when it has `SKILL_MD` (a path or an `importlib.resources` Traversable to a
  SKILL.md shipped as package data) or `SKILL` (a mapping with the same keys as a frontmatter); an
  object that is itself a Traversable/path or a mapping counts too, and so does a package that
  ships a `SKILL.md` next to its `__init__.py`;
* `WORKFLOW` is the workflow engine's business: an object with only a `WORKFLOW` is not reported.

Packs load through the one loader (`loader.py`), as plugins do, so the plugin host reports them
(`swarm-handoff plugins`) without the discovery source's SKILL.md reader and caches (`packs.py`).
Like the loader, this module selects among the entry points its caller's scan found
(`entrypoints.entry_points(PACKS.name)`): it stands on neither the cached scan nor its file cache.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from swarm_handoff.errors import SwarmError
from swarm_handoff.isolation import quiet as _quiet
from swarm_handoff.loader import PACK_LOAD_FAILED, PACKS, Candidate, failure, load_one, select
from swarm_handoff.plugin_records import LoadFailure, PackSkill, SkippedPlugin

PACK_NOT_A_SKILL = "PACK_NOT_A_SKILL"


@attrs.frozen
class LoadedPack:
    """One admitted entry point after its import: the object it names, or the exception it raised."""

    candidate: Candidate
    obj: object = attrs.field(eq=False, repr=False)
    error: BaseException | None = attrs.field(eq=False, default=None)


def load_packs(env: Mapping[str, str], found: Iterable[Any]) -> tuple[list[LoadedPack], list[SkippedPlugin]]:
    """Import every admitted pack entry point on its own; the left-out ones say which variable left them out.

    `env` holds the loader's controls: pass the plugin host's (`host.env`), the one set for plugins and packs;
    `found` is the scan's entry points of the group (`entrypoints.entry_points(PACKS.name)`).
    """
    kept, skipped = select(PACKS, env, found)
    return [LoadedPack(c, *load_one(c)) for c in kept], skipped


def entry_points(env: Mapping[str, str], found: Iterable[Any]) -> list[Any]:
    """Of the scan's pack entry points `found`, the ones the controls in `env` (the host's) admit (nothing imported)."""
    return [c.entry_point for c in select(PACKS, env, found)[0]]


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


NOT_A_SKILL = "has neither SKILL_MD nor SKILL"
NOT_A_SKILL_HINT = "set SKILL_MD to the packaged SKILL.md, or SKILL to a metadata mapping (see docs/skill-packs.md)"


def report(
    env: Mapping[str, str], found: Iterable[Any]
) -> tuple[list[PackSkill], list[LoadFailure], list[SkippedPlugin]]:
    """What `swarm-handoff plugins` says about packs: each skill and what it provides, and every failure.

    Looking `WORKFLOW` up may build the workflow (a pack's lazy module `__getattr__`), so an
    invalid workflow is reported here too, with its own code.
    """
    skills: list[PackSkill] = []
    failures: list[LoadFailure] = []
    loaded, skipped = load_packs(env, found)
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
                LoadFailure(c.name, c.distribution, c.version, PACK_NOT_A_SKILL, NOT_A_SKILL, NOT_A_SKILL_HINT, "pack")
            )
            continue
        skills.append(PackSkill(c.name, c.distribution, c.version, c.value, tuple(provides)))
    return skills, failures, skipped
