"""`skills link` / `skills unlink`: thin commands over linking.py."""

from __future__ import annotations

from pathlib import Path

import typer

from swarm_handoff.api import Document, PluginHost, UsageError, check_cwd, format_option, run

_SCOPE = typer.Option("project", "--scope", help="project: {cwd}/.claude/skills; global: the user's skills folder.")
_CWD = typer.Option(None, "--cwd", help="The project folder for --scope project (default: the current directory).")
_COPY = typer.Option(False, "--copy", help="Copy the skill folders even where a symlink is possible.")
_LINK_NAMES = typer.Argument(None, help="Skills to link (default: every installed pack skill).", show_default=False)
_UNLINK_NAMES = typer.Argument(
    None, help="Skills to unlink (default: everything link created here).", show_default=False
)


def _folder(scope: str, cwd: Path | None) -> Path:
    from swarm_handoff_link.linking import LinkScope, skills_dir

    if scope not in {s.value for s in LinkScope}:
        raise UsageError(f"unknown scope {scope!r}", hint="use project or global")
    check_cwd(cwd)
    return skills_dir(scope, cwd)


def skills_app() -> typer.Typer:
    """Build the `skills` command group the plugin adds to the CLI."""
    group = typer.Typer(
        name="skills",
        help="Show installed packs' skills to agents that read .claude/skills folders.",
        no_args_is_help=True,
        rich_markup_mode=None,
    )

    @group.command("link")
    def link_command(
        names: list[str] | None = _LINK_NAMES,
        scope: str = _SCOPE,
        cwd: Path | None = _CWD,
        copy: bool = _COPY,
        fmt: str = format_option(),
    ) -> None:
        """Put each installed pack skill in .claude/skills/<name>/ (a symlink, else a copy); never overwrite."""

        unknown: list[str] = []

        def action(host: PluginHost) -> Document:
            from swarm_handoff_link.linking import link_skills, unknown_names

            report = link_skills(_folder(scope, cwd), names or (), scope=scope, copy=copy)
            unknown.extend(unknown_names(report))
            return report

        run(fmt, action)
        if unknown:  # the others were linked; a name that matched nothing still fails the run
            raise typer.Exit(1)

    @group.command("unlink")
    def unlink_command(
        names: list[str] | None = _UNLINK_NAMES,
        scope: str = _SCOPE,
        cwd: Path | None = _CWD,
        fmt: str = format_option(),
    ) -> None:
        """Remove what `skills link` created here, unless it was changed since (then keep it and say so)."""

        unknown: list[str] = []

        def action(host: PluginHost) -> Document:
            from swarm_handoff_link.linking import unknown_names, unlink_skills

            report = unlink_skills(_folder(scope, cwd), names or (), scope=scope)
            unknown.extend(unknown_names(report))
            return report

        run(fmt, action)
        if unknown:
            raise typer.Exit(1)

    return group
