"""The `swarm-handoff` command line: a thin layer over the Python API."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    """Entry point of the `swarm-handoff` console script."""
    from swarm_handoff.errors import SwarmError

    args = sys.argv[1:] if argv is None else argv
    try:
        from swarm_handoff.cli.app import build_app

        app = build_app()
    except SwarmError as error:  # strict plugin loading failed before any command could run
        import typer

        from swarm_handoff.cli.output import fail

        fmt = _format_from(args)
        try:
            fail(error, fmt)
        except typer.Exit as exit_:
            raise SystemExit(exit_.exit_code) from None
    app(args=args, prog_name="swarm-handoff")


def _format_from(args: list[str]) -> str:
    """Find `--format X` by hand when the app could not be built, so JSON users still get JSON."""
    for i, arg in enumerate(args):
        if arg in ("--format", "-f") and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--format="):
            return arg.split("=", 1)[1]
    return "text"
