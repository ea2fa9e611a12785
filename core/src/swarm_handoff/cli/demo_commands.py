"""`swarm-handoff demo`: the main job, end to end, with nothing to set up."""

from __future__ import annotations

from pathlib import Path

import typer

from swarm_handoff.cli.output import format_option, run
from swarm_handoff.plugins import PluginHost

_DIR = typer.Option(None, "--dir", help="Session folder to use (created if missing); default: a fresh temporary one.")
_CWD = typer.Option(None, "--cwd", help="Working directory for discovery (default: here).")


def register(app: typer.Typer) -> None:
    """Add the `demo` command to `app`."""

    @app.command("demo")
    def demo(
        folder: Path | None = _DIR,
        cwd: Path | None = _CWD,
        fmt: str = format_option(),
    ) -> None:
        """Discover installed skills, rank them for an example synthesis, hand off, verify, run step one."""
        from swarm_handoff.demo import DemoReport, run_demo
        from swarm_handoff.discovery import make_context

        def action(host: PluginHost) -> DemoReport:
            return run_demo(make_context(cwd), host, folder)

        run(fmt, action)
