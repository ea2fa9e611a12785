"""`discover`, `why` and `lint`: thin commands over discovery.py, explain.py and lint.py."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from swarm_handoff.cli.output import check_cwd, echo_err, format_option, run
from swarm_handoff.components import Document
from swarm_handoff.eligibility import Query
from swarm_handoff.plugins import PluginHost
from swarm_handoff.records import Scope

if TYPE_CHECKING:
    from swarm_handoff.discovery import DiscoveryResult

_SCOPES = [s.value for s in Scope]

# Options as module-level singletons: typer reads them from the signature's defaults.
_CWD = typer.Option(None, "--cwd", help="Discover as if run from DIR (default: the current directory).")
_SESSION = typer.Option(None, "--session", help="Session folder: cache the result in DIR/available-workflows.yaml.")
_CATEGORY = typer.Option([], "--category", help="Only workflows in this category (repeatable).")
_SCOPE = typer.Option([], "--scope", help=f"Only these scopes: {', '.join(_SCOPES)}, or a plugin's (repeatable).")
_ALL = typer.Option(False, "--all", help="Also list skipped skills (with reason) and shadowed ones.")
_REFRESH = typer.Option(False, "--refresh", help="Ignore every cache and scan again.")
_RESUME = typer.Option(
    False, "--resume", help="The session resumes from a checkpoint: record it and rebuild its cache (needs --session)."
)
_ACCEPTS_FROM = typer.Option(None, "--accepts-from", help="Only targets that accept a hand-off from SKILL.")
_SCHEMA_VERSION = typer.Option(None, "--schema-version", help="Only targets a payload of version V suits.")
_INPUT = typer.Option([], "--input", help="Only targets listing REQ in input_requirements (repeatable).")
_NAME = typer.Argument(..., help="The skill's name: its folder name, or the name its frontmatter gives.")
_PATHS = typer.Argument(..., help="SKILL.md files, skill folders, or folders of skills (each skill inside).")
_STRICT_SPEC = typer.Option(
    False, "--strict-spec", help="Agent Skills spec findings (and this project's extensions) are errors."
)


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
        resume: bool = _RESUME,
        accepts_from: str | None = _ACCEPTS_FROM,
        schema_version: str | None = _SCHEMA_VERSION,
        input_types: list[str] = _INPUT,
        fmt: str = format_option(),
    ) -> None:
        """List the skills that accept a hand-off, most local first (project > git-root > global > installed)."""

        def action(host: PluginHost) -> Document:
            return _discover(
                host,
                cwd=cwd,
                session=session,
                category=category,
                scope=scope,
                show_all=show_all,
                refresh=refresh,
                resume=resume,
                query=Query(accepts_from=accepts_from, schema_version=schema_version, inputs=tuple(input_types)),
            )

        run(fmt, action)

    @app.command("why")
    def why_command(
        name: str = _NAME,
        cwd: Path | None = _CWD,
        fmt: str = format_option(),
    ) -> None:
        """Say every place NAME was looked for and what happened there."""

        suggestions: list[str] | None = None

        def action(host: PluginHost) -> Document:
            nonlocal suggestions
            from swarm_handoff.discovery import discover, make_context
            from swarm_handoff.explain import NOT_FOUND, explain

            check_cwd(cwd)
            context = make_context(cwd)
            result = discover(context, host, show_all=True)  # the stored answer when unchanged
            report = explain(name, context, host, result=result)
            if report.verdict.endswith(NOT_FOUND):
                suggestions = _close_names(name, result)
            return report

        run(fmt, action)
        if suggestions is not None:  # a name found nowhere: the report is printed, and the run failed
            if suggestions:
                typer.echo(f"did you mean: {', '.join(suggestions)}?", err=True)
            raise typer.Exit(1)

    @app.command("lint")
    def lint_command(
        paths: list[Path] = _PATHS,
        strict_spec: bool = _STRICT_SPEC,
        fmt: str = format_option(),
    ) -> None:
        """Check SKILL.md files against the v2.0/v3.0 hand-off rules and the Agent Skills spec; exit 1 on errors."""
        errors = 0

        def action(host: PluginHost) -> Document:
            nonlocal errors
            from swarm_handoff.lint import lint

            report = lint(paths, strict_spec=strict_spec)
            errors = report.errors
            return report

        run(fmt, action)
        if errors:
            raise typer.Exit(1)


def _close_names(name: str, result: DiscoveryResult) -> list[str]:
    """Names discovery knows that look like `name`, for the user who mistyped one."""
    from swarm_handoff.errors import close_names

    known = {r.name for r in (*result.workflows, *result.ineligible)} | {s.record.name for s in result.shadowed}
    return close_names(name, known)


def _discover(
    host: PluginHost,
    *,
    cwd: Path | None,
    session: Path | None,
    category: list[str],
    scope: list[str],
    show_all: bool,
    refresh: bool,
    resume: bool,
    query: Query,
) -> DiscoveryResult:
    """The body of `discover`: scan (or read the session's cache), filter, and note what was set aside."""
    from swarm_handoff.discovery import discover, make_context
    from swarm_handoff.errors import UsageError

    check_cwd(cwd)
    if resume and session is None:
        raise UsageError("--resume needs --session DIR", hint="name the session folder being resumed")
    context = make_context(cwd, refresh=refresh)
    if session is not None:
        from swarm_handoff.session import discover_with_session

        if resume:
            from swarm_handoff.session_life import write_checkpoint

            write_checkpoint(session)
        result = discover_with_session(context, host, session, show_all=show_all)
    else:
        result = discover(context, host, show_all=show_all)
    # Checked once the sources ran: a plugin's source declares its own scopes when it is built.
    known = [s.value for s in Scope]
    bad = [s for s in scope if s not in known]
    if bad:
        raise UsageError(f"unknown scope {bad[0]!r}", hint=f"use one of: {', '.join(known)}")
    result = result.filtered(tuple(category), tuple(scope)).queried(query)
    if not show_all and (result.skipped_count or result.shadowed_count):
        from swarm_handoff.command_name import command_name

        echo_err(
            f"note: {result.skipped_count} skipped and {result.shadowed_count} shadowed skill(s) not listed;"
            f" `{command_name()} discover --all` shows them with the reason"
        )
    return result
