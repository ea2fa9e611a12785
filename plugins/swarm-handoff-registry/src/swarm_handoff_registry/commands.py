"""The `registry` command group: `path`, `show`, `sync` (thin layers over registry.py and sync.py)."""

from __future__ import annotations

from typing import Any, ClassVar

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
    def sync_command(fmt: str = format_option()) -> None:
        """Regenerate the registry from discovery, keeping manual edits, comments and custom keys."""

        def action(host: PluginHost) -> Document:
            from swarm_handoff.api import discover, make_context
            from swarm_handoff_registry.registry import registry_path
            from swarm_handoff_registry.sync import sync

            result = discover(make_context(refresh=True), host)
            return sync(registry_path(), result.workflows)

        run(fmt, action)

    return app
