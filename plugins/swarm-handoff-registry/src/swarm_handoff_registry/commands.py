"""The `registry` command group, declared as operations: `path`, `show`, `sync`, `prune` (over registry.py, sync.py)."""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from swarm_handoff.api import Document, Group, Operation, Param, PluginHost


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


GROUP = Group(
    "registry",
    "The optional hand-off registry file.",
    ("swarm-handoff registry sync", "swarm-handoff registry show"),
    "docs/registry.md",
)

OPERATIONS = (
    Operation(
        "registry path",
        "Print where the registry file is (or would be).",
        (),
        "swarm_handoff_registry.commands:path_operation",
        examples=("swarm-handoff registry path",),
        docs="docs/registry.md",
    ),
    Operation(
        "registry show",
        "Show the registry's workflows and any problems with the file.",
        (),
        "swarm_handoff_registry.commands:show_operation",
        examples=("swarm-handoff registry show", "swarm-handoff registry show -f json"),
        docs="docs/registry.md",
    ),
    Operation(
        "registry sync",
        "Regenerate the registry from your user-level skills (and packs), keeping manual edits and comments.",
        (Param("packs", bool, "Also write the skills of installed packs (this environment's).", default=False),),
        "swarm_handoff_registry.commands:sync_operation",
        examples=("swarm-handoff registry sync", "swarm-handoff registry sync --packs"),
        docs="docs/registry.md",
    ),
    Operation(
        "registry prune",
        "Remove the entries `sync` marked stale (their skill is gone); the previous file is kept as .bak.",
        (),
        "swarm_handoff_registry.commands:prune_operation",
        examples=("swarm-handoff registry prune",),
        docs="docs/registry.md",
    ),
)


def path_operation(host: PluginHost) -> Document:
    """`registry path`: where the registry file is (or would be)."""
    from swarm_handoff_registry.registry import registry_path

    path = registry_path()
    return PathDocument(str(path), path.exists())


def show_operation(host: PluginHost) -> Document:
    """`registry show`: the registry's workflows and any problems with the file."""
    from swarm_handoff_registry.registry import registry_path, show

    return show(registry_path())


def sync_operation(host: PluginHost, *, packs: bool) -> Document:
    """`registry sync`: regenerate the registry from the user-level skills (and packs)."""
    from swarm_handoff.api import discover, make_context
    from swarm_handoff_registry.registry import registry_path
    from swarm_handoff_registry.sync import sync

    result = discover(make_context(refresh=True), host)
    return sync(registry_path(), synced_records(result, packs=packs))


def prune_operation(host: PluginHost) -> Document:
    """`registry prune`: remove the entries `sync` marked stale; the previous file is kept as .bak."""
    from swarm_handoff_registry.registry import registry_path
    from swarm_handoff_registry.sync import prune

    return prune(registry_path())
