"""The `swarm-handoff` command line: a thin layer over the Python API."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    """Entry point of the `swarm-handoff` console script."""
    args = sys.argv[1:] if argv is None else argv
    answer = None
    if argv is None:  # the console script: a repeated `discover` may be answered from the cache
        from swarm_handoff.cli import answers

        answer = answers.start(args)
        if answer is not None:
            status = answer.replay()
            if status is not None:
                raise SystemExit(status)
            answers.record(answer)
    from swarm_handoff.errors import SwarmError

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
    try:
        app(args=args, prog_name="swarm-handoff")
    except SystemExit as exit_:
        if answer is not None and isinstance(exit_.code, (int, type(None))):
            answer.save(exit_.code or 0)
        raise


def _format_from(args: list[str]) -> str:
    """Find `--format X` by hand when the app could not be built, so JSON users still get JSON."""
    for i, arg in enumerate(args):
        if arg in ("--format", "-f") and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--format="):
            return arg.split("=", 1)[1]
    return "text"
