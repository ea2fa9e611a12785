"""`.agents/skills` (Agent Skills clients, Codex) and nested `.claude/skills` folders of a monorepo.

Both walk from the working directory up to the repository root, as the core's one walker finds it
(`find_repository`: the nearest `.git` entry, the superproject inside a submodule; without one,
only the working directory), and hand the folders to `walk_skills`, which applies the one rule for
entries and trust (a folder above the working directory of a repository owned by another user is
listed, never read). Nearer folders come first: a skill of the same name in a farther folder of
the same scope is kept as shadowed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from swarm_handoff.api import (
    DiscoveryContext,
    Location,
    Scope,
    ScopeSpec,
    SkillsPlace,
    SourceResult,
    find_repository,
    walk_skills,
)
from swarm_handoff_agents.common import enabled, switch_key

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
    parts = (
        switch_key(env),
        f"HOME={env.get('HOME', '')}",
        f"CEIL={env.get('GIT_CEILING_DIRECTORIES', '')}",
    )
    return "|".join(parts)


class AgentsSkillsSource:
    """`.agents/skills` from the cwd up to the git root (agents-project), and `~/.agents/skills` (agents-global)."""

    scopes = (AGENTS_PROJECT, AGENTS_GLOBAL)

    def _places(self, context: DiscoveryContext) -> list[SkillsPlace]:
        repo = find_repository(context.cwd, context.env)
        project, glob = Scope(AGENTS_PROJECT.name), Scope(AGENTS_GLOBAL.name)
        out = [SkillsPlace(folder / ".agents" / "skills", project, untrusted=bad) for folder, bad in repo.folders()]
        out.append(SkillsPlace(_home(context) / ".agents" / "skills", glob))
        return out

    def discover(self, context: DiscoveryContext) -> SourceResult:
        """Read every skill of every `.agents/skills` folder, nearest first; a folder reached twice is read once."""
        if not enabled(AGENTS, context.env):
            return SourceResult()
        found = walk_skills(self._places(context), source=AGENTS, env=context.env)
        return SourceResult(records=found.records, problems=found.problems, scanned=found.scanned)

    def cache_key(self, context: DiscoveryContext) -> str:
        """The switch, the home folder and the walk's ceiling: each changes which folders are read."""
        return _key(context)

    def locations(self, context: DiscoveryContext, name: str) -> list[Location]:
        """Every `.agents/skills/NAME/SKILL.md` looked at, nearest first (for `why`)."""
        if not enabled(AGENTS, context.env):
            return []
        return [Location(p.scope, str(p.folder / name / "SKILL.md")) for p in self._places(context)]


class NestedClaudeSource:
    """`.claude/skills` of the folders strictly between the cwd and the git root (a monorepo's packages)."""

    scopes = (NESTED_PROJECT,)

    def _places(self, context: DiscoveryContext) -> list[SkillsPlace]:
        repo = find_repository(context.cwd, context.env)
        if repo.root is None:
            return []  # no repository: nothing lies between the cwd and its root
        # The cwd's own and the root's own are the frontmatter source's project and git-root scopes.
        scope = Scope(NESTED_PROJECT.name)
        return [
            SkillsPlace(folder / ".claude" / "skills", scope, untrusted=bad) for folder, bad in repo.folders()[1:-1]
        ]

    def discover(self, context: DiscoveryContext) -> SourceResult:
        """Read the skills of each nested `.claude/skills`, nearest first."""
        if not enabled(NESTED, context.env):
            return SourceResult()
        found = walk_skills(self._places(context), source=NESTED, env=context.env)
        return SourceResult(records=found.records, problems=found.problems, scanned=found.scanned)

    def cache_key(self, context: DiscoveryContext) -> str:
        """The switch and the walk's ceiling."""
        return _key(context)

    def locations(self, context: DiscoveryContext, name: str) -> list[Location]:
        """Every nested `.claude/skills/NAME/SKILL.md` looked at (for `why`)."""
        if not enabled(NESTED, context.env):
            return []
        return [Location(p.scope, str(p.folder / name / "SKILL.md")) for p in self._places(context)]
