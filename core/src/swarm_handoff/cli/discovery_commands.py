"""The bodies of `discover`, `why` and `lint` (declared in `operation_table/discovery.py`).

Thin layers over discovery.py, explain.py and lint.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from swarm_handoff.cli.output import check_cwd, echo_err
from swarm_handoff.components import Document
from swarm_handoff.eligibility import Query
from swarm_handoff.errors import UsageError, close_names
from swarm_handoff.inputs import ref, surface_spelling
from swarm_handoff.operations import CLI, OperationResult
from swarm_handoff.plugins import PluginHost

if TYPE_CHECKING:
    from swarm_handoff.discovery import DiscoveryResult
    from swarm_handoff.transport import RemoteDiscovery


def discover_operation(
    host: PluginHost,
    *,
    cwd: Path | None,
    session: Path | None,
    category: list[str],
    scope: list[str],
    show_all: bool,
    refresh: bool,
    resume: bool,
    accepts_from: str | None,
    schema_version: str | None,
    inputs: list[str],
    remote: str | None = None,
) -> DiscoveryResult | RemoteDiscovery:
    """`discover`: list the skills that accept a hand-off (the operations table names this body).

    Scans (or reads the session's cache), filters, and notes on stderr what was set aside. With
    `remote`, lists what the host at that URL takes instead, through the transport for its scheme.
    """
    from swarm_handoff.discovery import discover, make_context

    if remote is not None:
        local = {
            "session": session is not None,
            "category": bool(category),
            "scope": bool(scope),
            "show_all": show_all,
            "refresh": refresh,
            "resume": resume,
            "accepts_from": accepts_from is not None,
            "schema_version": schema_version is not None,
            "inputs": bool(inputs),
        }
        given = [name for name, on in local.items() if on]
        if given:
            raise UsageError(
                f"{ref('remote')} lists a remote host's card: {ref(given[0])} applies to local discovery only",
                hint="drop one of the two options",
            )
        from swarm_handoff.transport import RemoteDiscovery, transport_for

        skills = transport_for(host, remote, "remote").skills(remote)
        return RemoteDiscovery(remote, tuple(skills))
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
    result = result.filtered(tuple(category), tuple(scope), surface_spelling(CLI, "discover")).queried(
        Query(accepts_from=accepts_from, schema_version=schema_version, inputs=tuple(inputs))
    )
    if not show_all and (result.skipped_count or result.shadowed_count):
        from swarm_handoff.command_name import command_name

        echo_err(
            f"note: {result.skipped_count} skipped and {result.shadowed_count} shadowed skill(s) not listed;"
            f" `{command_name()} discover --all` shows them with the reason"
        )
    return result


def why_operation(host: PluginHost, *, name: str, cwd: Path | None) -> Document | OperationResult:
    """`why`: every place NAME was looked for; a name found nowhere fails, with close names suggested."""
    from swarm_handoff.discovery import discover, make_context
    from swarm_handoff.explain import NOT_FOUND, explain

    check_cwd(cwd)
    context = make_context(cwd)
    result = discover(context, host, show_all=True)  # the stored answer when unchanged
    report = explain(name, context, host, result=result)
    if not report.verdict.endswith(NOT_FOUND):
        return report
    # a name found nowhere: the report is printed, and the run failed
    suggestions = _close_names(name, result)
    notes = (f"did you mean: {', '.join(suggestions)}?",) if suggestions else ()
    return OperationResult(report, status=1, notes=notes)


def lint_operation(host: PluginHost, *, paths: list[Path], strict_spec: bool) -> OperationResult:
    """`lint`: check SKILL.md files; the run fails when any has an error."""
    from swarm_handoff.lint import lint

    report = lint(paths, strict_spec=strict_spec)
    return OperationResult(report, status=1 if report.errors else 0)


def _close_names(name: str, result: DiscoveryResult) -> list[str]:
    """Names discovery knows that look like `name`, for the user who mistyped one."""
    known = {r.name for r in (*result.workflows, *result.ineligible)} | {s.record.name for s in result.shadowed}
    return close_names(name, known)
