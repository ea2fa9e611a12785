"""What `skills link` can show: the installed pack skills, with their SKILL.md and folder.

A pack skill is shown as a symlink to its folder when that folder is on disk, else as a copy of
its files (a zip-imported pack) or of its SKILL.md alone.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import attrs

from swarm_handoff.api import LoadError, Problem, installed_pack_skills, read_regular
from swarm_handoff_link.manifest import walk_files


@attrs.frozen
class PackSkill:
    """One installed pack skill as linking sees it: where its SKILL.md and folder are."""

    name: str
    distribution: str
    version: str
    entry_point: str
    skill_md: Any = None  # the SKILL.md resource (path or Traversable); None for a metadata mapping
    folder: Any = None  # the folder to show (path or Traversable) when it has one
    real_folder: Path | None = None  # set when a symlink is possible: the folder on disk


def installed_skills() -> tuple[list[PackSkill], list[Problem]]:
    """Every pack skill the allow/block lists admit, with the problems of packs that did not load."""
    found, problems = installed_pack_skills()
    skills: list[PackSkill] = []
    for pack in found:
        base = PackSkill(pack.name, pack.distribution, pack.version, pack.entry_point)
        value = pack.skill_md
        if value is None:  # a metadata mapping: reported as having no SKILL.md to show
            skills.append(base)
            continue
        real = pack.real_path
        folder: Any = None
        real_folder = None
        if real is not None and os.path.basename(real) == "SKILL.md":
            real_folder = Path(real).resolve().parent
            folder = real_folder
        elif real is None and os.path.basename(str(getattr(value, "name", ""))) == "SKILL.md":
            folder = getattr(value, "parent", None)  # zipfile.Path has one; other Traversables may not
        skills.append(attrs.evolve(base, skill_md=value, folder=folder, real_folder=real_folder))
    return skills, problems


# A pack's file copied into a skills folder: far above any real skill file, well below memory.
MAX_PACK_FILE_BYTES = 256 * 1024 * 1024


def _read(entry: Any) -> bytes:
    """A file on disk only as a regular file (`yamlio.read_regular`); a zip member as it comes."""
    if isinstance(entry, (str, os.PathLike)):
        try:
            return read_regular(entry, limit=MAX_PACK_FILE_BYTES)
        except LoadError as exc:  # the caller reports an OSError as LINK_FAILED for this skill
            raise OSError(f"{exc.problem.path}: {exc.problem.message}") from None
    data: bytes = entry.read_bytes()
    return data


def source_files(skill: PackSkill) -> dict[str, bytes]:
    """The files a copy of `skill` holds: its folder's files, or only SKILL.md when it has no folder."""
    if skill.folder is not None:
        return {rel: _read(entry) for rel, entry in walk_files(skill.folder)}
    return {"SKILL.md": _read(skill.skill_md)}
