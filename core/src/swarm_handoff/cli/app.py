"""The typer application: the core's commands, then whatever plugins add."""

from __future__ import annotations

import os
from typing import Any

import typer
from typer.core import TyperGroup

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
from swarm_handoff.plugins import ENV_STRICT, get_host

# One set of settings for the root app and for the plugins' commands, so both behave alike.
_SETTINGS: dict[str, Any] = {
    "add_completion": False,
    "pretty_exceptions_enable": False,
    "rich_markup_mode": None,
}


def _version(value: bool) -> None:
    if value:
        typer.echo(f"swarm-handoff {__version__}")
        raise typer.Exit()


class PluginCommandsGroup(TyperGroup):
    """The root command group: plugin commands join it the first time a command is looked up.

    Adding them builds the plugin host (entry points, distribution metadata, each plugin's
    module). `--version` is answered while the root's own options are parsed, before any
    command is looked up, so it never pays for that; every other command, `--help` and a typo's
    suggestions look commands up and see the plugins' commands exactly as before.
    """

    def typer_app(self) -> typer.Typer:
        """The typer app this group was built from (a subclass made by `build_app` says which)."""
        raise NotImplementedError

    def _add_plugin_commands(self) -> None:
        if getattr(self, "_plugins_added", False):
            return
        self._plugins_added = True
        app = self.typer_app()
        n_commands, n_groups = len(app.registered_commands), len(app.registered_groups)
        get_host().extend_cli(app)  # reports failures and taken names, and drops those commands
        added = typer.Typer(**_SETTINGS)
        added.callback()(_no_options)  # a group even when a single command was added
        added.registered_commands = app.registered_commands[n_commands:]
        added.registered_groups = app.registered_groups[n_groups:]
        if not added.registered_commands and not added.registered_groups:
            return
        new = typer.main.get_group(added).commands
        # The order typer would have given: every command, then every group, core's first.
        core = list(self.commands.items())
        new_items = list(new.items())
        n_core, n_new = len(core) - n_groups, len(added.registered_commands)
        ordered = core[:n_core] + new_items[:n_new] + core[n_core:] + new_items[n_new:]
        self.commands.clear()
        self.commands.update(ordered)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """Look a command up, plugin commands included."""
        self._add_plugin_commands()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: Any) -> list[str]:
        """List the commands, plugin commands included (help, suggestions)."""
        self._add_plugin_commands()
        return super().list_commands(ctx)


def _no_options() -> None:
    """The callback of the throw-away app that turns the plugins' commands into click commands."""


def build_app() -> typer.Typer:
    """Build the CLI; plugin commands are added through the `swarm_handoff_cli` hook."""
    app: typer.Typer

    class _Root(PluginCommandsGroup):
        def typer_app(self) -> typer.Typer:
            return app

    app = typer.Typer(
        name="swarm-handoff",
        help="Discover agent skills that accept a hand-off, rank them, and hand work over.",
        no_args_is_help=True,
        cls=_Root,
        **_SETTINGS,
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
    if os.environ.get(ENV_STRICT, "").strip().lower() in {"1", "true", "yes", "on"}:
        get_host()  # strict: a plugin failure is an error before any command runs (`main` reports it)
    return app
