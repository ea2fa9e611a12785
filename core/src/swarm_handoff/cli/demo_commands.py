"""`swarm-handoff demo`: the main job, end to end, with nothing to set up."""

from __future__ import annotations

from pathlib import Path

import typer

from swarm_handoff.cli.output import format_option, run
from swarm_handoff.plugins import PluginHost

_DIR = typer.Option(None, "--dir", help="Session folder to use (created if missing); default: a fresh temporary one.")
_CWD = typer.Option(None, "--cwd", help="Working directory for discovery (default: here).")
_KEEP = typer.Option(False, "--keep", help="Keep the temporary session folder (default: removed at the end).")


def register(app: typer.Typer) -> None:
    """Add the `demo` command to `app`."""

    @app.command("demo")
    def demo(
        folder: Path | None = _DIR,
        cwd: Path | None = _CWD,
        keep: bool = _KEEP,
        fmt: str = format_option(),
    ) -> None:
        """Discover installed skills, rank them for an example synthesis, hand off, verify, run step one.

        It leaves no trace: its config and cache folders are temporary (your history and your
        ~/.claude are untouched), and its session folder is removed unless you pass --keep or --dir.
        """
        from swarm_handoff.demo import DemoReport, command_name, demo_sandbox, run_demo
        from swarm_handoff.discovery import make_context

        with demo_sandbox() as sandbox:
            # A kept session outlives the sandbox, so it goes to the system's temporary folder.
            scratch = None if keep else sandbox

            def action(host: PluginHost) -> DemoReport:
                return run_demo(make_context(cwd), host, folder, scratch=scratch, command=command_name())

            run(fmt, action)
