"""The `swarm-handoff` command line: a thin layer over the Python API.

`main` is also the last line of defence: whatever escapes a command (commands report their own
errors through `cli.output.run`) is still a coded INTERNAL_ERROR document, never a traceback, and
a reader that closed the pipe early (`| head`) ends the run quietly.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: importing typing costs ~10 ms of start-up
if TYPE_CHECKING:
    from typing import NoReturn

    from swarm_handoff.cli.answers import Answer


def main(argv: list[str] | None = None) -> None:
    """Entry point of the `swarm-handoff` console script."""
    args = sys.argv[1:] if argv is None else argv
    try:
        # Before typer, pluggy and attrs are imported; a shell's completion request is typer's, whatever argv holds.
        if args and "--version" in args and set(args) <= _VERSION_ARGS and not _strict() and not _completing():
            _print_version("--verbose" in args)
            raise SystemExit(0)
        _main(args, replay=argv is None)
    except BrokenPipeError:
        _quiet_broken_pipe()
    except Exception as exc:  # nothing reaches the user as a traceback, whatever raised it
        _internal_error(exc, _format_from(args))


def _main(args: list[str], *, replay: bool) -> None:
    answer = None
    if replay:  # the console script: a repeated `discover` or help page may be answered from the cache
        from swarm_handoff.cli import answers, help_pages

        page = help_pages.start(args)
        if page is not None:
            status = page.replay()
            if status is not None:
                raise SystemExit(status)
            with page.recording():  # printed as the app writes it, then stored
                _run(args, None)
            return
        answer = answers.start(args)
        if answer is not None:
            status = answer.replay()
            if status is not None:
                raise SystemExit(status)
            answers.record(answer)
    _run(args, answer)


def _run(args: list[str], answer: Answer | None) -> None:
    """Build the app and run the command for real (saving a replayable `discover` answer)."""
    if args and args[0] == "discover" and not _strict() and not _completing():  # plain: no typer (cli/lean.py)
        from swarm_handoff.cli import lean

        params = lean.parse(args)
        if params is not None:
            lean.run(params, answer)
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
        # Typer ends Ctrl-C as 130: what was printed by then is half an answer, never to be replayed.
        if answer is not None and isinstance(exit_.code, (int, type(None))) and exit_.code != _INTERRUPTED:
            answer.save(exit_.code or 0)
        raise


def _internal_error(exc: Exception, fmt: str) -> NoReturn:
    """Report an exception that escaped every command as INTERNAL_ERROR, in the requested format."""
    import typer

    from swarm_handoff.cli.output import fail, internal_error

    try:
        fail(internal_error(exc), fmt)
    except typer.Exit as exit_:
        raise SystemExit(exit_.exit_code) from None
    except BrokenPipeError:
        _quiet_broken_pipe()


def _quiet_broken_pipe() -> NoReturn:
    """Stop after the reader closed stdout: no second error while Python flushes it at exit."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (a test's capture): nothing to flush
        pass
    raise SystemExit(1)


_VERSION_ARGS = frozenset({"--version", "--verbose"})
_INTERRUPTED = 130  # the exit status of a command ended by Ctrl-C (typer's, and the lean `discover`'s)


def _strict() -> bool:
    """SWARM_HANDOFF_STRICT_PLUGINS (as `plugins.strict_requested` reads it): then even `--version` checks plugins."""
    import os

    return os.environ.get("SWARM_HANDOFF_STRICT_PLUGINS", "").strip().lower() in {"1", "true", "yes", "on"}


def _completing() -> bool:
    """Whether a shell asks for completions: typer answers them from its own variables, whatever argv holds."""
    import os

    return bool(os.environ.get(COMPLETE_VAR))


# Typer's name for it: `_{prog_name}_COMPLETE`, upper case, `-` as `_` (`typer.core._typer_main_shell_completion`).
# Defined here, the one module every fast path has already imported; `help_pages` reads it from here.
COMPLETE_VAR = "_SWARM_HANDOFF_COMPLETE"


def _print_version(verbose: bool) -> None:
    """Say the version (and with `--verbose` what runs it), importing nothing of the plugin stack."""
    from swarm_handoff._version import __version__

    print(f"swarm-handoff {__version__}")
    if verbose:
        import os
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


def _format_from(args: list[str]) -> str:
    """Find `--format X` by hand when the app could not be built, so JSON users still get JSON."""
    for i, arg in enumerate(args):
        if arg in ("--format", "-f") and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--format="):
            return arg.split("=", 1)[1]
    return "text"
