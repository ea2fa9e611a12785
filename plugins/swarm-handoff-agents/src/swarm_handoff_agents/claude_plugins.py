"""Skills of installed Claude Code plugins, named `plugin:skill` as Claude Code names them.

Claude Code lists installed plugins in `<config>/plugins/installed_plugins.json` (version 2:
`plugins` maps an id `name@marketplace` to a list of installs, each with an `installPath`) and
says which are on in `<config>/settings.json` (`enabledPlugins`: id -> bool). Both files are
untrusted: a file too large, not JSON or of the wrong shape, an install path outside
`<config>/plugins` or absent, or a name unusable as a skill name becomes a coded problem, and
the other plugins are still read.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from stat import S_ISDIR
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
    quoted,
    walk_skills,
    watch,
)
from swarm_handoff_agents.common import SAFE_PART, enabled, read_json, switch_key

if TYPE_CHECKING:
    from swarm_handoff.api import Location

SOURCE = "claude-plugins"
PLUGINS_SCOPE = ScopeSpec("claude-plugins", 3.7, read_by=("claude-code",))
INSTALLED_FILE = "installed_plugins.json"
SETTINGS_FILE = "settings.json"
PLUGINS_JSON_INVALID = "CLAUDE_PLUGINS_JSON_INVALID"
SETTINGS_JSON_INVALID = "CLAUDE_SETTINGS_JSON_INVALID"
PLUGIN_NAME_UNSAFE = "CLAUDE_PLUGIN_NAME_UNSAFE"
PLUGIN_PATH_INVALID = "CLAUDE_PLUGIN_PATH_INVALID"


def _problem(code: str, message: str, path: Path, hint: str) -> Problem:
    return Problem(code, message, path=str(path), hint=hint, severity=Severity.WARNING)


def _unsafe_skill(plugin: str, install: Path) -> Callable[[str], Problem | None]:
    """The walker's name check for one plugin: a skill folder name unusable in `plugin:skill` is skipped unread."""

    def check(skill: str) -> Problem | None:
        if SAFE_PART.match(skill):
            return None
        message = f"skill folder {quoted(skill)} of plugin {quoted(plugin)} is skipped"
        hint = "a skill folder name is letters, digits, '.', '_' or '-'"
        return _problem(PLUGIN_NAME_UNSAFE, message, install / "skills" / skill / "SKILL.md", hint)

    return check


def enabled_ids(config: Path, problems: list[Problem]) -> set[str]:
    """The plugin ids `settings.json` switches on (`enabledPlugins[id] is true`)."""
    path = config / SETTINGS_FILE
    data = read_json(path, SETTINGS_JSON_INVALID, SETTINGS_FILE, problems)
    if data is None:
        return set()
    plugins = data.get("enabledPlugins") if isinstance(data, dict) else None
    if plugins is None and isinstance(data, dict):
        return set()  # settings without plugins: nothing enabled
    if not isinstance(plugins, dict):
        hint = "enabledPlugins is a map of plugin id to true or false"
        problems.append(_problem(SETTINGS_JSON_INVALID, f"{SETTINGS_FILE} has no enabledPlugins map", path, hint))
        return set()
    return {key for key, on in plugins.items() if isinstance(key, str) and on is True}


def installs(config: Path, problems: list[Problem]) -> list[tuple[str, Path]]:
    """`(plugin name, install path)` of every enabled plugin whose install is usable, in id order."""
    path = config / "plugins" / INSTALLED_FILE
    data = read_json(path, PLUGINS_JSON_INVALID, INSTALLED_FILE, problems)
    if data is None:
        return []
    plugins = data.get("plugins") if isinstance(data, dict) else None
    if not isinstance(data, dict) or data.get("version") != 2 or not isinstance(plugins, dict):
        hint = "expected version 2 with a 'plugins' map (Claude Code rewrites it when a plugin is installed)"
        message = f"{INSTALLED_FILE} is not version 2 with a plugins map"
        problems.append(_problem(PLUGINS_JSON_INVALID, message, path, hint))
        return []
    on = enabled_ids(config, problems)
    base = os.path.realpath(config / "plugins")
    out: list[tuple[str, Path]] = []
    for plugin_id in sorted(k for k in plugins if isinstance(k, str)):
        if plugin_id not in on:
            continue
        name = plugin_id.split("@", 1)[0]
        if not SAFE_PART.match(name):
            hint = "a plugin name is letters, digits, '.', '_' or '-'; this plugin's skills are skipped"
            problems.append(
                _problem(PLUGIN_NAME_UNSAFE, f"plugin id {quoted(plugin_id)} has an unusable name", path, hint)
            )
            continue
        install = _install_path(plugin_id, plugins[plugin_id], base, path, problems)
        if install is not None:
            out.append((name, install))
    return out


