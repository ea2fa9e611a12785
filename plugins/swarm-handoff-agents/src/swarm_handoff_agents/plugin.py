"""The hook implementation: register the four discovery sources by name (cheap to import)."""

from __future__ import annotations

from swarm_handoff.api import Register, hookimpl


def _agents() -> object:
    from swarm_handoff_agents.folders import AgentsSkillsSource

    return AgentsSkillsSource()


def _nested() -> object:
    from swarm_handoff_agents.folders import NestedClaudeSource

    return NestedClaudeSource()


def _plugins() -> object:
    from swarm_handoff_agents.claude_plugins import ClaudePluginsSource

    return ClaudePluginsSource()


def _roots() -> object:
    from swarm_handoff_agents.roots import ExtraRootsSource

    return ExtraRootsSource()


@hookimpl
def swarm_handoff_discovery_sources(register: Register) -> None:
    """Offer the sources for skills other agents read; each module loads only when discovery runs."""
    register("agents-skills", _agents, summary=".agents/skills from the cwd up to the git root, and ~/.agents/skills")
    register("claude-nested", _nested, summary="nested .claude/skills folders between the cwd and the git root")
    register("claude-plugins", _plugins, summary="skills of enabled Claude Code plugins, named plugin:skill")
    register("skill-roots", _roots, summary="extra skill roots listed in swarm-handoff-roots.json")
