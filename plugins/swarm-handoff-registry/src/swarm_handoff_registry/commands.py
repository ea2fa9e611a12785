"""The `registry` command group: `path`, `show`, `sync`, `prune` (thin layers over registry.py and sync.py)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

import attrs
import typer

from swarm_handoff.api import Document, PluginHost, format_option, run


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


def registry_app() -> typer.Typer:
    """Build the `registry` sub-application."""
    app = typer.Typer(help="The optional hand-off registry file.", no_args_is_help=True)

    @app.command("path")
    def path_command(fmt: str = format_option()) -> None:
        """Print where the registry file is (or would be)."""

        def action(host: PluginHost) -> Document:
            from swarm_handoff_registry.registry import registry_path

            path = registry_path()
            return PathDocument(str(path), path.exists())

        run(fmt, action)

    @app.command("show")
    def show_command(fmt: str = format_option()) -> None:
        """Show the registry's workflows and any problems with the file."""

        def action(host: PluginHost) -> Document:
            from swarm_handoff_registry.registry import registry_path, show

            return show(registry_path())

        run(fmt, action)

    @app.command("sync")
    def sync_command(
        packs: Annotated[
            bool, typer.Option("--packs", help="Also write the skills of installed packs (this environment's).")
        ] = False,
        fmt: str = format_option(),
    ) -> None:
        """Regenerate the registry from your user-level skills (and packs), keeping manual edits and comments."""

        def action(host: PluginHost) -> Document:
            from swarm_handoff.api import discover, make_context
            from swarm_handoff_registry.registry import registry_path
            from swarm_handoff_registry.sync import sync

            result = discover(make_context(refresh=True), host)
            return sync(registry_path(), synced_records(result, packs=packs))

        run(fmt, action)

    @app.command("prune")
    def prune_command(fmt: str = format_option()) -> None:
        """Remove the entries `sync` marked stale (their skill is gone); the previous file is kept as .bak."""

        def action(host: PluginHost) -> Document:
            from swarm_handoff_registry.registry import registry_path
            from swarm_handoff_registry.sync import prune

            return prune(registry_path())

        run(fmt, action)

    return app