def _install_path(plugin_id: str, entries: object, base: str, path: Path, problems: list[Problem]) -> Path | None:
    """The first install of `plugin_id` that names a folder inside `<config>/plugins`, or None and a problem."""
    if not isinstance(entries, list) or not entries:
        hint = "each plugin id maps to a list of installs"
        problems.append(
            _problem(PLUGINS_JSON_INVALID, f"plugin {quoted(plugin_id)} has no list of installs", path, hint)
        )
        return None
    for entry in entries:
        where = entry.get("installPath") if isinstance(entry, dict) else None
        if not isinstance(where, str) or not where or "\x00" in where:
            continue
        real = os.path.realpath(where)
        if os.path.commonpath([real, base]) != base:
            hint = "an install path lies under the plugins folder of the Claude config folder; reinstall the plugin"
            message = f"plugin {quoted(plugin_id)} installPath {quoted(where)} is outside {base}"
            problems.append(_problem(PLUGIN_PATH_INVALID, message, path, hint))
            return None
        # Watched: a plugin installed after this answer was stored changes it.
        st = watch(where)
        if st is None or not S_ISDIR(st.st_mode):
            hint = "reinstall the plugin, or disable it in settings.json"
            message = f"plugin {quoted(plugin_id)} installPath {quoted(where)} does not exist"
            problems.append(_problem(PLUGIN_PATH_INVALID, message, path, hint))
            return None
        return Path(where)
    hint = "each install has an installPath string"
    problems.append(_problem(PLUGINS_JSON_INVALID, f"plugin {quoted(plugin_id)} has no usable installPath", path, hint))
    return None


class ClaudePluginsSource:
    """Skills of the enabled Claude Code plugins (`<install>/skills/*/SKILL.md`) as `plugin:skill`."""

    scopes = (PLUGINS_SCOPE,)

    def discover(self, context: DiscoveryContext) -> SourceResult:
        """Read the skills of every enabled, usable plugin install; every bad entry is a problem, not a stop."""
        if not enabled(SOURCE, context.env):
            return SourceResult()
        problems: list[Problem] = []
        scope = Scope(PLUGINS_SCOPE.name)
        places = [
            SkillsPlace(install / "skills", scope, prefix=f"{name}:", name_check=_unsafe_skill(name, install))
            for name, install in installs(context.config_dir, problems)
        ]
        found = walk_skills(places, source=SOURCE, env=context.env)
        return SourceResult(records=found.records, problems=(*problems, *found.problems), scanned=found.scanned)

    def cache_key(self, context: DiscoveryContext) -> str:
        """Only the switch: the config folder is in every key, and the two JSON files are watched."""
        return switch_key(context.env)

    def locations(self, context: DiscoveryContext, name: str) -> list[Location]:
        """Where `plugin:skill` would be: its plugin's install, when enabled and usable (for `why`)."""
        if not enabled(SOURCE, context.env) or ":" not in name:
            return []
        plugin, skill = name.split(":", 1)
        scope = Scope(PLUGINS_SCOPE.name)
        found = [install for got, install in installs(context.config_dir, []) if got == plugin]
        if not found:
            where = str(context.config_dir / "plugins" / INSTALLED_FILE)
            return [Location(scope, where, f"no enabled, installed plugin named {quoted(plugin)}")]
        return [Location(scope, str(found[0] / "skills" / skill / "SKILL.md"))]
