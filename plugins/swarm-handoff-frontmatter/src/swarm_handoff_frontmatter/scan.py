"""The folder scan: `.claude/skills/*/SKILL.md` under the project, the git root and the user's config folder.

Order and scopes follow the discovery seed: project (1) > git root (2) > global (3). The git root
is skipped when it is the working directory; inside a submodule the superproject's root is used.
Where the skills live is all this module says: the core's one walker (`swarm_handoff.api.walk_skills`)
finds the repository root (no `git` process), decides whether a folder of another user may be
trusted, reads each skill folder once at its most local scope and turns every entry, readable or
not, into a record, exactly as for every other source of skill folders.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from swarm_handoff.api import (
    DiscoveryContext,
    Location,
    Problem,
    Scope,
    ScopeSpec,
    SkillsPlace,
    SourceResult,
    find_repository,
    walk_skills,
)

if TYPE_CHECKING:
    from swarm_handoff.api import Location

SOURCE = "frontmatter"
SKILLS_DIR_UNREADABLE = "SKILLS_DIR_UNREADABLE"
# What decides which folders are read: the walk stops at git's ceiling; the trust list admits other users' folders.
_KEY_ENV = ("GIT_CEILING_DIRECTORIES", "SWARM_HANDOFF_TRUSTED_FOLDERS", "SUDO_UID")


@attrs.frozen
class Root:
    """One place skills are looked for, with its scope; `note` says why it was skipped, if it was."""

    scope: Scope
    path: Path
    note: str | None = None
    untrusted: Problem | None = None


def git_root(cwd: Path, env: Mapping[str, str]) -> tuple[Path | None, str]:
    """Return the repository root (the superproject's inside a submodule) and a note on what happened."""
    repo = find_repository(cwd, env)
    return repo.root, repo.note


def skill_roots(context: DiscoveryContext) -> list[Root]:
    """List the three places in priority order, marking the ones that are skipped and why."""
    cwd = context.cwd
    roots = [Root(Scope.PROJECT, cwd / ".claude" / "skills")]
    repo = find_repository(cwd, context.env)
    root = repo.root
    if root is None:
        roots.append(Root(Scope.GIT_ROOT, Path(), "not in a git repository, skipping git-root discovery"))
    elif _same(root, cwd):
        roots.append(Root(Scope.GIT_ROOT, root / ".claude" / "skills", "the git root is the working directory"))
    else:
        roots.append(Root(Scope.GIT_ROOT, root / ".claude" / "skills", untrusted=repo.untrusted))
    roots.append(Root(Scope.GLOBAL, context.config_dir / "skills"))
    return roots


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _places(roots: list[Root]) -> list[SkillsPlace]:
    return [SkillsPlace(r.path, r.scope, untrusted=r.untrusted) for r in roots if r.note is None]


class FrontmatterSource:
    """The `frontmatter` discovery source: scans the three skills folders in precedence order."""

    # The one ordering (docs/plugins.md#scopes): the source runs at its most local scope.
    scopes = (ScopeSpec("project", 1), ScopeSpec("git-root", 2), ScopeSpec("global", 3))

    def discover(self, context: DiscoveryContext) -> SourceResult:
        """Scan project, git root and global skills folders; a folder reached twice is read once."""
        found = walk_skills(_places(skill_roots(context)), source=SOURCE, env=context.env)
        return SourceResult(records=found.records, problems=found.problems, scanned=found.scanned)

    def cache_key(self, context: DiscoveryContext) -> str:  # CachedSource
        """What moves the git-root scope or admits another user's folder (the `.git` markers are watched)."""
        return "|".join(f"{k}={context.env.get(k, '')}" for k in _KEY_ENV)

    def locations(self, context: DiscoveryContext, name: str) -> list[Location]:  # LocatingSource
        """Where a skill called `name` would be, in priority order (for `why`)."""
        out: list[Location] = []
        seen: dict[str, Scope] = {}
        for root in skill_roots(context):
            if root.note is not None:
                where = str(root.path / name / "SKILL.md") if str(root.path) != "." else "(no git root)"
                out.append(Location(root.scope, where, root.note))
                continue
            real = os.path.realpath(root.path)
            where = str(root.path / name / "SKILL.md")
            if real in seen:
                out.append(Location(root.scope, where, f"same folder as the {seen[real].value} scope"))
            else:
                seen[real] = root.scope
                out.append(Location(root.scope, where))
        return out


def scan_folder(
    path: Path | str,
    scope: Scope | str = Scope.GLOBAL,
    *,
    jobs: int | None = None,
    min_parallel: int | None = None,
) -> SourceResult:
    """Scan one skills folder on its own (lint, tests, benchmarks): every skill folder becomes a record.

    `jobs` defaults to `SWARM_HANDOFF_JOBS` (else the usable CPUs), as discovery has it.
    """
    place = SkillsPlace(Path(path), Scope(scope))
    found = walk_skills([place], source=SOURCE, env=os.environ, jobs=jobs, min_parallel=min_parallel)
    return SourceResult(records=found.records, problems=found.problems, scanned=found.scanned)
