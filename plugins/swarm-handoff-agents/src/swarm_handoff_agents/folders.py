"""`.agents/skills` (Agent Skills clients, Codex) and nested `.claude/skills` folders of a monorepo.

Both walk from the working directory up to the repository root (the nearest folder with a `.git`
entry; without one, only the working directory). Nearer folders come first: a skill of the same
name in a farther folder of the same scope is kept as shadowed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from swarm_handoff.api import DiscoveryContext, Problem, Scope, ScopeSpec, SourceResult, read_skills
from swarm_handoff_agents.common import Files, enabled, list_skills, switch_key, walk_to_root

if TYPE_CHECKING:
    from swarm_handoff.api import Location

AGENTS = "agents-skills"
NESTED = "claude-nested"
AGENTS_PROJECT = ScopeSpec("agents-project", 1.5, read_by=("codex", "agent-skills"))
NESTED_PROJECT = ScopeSpec("claude-nested", 1.7, read_by=("claude-code",))
AGENTS_GLOBAL = ScopeSpec("agents-global", 3.5, read_by=("codex", "agent-skills"))


def _home(context: DiscoveryContext) -> Path:
    return Path(context.env.get("HOME") or str(Path.home()))


def _key(context: DiscoveryContext) -> str:
    env = context.env
    return "|".join((switch_key(env), f"HOME={env.get('HOME', '')}", f"CEIL={env.get('GIT_CEILING_DIRECTORIES', '')}"))


class AgentsSkillsSource:
    """`.agents/skills` from the cwd up to the git root (agents-project), and `~/.agents/skills` (agents-global)."""

    scopes = (AGENTS_PROJECT, AGENTS_GLOBAL)

    def _folders(self, context: DiscoveryContext) -> list[tuple[Path, Scope]]:
        chain, _ = walk_to_root(context.cwd, context.env)
        project, glob = Scope(AGENTS_PROJECT.name), Scope(AGENTS_GLOBAL.name)
        out = [(folder / ".agents" / "skills", project) for folder in chain]
        home = _home(context) / ".agents" / "skills"
        out.append((home, glob))
        return out

    def discover(self, context: DiscoveryContext) -> SourceResult:
        """Read every skill of every `.agents/skills` folder, nearest first; a folder reached twice is read once."""
        if not enabled(AGENTS, context.env):
            return SourceResult()
        problems: list[Problem] = []
        files: Files = []
        seen: set[str] = set()
        for folder, scope in self._folders(context):
            real = os.path.realpath(folder)
            if real in seen:  # the home folder inside the repository: read at its most local scope
                continue
            seen.add(real)
            files.extend(list_skills(folder, scope, problems))
        records = read_skills(files, source=AGENTS)
        return SourceResult(records=tuple(records), problems=tuple(problems), scanned=len(records))

    def cache_key(self, context: DiscoveryContext) -> str:
        """The switch, the home folder and the walk's ceiling: each changes which folders are read."""
        return _key(context)

    def locations(self, context: DiscoveryContext, name: str) -> list[Location]:
        """Every `.agents/skills/NAME/SKILL.md` looked at, nearest first (for `why`)."""
        from swarm_handoff.api import Location

        if not enabled(AGENTS, context.env):
            return []
        return [Location(scope, str(folder / name / "SKILL.md")) for folder, scope in self._folders(context)]


class NestedClaudeSource:
    """`.claude/skills` of the folders strictly between the cwd and the git root (a monorepo's packages)."""

    scopes = (NESTED_PROJECT,)

    def _folders(self, context: DiscoveryContext) -> list[Path]:
        chain, found = walk_to_root(context.cwd, context.env)
        if not found:
            return []  # no repository: nothing lies between the cwd and its root
        # The cwd's own and the root's own are the frontmatter source's project and git-root scopes.
        return [folder / ".claude" / "skills" for folder in chain[1:-1]]

    def discover(self, context: DiscoveryContext) -> SourceResult:
        """Read the skills of each nested `.claude/skills`, nearest first."""
        if not enabled(NESTED, context.env):
            return SourceResult()
        problems: list[Problem] = []
        scope = Scope(NESTED_PROJECT.name)
        files: Files = []
        for folder in self._folders(context):
            files.extend(list_skills(folder, scope, problems))
        records = read_skills(files, source=NESTED)
        return SourceResult(records=tuple(records), problems=tuple(problems), scanned=len(records))

    def cache_key(self, context: DiscoveryContext) -> str:
        """The switch and the walk's ceiling."""
        return _key(context)

    def locations(self, context: DiscoveryContext, name: str) -> list[Location]:
        """Every nested `.claude/skills/NAME/SKILL.md` looked at (for `why`)."""
        from swarm_handoff.api import Location

        if not enabled(NESTED, context.env):
            return []
        scope = Scope(NESTED_PROJECT.name)
        return [Location(scope, str(folder / name / "SKILL.md")) for folder in self._folders(context)]
