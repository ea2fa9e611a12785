"""`swarm-handoff rank`: the Stage 4 menu of hand-off targets, ranked by a named scorer."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import attrs
import typer

from swarm_handoff.cli.output import format_option, run
from swarm_handoff.errors import SwarmError, UsageError
from swarm_handoff.plugins import PluginHost
from swarm_handoff.ranking_options import DEFAULT_SCORER, DEFAULT_TOP, Autonomy, chain_names

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


def register(app: typer.Typer) -> None:
    """Add `rank` to `app`."""

    @app.command("rank")
    def rank_command(
        synthesis: Annotated[
            Path, typer.Option("--synthesis", help="The synthesis file (YAML, or JSON by extension).")
        ],
        cwd: Annotated[
            Path | None, typer.Option("--cwd", help="Discover skills as if run here (default: current folder).")
        ] = None,
        workflows: Annotated[
            Path | None,
            typer.Option(
                "--workflows",
                help="Rank the workflows listed in this file (e.g. a session's available-workflows.yaml) "
                "instead of discovering.",
            ),
        ] = None,
        session: Annotated[
            Path | None,
            typer.Option("--session", help="Session folder: write relevance_score into its available-workflows.yaml."),
        ] = None,
        scorer: Annotated[str, typer.Option("--scorer", help="Scorer name (see `swarm-handoff plugins`).")] = (
            DEFAULT_SCORER
        ),
        top: Annotated[int, typer.Option("--top", min=1, help="How many targets the menu shows.")] = DEFAULT_TOP,
        chain: Annotated[str, typer.Option("--chain", help="The hand-off chain so far, comma-separated.")] = "",
        autonomy: Annotated[
            Autonomy | None, typer.Option("--autonomy", help="Preferred supervision of the target.")
        ] = None,
        history: Annotated[
            Path | None,
            typer.Option(
                "--history",
                help="YAML/JSON file of past hand-offs (skill: {successes: N, failures: M}); "
                "default: the hand-off history recorded by `handoff` and `ack`.",
            ),
        ] = None,
        explain: Annotated[bool, typer.Option("--explain", help="Show every factor's points and reason.")] = False,
        category: Annotated[
            list[str] | None, typer.Option("--category", help="Only targets in this category (repeatable).")
        ] = None,
        accepts_from: Annotated[
            str | None, typer.Option("--accepts-from", help="Only targets that accept a hand-off from SKILL.")
        ] = None,
        schema_version: Annotated[
            str | None,
            typer.Option("--schema-version", help="Only targets a payload of version V suits (and show its fit)."),
        ] = None,
        inputs: Annotated[
            list[str] | None,
            typer.Option("--input", help="Only targets listing REQ in input_requirements (repeatable)."),
        ] = None,
        show_all: Annotated[
            bool, typer.Option("--all", help="Also list the targets the query left out, with the reason.")
        ] = False,
        include_undeclared: Annotated[
            bool,
            typer.Option(
                "--include-undeclared",
                help="Also rank skills that declare no hand-off metadata (marked; hand off with --allow-undeclared).",
            ),
        ] = False,
        fmt: str = format_option(),
    ) -> None:
        """Rank the discovered hand-off targets for a synthesis and print the menu (C, D, E, ...)."""

        def action(host: PluginHost) -> RankingResult:
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

        run(fmt, action)
