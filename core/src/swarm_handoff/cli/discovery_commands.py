"""`discover`, `why` and `lint`: thin commands over discovery.py, explain.py and lint.py."""

from __future__ import annotations

from pathlib import Path

import typer

from swarm_handoff.cli.output import check_cwd, format_option, run
from swarm_handoff.components import Document
from swarm_handoff.errors import UsageError
from swarm_handoff.plugins import PluginHost
from swarm_handoff.records import Scope

_SCOPES = [s.value for s in Scope]

# Options as module-level singletons: typer reads them from the signature's defaults.
_CWD = typer.Option(None, "--cwd", help="Discover as if run from DIR (default: the current directory).")
_SESSION = typer.Option(None, "--session", help="Session folder: cache the result in DIR/available-workflows.yaml.")
_CATEGORY = typer.Option([], "--category", help="Only workflows in this category (repeatable).")
_SCOPE = typer.Option([], "--scope", help=f"Only these scopes: {', '.join(_SCOPES)} (repeatable).")
_ALL = typer.Option(False, "--all", help="Also list skipped skills (with reason) and shadowed ones.")
_REFRESH = typer.Option(False, "--refresh", help="Ignore every cache and scan again.")
_ACCEPTS_FROM = typer.Option(None, "--accepts-from", help="Only targets that accept a hand-off from SKILL.")
_SCHEMA_VERSION = typer.Option(None, "--schema-version", help="Only targets a payload of version V suits.")
_INPUT = typer.Option([], "--input", help="Only targets listing REQ in input_requirements (repeatable).")
_NAME = typer.Argument(..., help="The skill's name (its folder name).")
_PATHS = typer.Argument(..., help="SKILL.md files or skill folders.")


def register(app: typer.Typer) -> None:
    """Add the discovery commands to `app`."""

    @app.command("discover")
    def discover_command(
        cwd: Path | None = _CWD,
        session: Path | None = _SESSION,
        category: list[str] = _CATEGORY,
        scope: list[str] = _SCOPE,
        show_all: bool = _ALL,
        refresh: bool = _REFRESH,
        accepts_from: str | None = _ACCEPTS_FROM,
        schema_version: str | None = _SCHEMA_VERSION,
        input_types: list[str] = _INPUT,
        fmt: str = format_option(),
    ) -> None:
        """List the skills that accept a hand-off, most local first (project > git-root > global > installed)."""

        def action(host: PluginHost) -> Document:
            from swarm_handoff.cli import answers
            from swarm_handoff.discovery import discover_detailed, make_context

            check_cwd(cwd)
            bad = [s for s in scope if s not in _SCOPES]
            if bad:
                raise UsageError(f"unknown scope {bad[0]!r}", hint=f"use one of: {', '.join(_SCOPES)}")
            context = make_context(cwd, refresh=refresh)
            if session is not None:
                from swarm_handoff.session import discover_with_session

                result = discover_with_session(context, host, session, show_all=show_all)
            else:
                result, inputs = discover_detailed(context, host, show_all=show_all)
                given = str(cwd) if cwd is not None else "."
                answers.rest_on(inputs, [(given, str(context.cwd))])  # what a replay must find unchanged
            from swarm_handoff.eligibility import Query

            query = Query(accepts_from=accepts_from, schema_version=schema_version, inputs=tuple(input_types))
            return result.filtered(tuple(category), tuple(scope)).queried(query)

        run(fmt, action)

    @app.command("why")
    def why_command(
        name: str = _NAME,
        cwd: Path | None = _CWD,
        fmt: str = format_option(),
    ) -> None:
        """Say every place NAME was looked for and what happened there."""

        def action(host: PluginHost) -> Document:
            from swarm_handoff.discovery import make_context
            from swarm_handoff.explain import explain

            check_cwd(cwd)
            return explain(name, make_context(cwd), host)

        run(fmt, action)

    @app.command("lint")
    def lint_command(
        paths: list[Path] = _PATHS,
        fmt: str = format_option(),
    ) -> None:
        """Check SKILL.md files against the v2.0/v3.0 hand-off rules and the Agent Skills spec; exit 1 on errors."""
        errors = 0

        def action(host: PluginHost) -> Document:
            nonlocal errors
            from swarm_handoff.lint import lint

            report = lint(paths)
            errors = report.errors
            return report

        run(fmt, action)
        if errors:
            raise typer.Exit(1)
