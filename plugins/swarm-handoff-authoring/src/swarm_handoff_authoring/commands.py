"""The `graph` and `adopt` commands: thin layers over graph.py and adopt.py."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from swarm_handoff.api import Document, PluginHost, UsageError, check_cwd, format_option, run

_CWD = typer.Option(None, "--cwd", help="Discover as if run from DIR (default: the current directory).")


def add_commands(app: typer.Typer) -> None:
    """Register both commands on the root application."""

    @app.command("graph")
    def graph_command(
        style: Annotated[str, typer.Option("--as", help="Text output: mermaid (default) or dot.")] = "mermaid",
        edges_only: Annotated[
            bool, typer.Option("--edges-only", help="Leave out the skills no hand-off edge touches.")
        ] = False,
        cwd: Optional[Path] = _CWD,  # noqa: UP045 - typer reads the annotation at run time (Python 3.10)
        fmt: str = format_option(),
    ) -> None:
        """Draw who hands off to whom among the discovered skills, from every hand-off form.

        Examples: swarm-handoff graph; swarm-handoff graph --edges-only;
        swarm-handoff graph --as dot | dot -Tsvg > handoffs.svg (docs/handoff-metadata.md).
        """

        def action(host: PluginHost) -> Document:
            from swarm_handoff.api import discover, make_context
            from swarm_handoff_authoring.graph import STYLES, build, discovered, with_style
            from swarm_handoff_authoring.graph import edges_only as only_edges

            if style not in STYLES:
                raise UsageError(f"unknown graph style {style!r}", hint="use --as mermaid or --as dot")
            check_cwd(cwd)
            found = discover(make_context(cwd), host, show_all=True)
            graph = build(discovered(found.workflows, found.ineligible))
            return with_style(only_edges(graph) if edges_only else graph, style)

        run(fmt, action)

    @app.command("adopt")
    def adopt_command(
        skill: Annotated[str, typer.Argument(metavar="SKILL", help="A skill folder, its SKILL.md, or a skill name.")],
        form: Annotated[str, typer.Option("--form", help="metadata (spec-conformant, default) or v3.")] = "metadata",
        accepts_from: Annotated[
            Optional[list[str]],  # noqa: UP045
            typer.Option("--accepts-from", help="A skill it accepts work from (repeat; default: any, '*')."),
        ] = None,
        category: Annotated[
            Optional[list[str]],  # noqa: UP045
            typer.Option("--category", help="A hand-off category for ranking (repeat)."),
        ] = None,
        dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the change as a diff; write nothing.")] = False,
        cwd: Optional[Path] = _CWD,  # noqa: UP045
        fmt: str = format_option(),
    ) -> None:
        """Write hand-off metadata into an existing SKILL.md so the skill becomes a hand-off target.

        Examples: swarm-handoff adopt .claude/skills/NAME --dry-run;
        swarm-handoff adopt NAME --category review (docs/handoff-metadata.md).
        """

        def action(host: PluginHost) -> Document:
            from swarm_handoff.api import discover, make_context
            from swarm_handoff_authoring.adopt import adopt, resolve
            from swarm_handoff_authoring.edit import FORMS

            if form not in FORMS:
                raise UsageError(f"unknown form {form!r}", hint="use --form metadata or --form v3")
            check_cwd(cwd)
            given = Path(skill)
            records: list[Any] = []
            if not given.exists() and not given.is_symlink():  # a name: ask discovery where it lives
                found = discover(make_context(cwd), host, show_all=True)
                records = [*found.workflows, *found.ineligible, *(s.record for s in found.shadowed)]
            path = resolve(skill, records)
            return adopt(
                path, form=form, accepts_from=accepts_from or ["*"], categories=category or [], dry_run=dry_run
            )

        run(fmt, action)
