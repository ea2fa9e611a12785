"""The `swarm-handoff` command line: a thin layer over the Python API.

The typer app (`cli/app.py`) is the one door: every command line goes through it. The only thing
answered before typer is imported is an exact `--version` (or `--version --verbose`) command line,
a comparison of the whole argv, never a parser. An agent that calls the tool many times a minute
should keep one process running instead: the MCP server (`swarm-handoff mcp`).

`main` is also the last line of defence: whatever escapes a command (commands report their own
errors through `cli.output.run`) is still a coded INTERNAL_ERROR document, never a traceback, and
a reader that closed the pipe early (`| head`) ends the run quietly.
"""

from __future__ import annotations

import os
import sys

from swarm_handoff import __version__

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: importing typing costs ~10 ms of start-up
if TYPE_CHECKING:
    from typing import NoReturn

# The whole command lines answered without typer; typer's variable for a shell's completion request.
_VERSION_LINES = (["--version"], ["--version", "--verbose"], ["--verbose", "--version"])
COMPLETE_VAR = "_SWARM_HANDOFF_COMPLETE"


def main(argv: list[str] | None = None) -> None:
    """Entry point of the `swarm-handoff` console script."""
    args = sys.argv[1:] if argv is None else argv
    try:
        if args in _VERSION_LINES and not _strict() and not os.environ.get(COMPLETE_VAR):
            _print_version("--verbose" in args)
            raise SystemExit(0)
        _run(args)
    except BrokenPipeError:
        _quiet_broken_pipe()
    except Exception as exc:  # nothing reaches the user as a traceback, whatever raised it
        _internal_error(exc, args)


def _run(args: list[str]) -> None:
    """Build the app and run the command."""
    from swarm_handoff.errors import SwarmError

    try:
        from swarm_handoff.cli.app import build_app
        from swarm_handoff.cli.completion import completer

        app = build_app(complete=completer)
    except SwarmError as error:  # strict plugin loading failed before any command could run
        import typer

        from swarm_handoff.cli.output import fail, format_from

        try:
            fail(error, format_from(args))
        except typer.Exit as exit_:
            raise SystemExit(exit_.exit_code) from None
    app(args=args, prog_name="swarm-handoff")


def _internal_error(exc: Exception, args: list[str]) -> NoReturn:
    """Report an exception that escaped every command as INTERNAL_ERROR, in the format `args` ask for."""
    import typer

    from swarm_handoff.cli.output import fail, format_from, internal_error

    try:
        fail(internal_error(exc), format_from(args))
    except typer.Exit as exit_:
        raise SystemExit(exit_.exit_code) from None
    except BrokenPipeError:
        _quiet_broken_pipe()


def _quiet_broken_pipe() -> NoReturn:
    """Stop after the reader closed stdout: no second error while Python flushes it at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (a test's capture): nothing to flush
        pass
    raise SystemExit(1)


def _strict() -> bool:
    """SWARM_HANDOFF_STRICT_PLUGINS (as `plugins.strict_requested` reads it): then even `--version` checks plugins."""
    return os.environ.get("SWARM_HANDOFF_STRICT_PLUGINS", "").strip().lower() in {"1", "true", "yes", "on"}


def _print_version(verbose: bool) -> None:
    """Say the version (and with `--verbose` what runs it), importing nothing of the plugin stack."""
    print(f"swarm-handoff {__version__}")
    if verbose:
        import platform

        from swarm_handoff.parallel import ENV_JOBS, MIN_PARALLEL, jobs_from
        from swarm_handoff.yamlevents import parser_name

        parser = parser_name()
        why = "ruamel.yaml.clib" if parser == "C" else "ruamel.yaml.clib is not installed: parsing is ~5x slower"
        jobs = jobs_from(os.environ)
        idle = "" if os.environ.get(ENV_JOBS) else ", no idle CPU now"
        when = f"from {MIN_PARALLEL} files to parse" if jobs > 1 else f"off{idle}"
        print(f"python: {platform.python_version()} ({platform.python_implementation()}) {sys.executable}")
        print(f"yaml parser: {parser} ({why})")
        print(f"parallel scan: {jobs} job{'s' if jobs > 1 else ''} ({when}; {ENV_JOBS} sets it)")
