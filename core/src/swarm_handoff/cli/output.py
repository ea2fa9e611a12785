"""How every command prints: one document on stdout, warnings on stderr, errors with exit codes."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn, TypeVar

import typer

from swarm_handoff.cli import answers
from swarm_handoff.components import Document
from swarm_handoff.errors import SwarmError, UsageError
from swarm_handoff.plugins import ENV_LOAD, PluginHost, build_host, get_host
from swarm_handoff.render import DEFAULT_FORMAT, check_format, render

T = TypeVar("T")

FORMAT_HELP = "Output format: text, json, yaml, or any installed formatter (xml, ...)."


def format_option() -> str:
    """Declare the `--format` option the same way on every command."""
    return typer.Option(DEFAULT_FORMAT, "--format", "-f", help=FORMAT_HELP)  # type: ignore[no-any-return]


def check_cwd(cwd: Path | None) -> None:
    """Refuse a `--cwd` that is not a folder as a usage error, the same way for every command."""
    if cwd is not None and not cwd.is_dir():
        raise UsageError(f"--cwd {cwd} is not a folder", hint="give an existing project folder")


def warn_plugin_failures(host: PluginHost) -> None:
    """Say on stderr which plugins were skipped, so a broken plugin is never silent."""
    if host.failures:
        answers.record(None)  # fixing a plugin in place may touch nothing we stat: never replay this
    for failure in host.failures:
        typer.echo(f"warning: {failure.describe()}", err=True)


def emit(document: Document, fmt: str, host: PluginHost | None = None) -> None:
    """Print `document` in `fmt` to stdout."""
    host = host or get_host()
    text = render(document, fmt, host)
    sys.stdout.write(text)
    sys.stdout.flush()
    answers.printed(text)


def fail(error: SwarmError, fmt: str) -> NoReturn:
    """Report `error` (on stdout for machine formats, stderr for text) and exit with its status."""
    document = error.to_document()
    try:
        try:
            host = get_host()
        except SwarmError:  # strict mode and a broken plugin: render with the core's own formatters
            host = build_host({ENV_LOAD: ""})
        text = render(document, fmt, host) if fmt != DEFAULT_FORMAT else None
    except SwarmError:  # the format itself is unknown
        text = None
    if text is not None:
        sys.stdout.write(text)
        answers.printed(text)
    else:
        lines = [f"error: {error}"]
        for problem in error.problems:
            where = f"{problem.location()}: " if problem.location() else ""
            lines.append(f"  {where}{problem.code}: {problem.message}")
        for line in lines:
            typer.echo(line, err=True)
        answers.printed("".join(f"{line}\n" for line in lines), err=True)
    raise typer.Exit(error.exit_code)


def run(fmt: str, action: Callable[[PluginHost], Document]) -> None:
    """Run one command body: resolve plugins, check `--format`, print the result or the error."""
    try:
        host = get_host()
        check_format(fmt, host)
        warn_plugin_failures(host)
        document = action(host)
        emit(document, fmt, host)
    except SwarmError as error:
        fail(error, fmt)
