"""The body of `rank` (declared in `operation_table.py`): the Stage 4 menu, ranked by a named scorer."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from swarm_handoff.errors import SwarmError, UsageError
from swarm_handoff.plugins import PluginHost
from swarm_handoff.ranking_options import Autonomy, chain_names

if TYPE_CHECKING:  # the engine is imported when `rank` runs, not each time the CLI starts
    from swarm_handoff.ranking import HistoryCounts, RankingResult

HISTORY_INVALID = "HISTORY_INVALID"


def recorded_history() -> dict[str, HistoryCounts]:
    """The acknowledged outcomes in the user's hand-off history database (empty when there is none)."""
    from swarm_handoff.discovery import config_dir
    from swarm_handoff.history import outcome_counts
    from swarm_handoff.ranking import HistoryCounts

    return {
        skill: HistoryCounts(successes=ok, failures=bad) for skill, (ok, bad) in outcome_counts(config_dir()).items()
    }


def load_history(path: Path) -> dict[str, HistoryCounts]:
    """Read `skill: {successes: N, failures: M}` from YAML or JSON, until the history store feeds it."""
    from swarm_handoff.ranking import HistoryCounts
    from swarm_handoff.yamlio import load_document

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
    synthesis: Path,
    cwd: Path | None,
    workflows: Path | None,
    session: Path | None,
    scorer: str,
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
) -> RankingResult:
    """`rank`: the Stage 4 menu of hand-off targets for a synthesis, ranked by a named scorer."""
    from swarm_handoff.discovery import discover, make_context
    from swarm_handoff.eligibility import Query, by_category
    from swarm_handoff.ranking import RankingRequest, rank
    from swarm_handoff.synthesis import load_synthesis

    request = RankingRequest(
        synthesis=load_synthesis(synthesis),
        chain=chain_names(chain),  # checked as `handoff --chain` and the MCP tools check it
        autonomy=autonomy,
        history=load_history(history) if history is not None else recorded_history(),
    )
    if workflows is not None and include_undeclared:
        raise UsageError(
            "--include-undeclared ranks what discovery found, not a --workflows file",
            hint="drop one of the two options",
        )
    if workflows is not None:
        from swarm_handoff.workflows_file import load_workflows

        records, problems = load_workflows(workflows)
    else:
        found = discover(make_context(cwd), host)
        records, problems = found.workflows, found.problems
        if include_undeclared:
            from swarm_handoff.undeclared import with_undeclared

            records = tuple(with_undeclared(found))
    records = by_category(records, category or [])
    result = rank(
        records,
        request,
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
    return result
