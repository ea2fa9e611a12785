"""The one adapter from an `Operation` to a typer command: options, arguments, help and the run.

Each command function is built with an `inspect.Signature` whose defaults are `typer.Option` /
`typer.Argument`, exactly what a hand-written command declares, so typer renders the same help
and parses the same way. The body resolves the plugins, runs the operation and prints its
document (`cli.output.run`); an `OperationResult`'s notes go to stderr and its status is the exit status.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import typer

from swarm_handoff.cli import help_text
from swarm_handoff.cli.output import FORMAT_HELP, run
from swarm_handoff.components import Document
from swarm_handoff.errors import SwarmError
from swarm_handoff.formatting import DEFAULT_FORMAT
from swarm_handoff.operation_table import CORE_OPERATIONS
from swarm_handoff.operations import CLI, Group, Operation, OperationResult, Param, resolve
from swarm_handoff.plugins import PluginHost

__all__ = ["FORMAT", "add_operations", "command_function", "invoke", "invoke_operation"]

# `--format`: every operation that prints a document takes it, last, as every command always did.
FORMAT = Param("format", help=FORMAT_HELP, default=DEFAULT_FORMAT, flags=("--format", "-f"), complete="format")


def _annotation(param: Param) -> Any:
    """The Python type typer reads: a list when repeatable, optional when it may be left out."""
    kind: Any = list[param.type] if param.repeatable else param.type  # type: ignore[name-defined]
    if param.default is None and not param.required:
        return kind | None
    return kind


# What shell completion offers for a parameter (`cli.completion.completer`, which the app hands in:
# listing skill or workflow names needs discovery and the workflow registry, not this adapter).
Completer = Callable[[Param], Callable[[str], list[str]] | None]


def _info(param: Param, complete: Completer | None) -> Any:
    """The `typer.Option` / `typer.Argument` a hand-written command would give as the default."""
    default = ... if param.required else param.default
    extra: dict[str, Any] = {"help": param.help_text()}
    if param.minimum is not None:
        extra["min"] = param.minimum
    if param.maximum is not None:
        extra["max"] = param.maximum
    completion = complete(param) if complete is not None else None
    if completion is not None:
        extra["autocompletion"] = completion
    if param.argument:
        return typer.Argument(default, **extra)
    return typer.Option(default, *param.cli_flags, **extra)


def cli_params(operation: Operation) -> tuple[Param, ...]:
    """The operation's command-line parameters, `--format` last when it prints a document."""
    return (*operation.on(CLI), FORMAT) if operation.formatted else operation.on(CLI)


def command_function(operation: Operation, complete: Completer | None = None) -> Callable[..., None]:
    """A function typer turns into the operation's command: its signature declares the parameters.

    `complete` gives each parameter's shell completion (none without it).
    """
    params = cli_params(operation)

    def command(**values: Any) -> None:
        if operation.cli_invoke is not None:
            resolve(operation.cli_invoke)(operation, values)
        else:
            invoke(operation, values)

    command.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(
                p.name, inspect.Parameter.KEYWORD_ONLY, default=_info(p, complete), annotation=_annotation(p)
            )
            for p in params
        ]
    )
    command.__annotations__ = {p.name: _annotation(p) for p in params}
    command.__name__ = operation.command.replace("-", "_")
    command.__qualname__ = command.__name__
    command.__doc__ = operation.summary
    return command


def invoke(operation: Operation, values: dict[str, Any]) -> None:
    """Run `operation` with the parsed values: print its document, then its notes; exit with its status."""
    fmt = values.pop(FORMAT.name, DEFAULT_FORMAT) if operation.formatted else DEFAULT_FORMAT
    runner = operation.runner()
    if operation.takes_format:
        values = {**values, FORMAT.name: fmt}
    outcome: OperationResult | None = None

    def action(host: PluginHost) -> Document:
        nonlocal outcome
        try:
            result = runner(host, **values)
        except SwarmError as error:  # a refusal names inputs by neutral name: say them as options
            from swarm_handoff.inputs import spell_error, spelling_of

            raise spell_error(error, spelling_of(CORE_OPERATIONS, CLI, operation)) from None
        if isinstance(result, OperationResult):
            outcome = result
            return result.document
        return result

    run(fmt, action)
    if outcome is not None:
        for note in outcome.notes:
            typer.echo(note, err=True)
        if outcome.status:
            raise typer.Exit(outcome.status)


def invoke_operation(operation: Operation, values: dict[str, Any]) -> None:
    """Run `operation` as its command does: for a plugin's `cli_invoke` that prepares the values first."""
    invoke(operation, values)


def _epilog(examples: tuple[str, ...], docs: str) -> str | None:
    """The `-h` page's closing block: the examples, then where to read more (None without examples)."""
    return help_text.examples_block(examples, docs) if examples else None


def _group_app(group: Group) -> typer.Typer:
    """The typer app of a command group (`workflow`, `session`)."""
    return typer.Typer(
        name=group.name,
        help=group.summary,
        epilog=_epilog(group.examples, group.docs),
        no_args_is_help=True,
        rich_markup_mode=None,
    )


def add_operations(
    app: typer.Typer,
    operations: Sequence[Operation],
    groups: Sequence[Group] = (),
    *,
    complete: Completer | None = None,
) -> None:
    """Add each operation to `app` as a command; grouped ones to their group's app, added once.

    `complete` gives each parameter's shell completion (`cli.completion.completer`; none without it).
    """
    apps: dict[str, typer.Typer] = {}
    for operation in operations:
        target = app
        if operation.group:
            if operation.group not in apps:
                group = next((g for g in groups if g.name == operation.group), Group(operation.group, ""))
                apps[operation.group] = _group_app(group)
                app.add_typer(apps[operation.group], name=operation.group)
            target = apps[operation.group]
        epilog = operation.epilog if operation.epilog is not None else _epilog(operation.examples, operation.docs)
        target.command(operation.command, epilog=epilog)(command_function(operation, complete))
