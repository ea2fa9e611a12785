"""The `session` command group: `new`, `close`, `gc` and `resume`, over session_life.py and session_gc.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import attrs
import typer

from swarm_handoff.cli.output import format_option, run
from swarm_handoff.components import Document
from swarm_handoff.plugins import PluginHost

_DIR = typer.Argument(..., help="The session folder.")
_FORCE = typer.Option(False, "--force", help="Close even while a hand-off from it is not acknowledged.")
_OLDER = typer.Option("24h", "--older-than", help="Remove open sessions created longer ago than this (30m, 24h, 2d).")
_DRY = typer.Option(False, "--dry-run", help="Only say what would be removed.")
_ROOT = typer.Option(None, "--root", help="Look here instead of $TMPDIR or the system's temporary folder.")


@attrs.frozen
class SessionDocument:
    """What `session new` and `session resume` print: the folder (and, on resume, the checkpoint)."""

    kind: ClassVar[str] = "session"
    session: str
    checkpoint: str | None = None

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {"session": self.session, "checkpoint": self.checkpoint}


def register(app: typer.Typer) -> None:
    """Add the `session` command group to `app`."""
    group = typer.Typer(
        name="session",
        help="Make, close, resume and clean up session folders.",
        no_args_is_help=True,
        rich_markup_mode=None,
    )

    @group.command("new")
    def new(root: Path | None = _ROOT, fmt: str = format_option()) -> None:
        """Make a session folder in the temporary folder and print its path (gc removes it once closed or old)."""

        def action(host: PluginHost) -> Document:
            from swarm_handoff.session_life import new_session

            return SessionDocument(str(new_session(root)))

        run(fmt, action)

    @group.command("close")
    def close(folder: Path = _DIR, force: bool = _FORCE, fmt: str = format_option()) -> None:
        """Close a session; refused while a hand-off from it is not acknowledged (unless --force)."""

        def action(host: PluginHost) -> Document:
            from swarm_handoff.discovery import config_dir
            from swarm_handoff.session_life import close_session

            return close_session(folder, config_dir(), force=force)

        run(fmt, action)

    @group.command("gc")
    def gc(
        older_than: str = _OLDER, dry_run: bool = _DRY, root: Path | None = _ROOT, fmt: str = format_option()
    ) -> None:
        """Remove closed or expired swarm-session-* folders this tool made in the temporary folder."""

        def action(host: PluginHost) -> Document:
            from swarm_handoff.session_gc import collect
            from swarm_handoff.session_life import parse_duration

            return collect(root, older_than=parse_duration(older_than), dry_run=dry_run)

        run(fmt, action)

    @group.command("resume")
    def resume(folder: Path = _DIR, fmt: str = format_option()) -> None:
        """Mark a session as resumed from a checkpoint: its discovery cache is rebuilt on next use."""

        def action(host: PluginHost) -> Document:
            from swarm_handoff.session_life import write_checkpoint

            return SessionDocument(str(folder), str(write_checkpoint(folder)))

        run(fmt, action)

    app.add_typer(group, name="session")
