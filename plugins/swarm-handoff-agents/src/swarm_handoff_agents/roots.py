"""Extra skill roots the user lists in `<config>/swarm-handoff-roots.json`, each with a scope.

The file: `{"version": 1, "roots": [{"path": "~/team-skills", "scope": "extra-roots"}, ...]}`.
`scope` is optional (default `extra-roots`, precedence 3.8) and may name any declared scope (for
example `agents-global` or `project`). It is untrusted: bounded in size and entries, and a bad
entry is a coded problem while the other entries are still read. A root listed here is trusted
whoever owns it (the user named it); its skill folders are walked by the core's one walker.

`SWARM_HANDOFF_SKILL_ROOTS` names roots for one command without writing a file (a folder of skill
folders someone shared, a checkout of a skill collection): folders separated as in PATH, read in
the `extra-roots` scope before the file's roots; one that is not a folder is a coded problem.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from swarm_handoff.api import (
    DiscoveryContext,
    Location,
    Problem,
    Scope,
    ScopeSpec,
    Severity,
    SkillsPlace,
    SourceResult,
    walk_skills,
)
from swarm_handoff_agents.common import enabled, read_json, switch_key

if TYPE_CHECKING:
    from swarm_handoff.api import Location

SOURCE = "skill-roots"
ROOTS_FILE = "swarm-handoff-roots.json"
EXTRA_SCOPE = ScopeSpec("extra-roots", 3.8)
MAX_ROOTS = 64
ROOTS_INVALID = "SKILL_ROOTS_INVALID"
ENV_ROOTS = "SWARM_HANDOFF_SKILL_ROOTS"


def _expanded(where: str, home: Path, base: Path) -> Path:
    """A root as written: `~` and `~/...` under the home, a relative one under `base`."""
    folder = Path(str(home) + where[1:]) if where == "~" or where.startswith("~/") else Path(where)
    return folder if folder.is_absolute() else base / folder


def _home(context: DiscoveryContext) -> Path:
    return Path(context.env.get("HOME") or str(Path.home()))


def given_roots(context: DiscoveryContext, problems: list[Problem]) -> list[tuple[Path, Scope]]:
    """The roots named by SWARM_HANDOFF_SKILL_ROOTS for this command (relative to its working directory)."""
    entries = [entry for entry in context.env.get(ENV_ROOTS, "").split(os.pathsep) if entry.strip()]

    def bad(message: str, hint: str) -> None:
        problems.append(Problem(ROOTS_INVALID, message, hint=hint, severity=Severity.WARNING))

    if len(entries) > MAX_ROOTS:
        bad(f"{ENV_ROOTS} names {len(entries)} folders; the first {MAX_ROOTS} are read", "name fewer folders")
    out: list[tuple[Path, Scope]] = []
    for entry in entries[:MAX_ROOTS]:
        folder = _expanded(entry, _home(context), context.cwd)
        if not folder.is_dir():  # still walked: the walker watches it, so a stored answer sees it made
            bad(
                f"{ENV_ROOTS} names {str(folder)!r}, which is not a folder",
                f"name folders of skill folders, separated by {os.pathsep!r}",
            )
        out.append((folder, Scope(EXTRA_SCOPE.name)))
    return out


def configured_roots(context: DiscoveryContext, problems: list[Problem]) -> list[tuple[Path, Scope]]:
    """The roots of the file, in its order; each unusable entry becomes a problem naming its index."""
    path = context.config_dir / ROOTS_FILE
    data = read_json(path, ROOTS_INVALID, ROOTS_FILE, problems)
    if data is None:
        return []

    def bad(message: str, hint: str) -> None:
        problems.append(Problem(ROOTS_INVALID, message, path=str(path), hint=hint, severity=Severity.WARNING))

    roots = data.get("roots") if isinstance(data, dict) else None
    if not isinstance(data, dict) or data.get("version") != 1 or not isinstance(roots, list):
        bad(f"{ROOTS_FILE} is not version 1 with a 'roots' list", 'write {"version": 1, "roots": [{"path": "..."}]}')
        return []
    if len(roots) > MAX_ROOTS:
        bad(f"{ROOTS_FILE} lists {len(roots)} roots; the first {MAX_ROOTS} are read", "list fewer roots")
    home = _home(context)
    out: list[tuple[Path, Scope]] = []
    for index, entry in enumerate(roots[:MAX_ROOTS]):
        where = entry.get("path") if isinstance(entry, dict) else None
        if not isinstance(where, str) or not where or "\x00" in where:
            bad(f"roots[{index}] has no 'path' string", "each root is an object with a 'path'")
            continue
        name = entry.get("scope", EXTRA_SCOPE.name)
        try:
            scope = Scope(name)
        except (ValueError, TypeError):
            bad(f"roots[{index}] names scope {name!r}, which no source declares", "see docs/where-skills-live.md")
            continue
        # relative to the file, not to wherever discover runs
        out.append((_expanded(where, home, context.config_dir), scope))
    return out


class ExtraRootsSource:
    """Skill folders named by SWARM_HANDOFF_SKILL_ROOTS, then by `swarm-handoff-roots.json` (each in its scope)."""

    scopes = (EXTRA_SCOPE,)

    def discover(self, context: DiscoveryContext) -> SourceResult:
        """Read every skill under every root named, the variable's first, then the file's in its order."""
        if not enabled(SOURCE, context.env):
            return SourceResult()
        problems: list[Problem] = []
        roots = given_roots(context, problems) + configured_roots(context, problems)
        # Named by the user (for this command, or in their own config folder): trusted whoever owns the folder.
        places = [SkillsPlace(folder, scope, vouched=True) for folder, scope in roots]
        found = walk_skills(places, source=SOURCE, env=context.env)
        return SourceResult(records=found.records, problems=(*problems, *found.problems), scanned=found.scanned)

    def cache_key(self, context: DiscoveryContext) -> str:
        """The switch, HOME (a `~` path expands with it) and the roots named for the command; the file is watched."""
        given = context.env.get(ENV_ROOTS, "")
        where = f"|cwd={context.cwd}" if given else ""  # a relative root is under the working directory
        return f"{switch_key(context.env)}|HOME={context.env.get('HOME', '')}|{ENV_ROOTS}={given}{where}"

    def locations(self, context: DiscoveryContext, name: str) -> list[Location]:
        """Each named root's `NAME/SKILL.md` (for `why`)."""
        if not enabled(SOURCE, context.env):
            return []
        roots = given_roots(context, []) + configured_roots(context, [])
        return [Location(scope, str(folder / name / "SKILL.md")) for folder, scope in roots]
