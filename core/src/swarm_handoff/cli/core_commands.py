"""The commands the core itself provides."""

from __future__ import annotations

import typer

from swarm_handoff.cli.output import format_option, run
from swarm_handoff.plugins import PluginHost, PluginsReport


def register(app: typer.Typer) -> None:
    """Add the core's commands to `app`."""

    @app.command("plugins")
    def plugins(fmt: str = format_option()) -> None:
        """List plugins with their distribution, version, hooks and components, and every failure."""

        def action(host: PluginHost) -> PluginsReport:
            return host.report()

        run(fmt, action)
