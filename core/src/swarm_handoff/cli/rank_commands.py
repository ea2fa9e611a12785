"""The body of `rank` (declared in `operation_table/ranking.py`): the Stage 4 menu, ranked by a named scorer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from swarm_handoff.chains import chain_names
from swarm_handoff.cli.output import check_cwd
from swarm_handoff.discovery import config_dir, discover, make_context
from swarm_handoff.eligibility import Query, by_category
from swarm_handoff.errors import SwarmError, UsageError
from swarm_handoff.operations import OperationResult
from swarm_handoff.plugins import PluginHost
from swarm_handoff.ranking import INDISTINCT, HistoryCounts, RankingRequest, choose_scorer, rank
from swarm_handoff.ranking_options import Autonomy
from swarm_handoff.request_words import synthesis_or_request
from swarm_handoff.undeclared import rank_candidates
from swarm_handoff.yamlio import load_document

HISTORY_INVALID = "HISTORY_INVALID"


def recorded_history() -> dict[str, HistoryCounts]:
    """The acknowledged outcomes in the user's hand-off history database (empty when there is none)."""
    from swarm_handoff.history import outcome_counts

    return {
        skill: HistoryCounts(successes=ok, failures=bad) for skill, (ok, bad) in outcome_counts(config_dir()).items()
    }


def load_history(path: Path) -> dict[str, HistoryCounts]:
    """Read `skill: {successes: N, failures: M}` from YAML or JSON, until the history store feeds it."""

    data = load_document(path, "history", code=HISTORY_INVALID)
    if data is None:
        return {}
    problems = []
    history: dict[str, HistoryCounts] = {}
    for skill, counts in data.items() if isinstance(data, dict) else [("(document)", data)]:
        try:
            if not isinstance(counts, dict) or set(counts) - {"successes", "failures"}:
                raise ValueError("must be a mapping with `successes` and/or `failures`")
            history[str(skill)] = HistoryCounts(**counts)
        except (TypeError, ValueError) as exc:
            problems.append(f"{skill}: {exc}")
    if problems:
        raise SwarmError(
            HISTORY_INVALID,
            f"invalid history in {path}: {'; '.join(problems)}",
            details={"validation_errors": problems},
            hint="write `skill-name: {successes: 2, failures: 0}` per skill",
        )
    return history


def rank_operation(
    host: PluginHost,
    *,
    synthesis: Path | None,
    request: str | None = None,
    problem_type: str | None = None,
    cwd: Path | None,
    workflows: Path | None,
    session: Path | None,
    scorer: str | None,
    top: int,
    chain: str,
    autonomy: Autonomy | None,
    history: Path | None,
    explain: bool,
    category: list[str] | None,
    accepts_from: str | None,
    schema_version: str | None,
    inputs: list[str] | None,
    show_all: bool,
    include_undeclared: bool,
    format: str = "text",
    remote: str | None = None,
) -> OperationResult:
    """`rank`: the Stage 4 menu of hand-off targets for a synthesis or a request in words.

    Without `scorer`, the ranking rule decides: the router for a request in words (when installed)
    or undeclared candidates, `swarm-v2` otherwise. A ranking whose scorer could not tell the
    candidates apart says so in the document and, in text, on stderr too.
    """

    in_words = request is not None
    ranking = RankingRequest(
        synthesis=synthesis_or_request(synthesis, request, problem_type),
        chain=chain_names(chain),  # checked as `handoff --chain` and the MCP tools check it
        autonomy=autonomy,
        history=load_history(history) if history is not None else recorded_history(),
    )
    if in_words and scorer is None:
        scorer = choose_scorer((), host, in_words=True)
    if workflows is not None and include_undeclared:
        raise UsageError(
            "--include-undeclared ranks what discovery found, not a --workflows file",
            hint="drop one of the two options",
        )
    if workflows is not None:
        from swarm_handoff.workflows_file import load_workflows

        records, problems = load_workflows(workflows)
    else:
        check_cwd(cwd)  # as `discover` and `why`: a mistyped --cwd is not an empty project
        found = discover(make_context(cwd), host)
        records = rank_candidates(found, include_undeclared=include_undeclared, in_words=in_words)
        problems = found.problems
    if remote is not None:  # the remote host's skills join the local candidates, marked with its URL
        from swarm_handoff.transport import remote_records, transport_for

        records = (*records, *remote_records(transport_for(host, remote, "remote").skills(remote), remote))
    records = by_category(records, category or [])
    result = rank(
        records,
        ranking,
        scorer=scorer,
        top=top,
        explain=explain,
        host=host,
        problems=problems,
        query=Query(accepts_from=accepts_from, schema_version=schema_version, inputs=tuple(inputs or [])),
        show_all=show_all,
    )
    if session is not None:
        from swarm_handoff.session_scores import write_scores

        written: dict[str, Any] = write_scores(session, result)
        result = attrs.evolve(result, session=written)
    notes = tuple(
        f"warning: {p.code}: {p.message}" + (f" ({p.hint})" if p.hint else "")
        for p in result.problems
        if p.code == INDISTINCT and format == "text"
    )
    return OperationResult(result, notes=notes)
