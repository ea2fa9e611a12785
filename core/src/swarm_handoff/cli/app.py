"""The typer application: the core's commands, then whatever plugins add.

Typer turns every registered command into a click command (reading each signature) before it
parses the command line, and the plugins' commands need the plugin host built first. Both are
work a single command does not need, so the root group does them on demand: a command is
converted when it is looked up, and plugin commands join the first time any command is looked
up or listed. `--version`, answered while the root's own options are parsed, needs neither.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from typing import Any

import typer
from typer.core import TyperGroup

from swarm_handoff._version import __version__
from swarm_handoff.cli import (
    core_commands,
    demo_commands,
    discovery_commands,
    handoff_commands,
    help_text,
    rank_commands,
    session_commands,
    workflow_commands,
)
from swarm_handoff.plugins import get_host, strict_requested
from swarm_handoff.render import DEFAULT_FORMAT

# One set of settings for the root app and for the apps commands are converted from.
_SETTINGS: dict[str, Any] = {
    "add_completion": False,
    "pretty_exceptions_enable": False,
    "rich_markup_mode": None,
}


def _version(value: bool) -> None:
    if value:
        typer.echo(f"swarm-handoff {__version__}")
        raise typer.Exit()


def _no_options() -> None:
    """The callback of the throw-away apps commands are converted from (so each is a group)."""


def _convert(*, commands: Sequence[Any] = (), groups: Sequence[Any] = ()) -> dict[str, Any]:
    """Turn typer command/group entries into click commands by name, exactly as typer would."""
    single = typer.Typer(**_SETTINGS)
    single.callback()(_no_options)
    single.registered_commands = list(commands)
    single.registered_groups = list(groups)
    return dict(typer.main.get_group(single).commands)


def _explicit_name(entry: Any) -> str | None:
    """The name an entry was registered under (`app.command("x")`, `add_typer(..., name="x")`)."""
    name = getattr(entry, "name", None)
    return name if isinstance(name, str) and name else None


class LazyCommandsGroup(TyperGroup):
    """The root command group: converts a command when it is looked up, adds plugin commands once.

    Every name is known up front (listing, `--help` and a typo's suggestions see all of them, in
    typer's order: commands, then groups, core's first), but only the command that runs pays for
    reading its signature. Entries registered without an explicit name are converted at once.
    """

    def core_app(self) -> typer.Typer:
        """The app holding the core's commands (a subclass made by `build_app` says which)."""
        raise NotImplementedError

    def _entries(self) -> dict[str, tuple[str, Any]]:
        pending: dict[str, tuple[str, Any]] | None = getattr(self, "_pending", None)
        if pending is not None:
            return pending
        core = self.core_app()
        # Plugins see (and may not take) the core's names through a copy of the core's lists.
        view = typer.Typer(**_SETTINGS)
        view.registered_commands = list(core.registered_commands)
        view.registered_groups = list(core.registered_groups)
        get_host().extend_cli(view)  # reports failures and taken names, and drops those commands
        pending = {}
        for kind, entries in (("commands", view.registered_commands), ("groups", view.registered_groups)):
            for entry in entries:
                name = _explicit_name(entry)
                if name is not None:
                    pending[name] = (kind, entry)
                else:
                    for converted, command in _convert(**{kind: [entry]}).items():
                        pending[converted] = ("converted", command)
        self._pending = pending
        return pending

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """Look a command up (plugin commands included), converting it on first use."""
        found = self.commands.get(cmd_name)
        if found is not None:
            return found
        entry = self._entries().get(cmd_name)
        if entry is None:
            from swarm_handoff.cli.missing import missing_command

            stand_in = missing_command(cmd_name)  # a known plugin's command: say what to install
            if stand_in is not None:
                return stand_in
            self._convert_all()  # an unknown name: typer's suggestions read every command
            return None
        kind, value = entry
        command = value if kind == "converted" else _convert(**{kind: [value]})[cmd_name]
        help_text.finish(command, cmd_name)
        self.commands[cmd_name] = command
        return command

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        """Parse the root's own options; a usage error under a machine format is a USAGE document."""
        self._argv = list(args)
        with _usage_as_document(self._argv):
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: Any) -> Any:
        """Run the command; its usage errors (options, arguments, values) as `make_context` reports them."""
        with _usage_as_document(getattr(self, "_argv", [])):
            return super().invoke(ctx)

    def list_commands(self, ctx: Any) -> list[str]:
        """List every command name, plugin commands included, in typer's order."""
        return list(self._entries())

    def _convert_all(self) -> None:
        for name in self._entries():
            self.get_command(None, name)
        self.commands = {name: self.commands[name] for name in self._entries()}


def _usage_errors() -> tuple[type[Exception], ...]:
    """Click's UsageError: typer >= 0.26 bundles click as `typer._click`, older ones use click itself."""
    bundled = getattr(typer, "_click", None)
    if bundled is not None:
        return (bundled.exceptions.UsageError,)
    import click

    return (click.UsageError,)


_USAGE_ERRORS = _usage_errors()


@contextlib.contextmanager
def _usage_as_document(args: list[str]) -> Iterator[None]:
    """Report click's usage errors as a USAGE error document when `--format` asks for a machine format.

    Every other failure under `--format json` is one document on stdout; a mistyped option must be
    too, or a program reading stdout gets nothing to parse. Text keeps click's own message.
    """
    try:
        yield
    except _USAGE_ERRORS as exc:
        from swarm_handoff.cli import _format_from
        from swarm_handoff.cli.printing import report
        from swarm_handoff.errors import UsageError

        fmt = _format_from(args)
        if fmt == DEFAULT_FORMAT:
            raise
        error: Any = exc  # click's UsageError (bundled or not): `ctx` and `format_message()`
        path = error.ctx.command_path if error.ctx is not None else "swarm-handoff"
        raise typer.Exit(report(UsageError(error.format_message(), hint=f"see `{path} -h`"), fmt)) from None


def build_app() -> typer.Typer:
    """Build the CLI; plugin commands are added through the `swarm_handoff_cli` hook."""
    core = typer.Typer(**_SETTINGS)

    class _Root(LazyCommandsGroup):
        def core_app(self) -> typer.Typer:
            return core

    app = typer.Typer(
        name="swarm-handoff",
        help="Discover agent skills that accept a hand-off, rank them, and hand work over.",
        epilog=(
            "\b\nStart with: swarm-handoff demo\n"
            "More: docs/cli.md (repository docs); completion: docs/cli.md#help-and-shell-completion"
        ),
        no_args_is_help=True,
        cls=_Root,
        # -h as well as --help, inherited by every command (click passes help names down to subcontexts)
        context_settings={"help_option_names": ["-h", "--help"]},
        **{**_SETTINGS, "add_completion": True},  # --install-completion / --show-completion, root only
    )

    @app.callback()
    def _root(
        version: bool = typer.Option(
            False, "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ) -> None:
        """Discover agent skills that accept a hand-off, rank them, and hand work over."""

    core_commands.register(core)
    discovery_commands.register(core)
    rank_commands.register(core)
    handoff_commands.register(core)
    workflow_commands.register(core)
    session_commands.register(core)
    demo_commands.register(core)
    if strict_requested(os.environ):
        get_host()  # strict: a plugin failure is an error before any command runs (`main` reports it)
    return app
