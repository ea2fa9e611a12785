"""The installed skill packs' SKILL.md files, for tools that show them outside discovery (`skills link`).

Discovery turns a pack into a `SkillRecord`; a tool that copies or links a pack's files needs the
file itself instead: the SKILL.md resource (a path, or a Traversable inside a wheel or a zip) and
whether it is a real file on disk. `installed_pack_skills` is that one narrow question, asked
through the same entry points, allow and block lists and per-entry-point isolation as discovery,
so a plugin never reads the pack machinery (which may change) directly.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from swarm_handoff.entrypoints import entry_points
from swarm_handoff.errors import Problem
from swarm_handoff.loader import PACK_LOAD_FAILED, PACKS
from swarm_handoff.pack_entries import load_packs, real_path, skill_resource
from swarm_handoff.plugins import get_host

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

__all__ = ["InstalledPackSkill", "installed_pack_skills"]


@attrs.frozen
class InstalledPackSkill:
    """One skill an installed pack registers: who ships it and where its SKILL.md is."""

    name: str  # the entry point's name, which is the skill's name
    distribution: str
    version: str
    entry_point: str  # the entry point's value (`pack.skills.review`)
    # The SKILL.md resource; None when the pack gives only a metadata mapping (nothing to show).
    skill_md: Path | Traversable | None = None
    # The SKILL.md as a file on disk when it is one (a zip-imported pack's is not).
    real_path: str | None = None


def installed_pack_skills() -> tuple[list[InstalledPackSkill], list[Problem]]:
    """Every pack skill the allow/block lists admit, plus a PACK_LOAD_FAILED problem per pack that did not import."""
    skills: list[InstalledPackSkill] = []
    problems: list[Problem] = []
    loaded, _ = load_packs(
        get_host().env, entry_points(PACKS.name)
    )  # the one loader: the controls and isolation of plugins
    for pack in loaded:
        c, exc = pack.candidate, pack.error
        if exc is not None:
            message = (
                f"entry point {c.name!r} ({c.distribution} {c.version}) failed to load: {type(exc).__name__}: {exc}"
            )
            problems.append(Problem(PACK_LOAD_FAILED, message, hint=f"fix or uninstall {c.distribution}"))
            continue
        found = skill_resource(pack.obj)
        if found is None:
            continue  # a workflow-only entry point has no skill to show
        base = InstalledPackSkill(name=c.name, distribution=c.distribution, version=c.version, entry_point=c.value)
        kind, value = found
        if kind != "file":
            skills.append(base)
            continue
        if isinstance(value, (str, os.PathLike)):
            value = Path(value)  # so that a reader can treat it like a Traversable
        skills.append(attrs.evolve(base, skill_md=value, real_path=real_path(value)))
    return skills, problems
