"""The `swarm-handoff` command line: a thin layer over the Python API."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    """Entry point of the `swarm-handoff` console script."""
    args = sys.argv[1:] if argv is None else argv
    if args and "--version" in args and set(args) <= _VERSION_ARGS and not _strict():
        _print_version("--verbose" in args)  # before typer, pluggy and attrs are imported
        raise SystemExit(0)
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


_VERSION_ARGS = frozenset({"--version", "--verbose"})


def _strict() -> bool:
    """SWARM_HANDOFF_STRICT_PLUGINS (as `plugins.strict_requested` reads it): then even `--version` checks plugins."""
    import os

    return os.environ.get("SWARM_HANDOFF_STRICT_PLUGINS", "").strip().lower() in {"1", "true", "yes", "on"}


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
