"""The bodies of the `registry` commands (`path`, `show`, `sync`, `prune`), over registry.py and sync.py.

Their rows are in operation_table.py, which every command registers; this module loads when one of
them runs.
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from swarm_handoff.api import Document, PluginHost
from swarm_handoff_registry.registry import registry_path, show


@attrs.frozen
class PathDocument:
    """The `registry path` document."""

    kind: ClassVar[str] = "registry-path"
    path: str
    exists: bool

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {"path": self.path, "exists": self.exists}

    def to_text(self) -> str:
        """Just the path, so `$(swarm-handoff registry path)` works in a shell."""
        return self.path + "\n"


def synced_records(result: Any, *, packs: bool) -> tuple[Any, ...]:
    """The user's own skills: user-level ones (shadowed by a project or not), and packs' when asked.

    A project's or git root's skills are never written: the registry is read everywhere.
    """
    from swarm_handoff.api import Scope

    wanted = {Scope.GLOBAL, Scope.INSTALLED} if packs else {Scope.GLOBAL}
    found: dict[str, Any] = {}
    for record in (*result.workflows, *(s.record for s in result.shadowed)):
        if record.scope in wanted and record.eligible:
            found.setdefault(record.name, record)
    return tuple(found.values())


def path_operation(host: PluginHost) -> Document:
    """`registry path`: where the registry file is (or would be)."""
    path = registry_path()
    return PathDocument(str(path), path.exists())


def show_operation(host: PluginHost) -> Document:
    """`registry show`: the registry's workflows and any problems with the file."""
    return show(registry_path())


def sync_operation(host: PluginHost, *, packs: bool) -> Document:
    """`registry sync`: regenerate the registry from the user-level skills (and packs)."""
    from swarm_handoff.api import discover, make_context
    from swarm_handoff_registry.sync import sync

    result = discover(make_context(refresh=True), host)
    return sync(registry_path(), synced_records(result, packs=packs))


def prune_operation(host: PluginHost) -> Document:
    """`registry prune`: remove the entries `sync` marked stale; the previous file is kept as .bak."""
    from swarm_handoff_registry.sync import prune

    return prune(registry_path())
