"""What the plugin host reports: components, loaded plugins, skipped ones and failures.

Kept apart from the host itself so that the records a command prints (`swarm-handoff plugins`)
read as data, and the loading logic in `plugins.py` stays one room.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import attrs

from swarm_handoff.components import Kind


@attrs.frozen
class ComponentRef:
    """A registered component: who offers it and how to build it, without building it."""

    kind: Kind
    name: str
    plugin: str
    distribution: str
    summary: str = ""
    factory: Callable[[], Any] = attrs.field(eq=False, repr=False, default=None)

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form shown by `swarm-handoff plugins`."""
        return {"kind": self.kind.value, "name": self.name, "summary": self.summary}


@attrs.frozen
class PluginInfo:
    """A plugin that loaded, with the hooks it implements."""

    name: str
    distribution: str
    version: str
    module: str
    builtin: bool
    hooks: tuple[str, ...]


@attrs.frozen
class LoadFailure:
    """A plugin, hook call or component name that could not be used, and why."""

    name: str
    distribution: str
    version: str
    code: str
    error: str
    hint: str = ""
    kind: str = "plugin"  # or "pack": which entry-point group `name` belongs to

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form shown by `swarm-handoff plugins`."""
        return attrs.asdict(self)

    def describe(self) -> str:
        """Say in one line which plugin or pack failed and how, for warnings on stderr."""
        return f"{self.kind} {self.name!r} ({self.distribution} {self.version}): {self.code}: {self.error}"


@attrs.frozen
class SkippedPlugin:
    """An entry point that was deliberately not imported (blocked or not allowed)."""

    name: str
    distribution: str
    version: str
    reason: str
    kind: str = "plugin"  # or "pack"


@attrs.frozen
class PackSkill:
    """One skill-pack entry point that loaded: its skill name and what it provides (skill, workflow)."""

    name: str
    distribution: str
    version: str
    entry_point: str
    provides: tuple[str, ...]


@attrs.frozen
class PluginsReport:
    """The `plugins` command's document: what loaded, what it provides, what failed."""

    kind: ClassVar[str] = "plugins"
    core_version: str
    plugins: tuple[PluginInfo, ...]
    components: tuple[ComponentRef, ...]
    failures: tuple[LoadFailure, ...]
    skipped: tuple[SkippedPlugin, ...]
    packs: tuple[PackSkill, ...] = ()

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form: one entry per plugin with its components, one per pack with its skills."""
        by_plugin: dict[str, list[dict[str, Any]]] = {}
        for ref in self.components:
            by_plugin.setdefault(ref.plugin, []).append(ref.to_data())
        by_pack: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for skill in self.packs:
            entry = {"name": skill.name, "entry_point": skill.entry_point, "provides": list(skill.provides)}
            by_pack.setdefault((skill.distribution, skill.version), []).append(entry)
        return {
            "core_version": self.core_version,
            "plugins": [
                {**attrs.asdict(p), "hooks": list(p.hooks), "components": by_plugin.get(p.name, [])}
                for p in self.plugins
            ],
            "packs": [
                {"distribution": dist, "version": version, "skills": skills}
                for (dist, version), skills in sorted(by_pack.items())
            ],
            "failures": [f.to_data() for f in self.failures],
            "skipped": [attrs.asdict(s) for s in self.skipped],
        }
