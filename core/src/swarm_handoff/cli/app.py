"""The typer application: the core's commands, then whatever plugins add (the `swarm_handoff_cli` hook).

The one door of the command line: every command, help page and usage error goes through it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import typer
from typer.core import TyperGroup

from swarm_handoff import __version__
from swarm_handoff.cli import help_text
from swarm_handoff.cli.operations_cli import Completer, add_operations
from swarm_handoff.cli.output import format_from, report
from swarm_handoff.errors import UsageError
from swarm_handoff.formatting import DEFAULT_FORMAT
from swarm_handoff.operation_table import CORE_GROUPS, CORE_OPERATIONS
from swarm_handoff.plugins import get_host

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


class RootGroup(TyperGroup):
    """The root command group: typer's, plus examples on each help page and a known plugin's missing command.

    Only `get_command` is overridden, click's documented way to look a command up.
    """

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """Look a command up; a known plugin's command that is not installed says what to install."""
        command = super().get_command(ctx, cmd_name)
        if command is None:
            from swarm_handoff.cli.missing import missing_command

            return missing_command(cmd_name)
        help_text.finish(command, cmd_name)
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
        fmt = format_from(args)
        if fmt == DEFAULT_FORMAT:
            raise
        error: Any = exc  # click's UsageError (bundled or not): `ctx` and `format_message()`
        path = error.ctx.command_path if error.ctx is not None else "swarm-handoff"
        raise typer.Exit(report(UsageError(error.format_message(), hint=f"see `{path} -h`"), fmt)) from None


def build_app(complete: Completer | None = None) -> typer.Typer:
    """Build the CLI; plugin commands are added through the `swarm_handoff_cli` hook.

    `complete` lists an option's values for shell completion (`cli.completion.completer`, which the
    console script and the testing kit hand in): listing skill names is a discovery, not the app's.
    """
    app = typer.Typer(
        name="swarm-handoff",
        help="Discover agent skills that accept a hand-off, rank them, and hand work over.",
        epilog=(
            "\b\nStart with: swarm-handoff demo\n"
            "More: docs/cli.md (repository docs); completion: docs/cli.md#help-and-shell-completion"
        ),
        no_args_is_help=True,
        cls=RootGroup,
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

    host = get_host()
    declared = host.operations()  # the plugins' operations: conflicts and failures reported, dropped
    operations, groups = (*CORE_OPERATIONS, *declared.operations), (*CORE_GROUPS, *declared.groups)
    add_operations(app, operations, groups, complete=complete)  # completion lists names through the host
    # Strict: a plugin failure is an error before any command runs (`main` reports it).
    host.extend_cli(app)  # reports failures and taken names, and drops those commands
    return app
