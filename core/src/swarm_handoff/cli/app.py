"""The typer application: the core's commands, then whatever plugins add."""

from __future__ import annotations

import typer

from swarm_handoff._version import __version__
from swarm_handoff.cli import (
    core_commands,
    demo_commands,
    discovery_commands,
    handoff_commands,
    rank_commands,
    skills_commands,
    workflow_commands,
)
from swarm_handoff.plugins import get_host


def _version(value: bool) -> None:
    if value:
        typer.echo(f"swarm-handoff {__version__}")
        raise typer.Exit()


def build_app() -> typer.Typer:
    """Build the CLI; plugin commands are added through the `swarm_handoff_cli` hook."""
    app = typer.Typer(
        name="swarm-handoff",
        help="Discover agent skills that accept a hand-off, rank them, and hand work over.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )

    @app.callback()
    def _root(
        version: bool = typer.Option(
            False, "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ) -> None:
        """Discover agent skills that accept a hand-off, rank them, and hand work over."""

    core_commands.register(app)
    discovery_commands.register(app)
    rank_commands.register(app)
    handoff_commands.register(app)
    workflow_commands.register(app)
    skills_commands.register(app)
    demo_commands.register(app)
    get_host().extend_cli(app)
    return app
