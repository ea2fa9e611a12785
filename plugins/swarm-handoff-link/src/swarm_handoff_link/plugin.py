"""Hook implementation: the `skills` command group (`skills link`, `skills unlink`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from swarm_handoff.api import hookimpl

if TYPE_CHECKING:
    import typer


@hookimpl
def swarm_handoff_cli(app: typer.Typer) -> None:
    """Add `skills link` and `skills unlink`; the linking code is imported only when one of them runs."""
    from swarm_handoff_link.commands import skills_app

    app.add_typer(skills_app(), name="skills")
