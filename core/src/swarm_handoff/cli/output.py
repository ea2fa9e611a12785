"""How every command prints: one document on stdout, warnings on stderr, errors with exit codes.

Nothing a command does ends in a Python traceback: a `SwarmError` is reported with its code, and
any other exception becomes INTERNAL_ERROR in the requested format (the traceback goes to stderr
only under SWARM_HANDOFF_DEBUG=1). What goes to stderr is escaped like the text format, since it
quotes names, paths and messages that come from skills and payloads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn

import typer

from swarm_handoff.cli.printing import (
    ENV_DEBUG,
    check_cwd,
    echo_err,
    emit,
    encodable,
    internal_error,
    report,
    run_document,
    warn,
    warn_plugin_failures,
)
from swarm_handoff.components import Document
from swarm_handoff.errors import SwarmError
from swarm_handoff.plugins import PluginHost
from swarm_handoff.render import DEFAULT_FORMAT

__all__ = [
    "ENV_DEBUG",
    "FORMAT_HELP",
    "check_cwd",
    "echo_err",
    "emit",
    "encodable",
    "fail",
    "format_option",
    "internal_error",
    "run",
    "warn",
    "warn_plugin_failures",
]

FORMAT_HELP = "Output format: text, json, yaml, or any installed formatter (xml, ...)."


def format_option() -> str:
    """Declare the `--format` option the same way on every command."""
    return typer.Option(DEFAULT_FORMAT, "--format", "-f", help=FORMAT_HELP)  # type: ignore[no-any-return]


def fail(error: SwarmError, fmt: str) -> NoReturn:
    """Report `error` (on stdout for machine formats, stderr for text) and exit with its status."""
    raise typer.Exit(report(error, fmt))


def run(fmt: str, action: Callable[[PluginHost], Document]) -> None:
    """Run one command body: resolve plugins, check `--format`, print the result or the error."""
    status = run_document(fmt, action, passthrough=(typer.Exit, typer.Abort))  # Ctrl-C at a prompt, an exit status
    if status:
        raise typer.Exit(status)
