"""Rank discovered skills for one request: call the chosen scorer, sum each candidate, tie-break.

A scorer is a named component (the `swarm_handoff_scorers` hook) that explains, factor by factor,
how well one candidate fits one request. It scores one candidate at a time (`Scorer.score`) or, when
it needs statistics over the whole set, every candidate of the request at once
(`BatchScorer.score_many`). This module owns everything around it: choosing the scorer by name,
checking what it returns, summing, and the stable order (total desc, then scope priority, then
skill name), so every scorer, built-in or third-party, ranks the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import attrs

from swarm_handoff import tracing
from swarm_handoff.chains import chain_entries
from swarm_handoff.components import BatchScorer, Kind
from swarm_handoff.eligibility import Excluded, Query, menu_compatibility, split
from swarm_handoff.eligibility import estimated_duration as read
from swarm_handoff.errors import Problem, Severity, SwarmError, UsageError
from swarm_handoff.isolation import quiet
from swarm_handoff.plugin_checks import BadResult, check_batch, check_contributions
from swarm_handoff.plugins import PluginHost, get_host
from swarm_handoff.ranking_options import DEFAULT_SCORER as DEFAULT_SCORER
from swarm_handoff.ranking_options import DEFAULT_TOP as DEFAULT_TOP
from swarm_handoff.ranking_options import Autonomy as Autonomy
from swarm_handoff.records import Contribution, SkillRecord
from swarm_handoff.synthesis import Synthesis
from swarm_handoff.undeclared import is_undeclared

# The seed's Stage 4 menu keeps A and B for the swarm's own options; hand-off targets start at C.
FIRST_LABEL = "C"

SCORER_FAILED = "SCORER_FAILED"
SCORER_BAD_RESULT = "SCORER_BAD_RESULT"

# The scorer choice as the CLI spells it, named by the hint of a scorer that fails.
SCORER_OPTION = "--scorer"


def _autonomy(value: Autonomy | str | None) -> Autonomy | None:
    return None if value is None else Autonomy(value)


def _non_negative(_instance: Any, attribute: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{attribute.name} must be a whole number >= 0, not {value!r}")


@attrs.frozen
class HistoryCounts:
    """How hand-offs to one skill went before: the caller (the history store) counts them."""

    successes: int = attrs.field(default=0, validator=_non_negative)
    failures: int = attrs.field(default=0, validator=_non_negative)

    def to_data(self) -> dict[str, int]:
        """Give the JSON-ready form."""
        return {"successes": self.successes, "failures": self.failures}


def _history(value: Mapping[str, Any] | None) -> Mapping[str, HistoryCounts]:
    """Accept HistoryCounts, `{successes, failures}` mappings, or any object with those attributes."""
    result: dict[str, HistoryCounts] = {}
    for name, counts in (value or {}).items():
        if isinstance(counts, HistoryCounts):
            result[name] = counts
        elif isinstance(counts, Mapping):
            result[name] = HistoryCounts(**counts)
        else:  # a history store's own record type, for example
            result[name] = HistoryCounts(getattr(counts, "successes", 0), getattr(counts, "failures", 0))
    return result


@attrs.frozen(kw_only=True)
class RankingRequest:
    """Everything a scorer may look at besides the candidate: the synthesis and the user's context.

    `chain` is the payload's `handoff_chain` so far; `history` maps a skill name to its past
    hand-off outcomes. `offered_inputs` overrides what the synthesis is taken to offer (see
    `seed_scorers.offered_inputs`). The records being ranked are not part of the request: a
    scorer that needs them all offers `score_many(candidates, request)` (`BatchScorer`).
    """

    synthesis: Synthesis
    chain: tuple[str, ...] = attrs.field(default=(), converter=chain_entries)
    autonomy: Autonomy | None = attrs.field(default=None, converter=_autonomy)
    history: Mapping[str, HistoryCounts] = attrs.field(factory=dict, converter=_history, eq=False, hash=False)
    offered_inputs: tuple[str, ...] | None = None

    def history_of(self, skill: str) -> HistoryCounts:
        """Return the recorded outcomes of `skill` (zero counts when it has no history)."""
        return self.history.get(skill, HistoryCounts())

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready summary printed with a ranking (the synthesis by its key fields)."""
        return {
            "problem_type": self.synthesis.problem_type,
            "convergence_level": self.synthesis.convergence_level,
            "synthesis": self.synthesis.source_path,
            "chain": list(self.chain),
            "autonomy": None if self.autonomy is None else self.autonomy.value,
            "history": {name: counts.to_data() for name, counts in sorted(self.history.items())},
        }


def labels(count: int, first: str = FIRST_LABEL) -> list[str]:
    """Return menu labels C, D, ... Z, then AA, AB, ... so a long `--top` never runs out."""
    start = ord(first) - ord("A")
    result: list[str] = []
    for index in range(start, start + count):
        label = ""
        n = index
        while True:
            label = chr(ord("A") + n % 26) + label
            n = n // 26 - 1
            if n < 0:
                break
        result.append(label)
    return result


@attrs.frozen(kw_only=True)
class RankedCandidate:
    """One candidate with its place in the menu, its total and every factor that made it."""

    rank: int
    label: str
    record: SkillRecord
    total: float
    contributions: tuple[Contribution, ...]
    source_version: str | None = None  # the payload version asked about (--schema-version), else the default

    def to_data(self) -> dict[str, Any]:
        """Give the menu entry with the full breakdown (JSON always carries it)."""
        return {
            "rank": self.rank,
            "label": self.label,
            "skill": self.record.name,
            "score": self.total,
            "scope": self.record.scope.value,
            "priority": self.record.priority,
            "description": self.record.description,
            "categories": list(self.record.categories),
            "estimated_duration": estimated_duration(self.record),
            "compatibility": menu_compatibility(self.record, self.source_version).to_data(),
            "path": self.record.path,
            "breakdown": [c.to_data() for c in self.contributions],
            **({"undeclared": True} if self.record.meta.get("undeclared") is True else {}),
            **({"remote": self.record.meta["remote"]} if isinstance(self.record.meta.get("remote"), str) else {}),
        }


def estimated_duration(record: SkillRecord) -> str | None:
    """Return `meta.estimated_duration` (or `metadata.estimated_duration`) as text, or None."""
    return read(record)


@attrs.frozen(kw_only=True)
class RankingResult:
    """The `rank` document: the menu (top N) with full breakdowns, and the request it answers."""

    kind: ClassVar[str] = "ranking"
    scorer: str
    scorer_distribution: str
    request: RankingRequest
    ranked: tuple[RankedCandidate, ...]
    top: int = DEFAULT_TOP
    explain: bool = False
    problems: tuple[Problem, ...] = ()
    session: Mapping[str, Any] | None = attrs.field(default=None, eq=False, hash=False)
    query: Any = None  # an `eligibility.Query`, when the menu was narrowed by one
    excluded: tuple[Any, ...] = ()  # `eligibility.Excluded` entries, listed with `show_all`
    show_all: bool = False

    @property
    def shown(self) -> tuple[RankedCandidate, ...]:
        """The entries the menu offers (the first `top`)."""
        return self.ranked[: self.top]

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form: the shown entries with every factor, and how many were cut."""
        data: dict[str, Any] = {
            "scorer": self.scorer,
            "scorer_distribution": self.scorer_distribution,
            "request": self.request.to_data(),
            "candidates": len(self.ranked),
            "shown": len(self.shown),
            "explain": self.explain,
            "workflows": [entry.to_data() for entry in self.shown],
            "problems": [p.to_data() for p in self.problems],
        }
        if self.session is not None:
            data["session"] = dict(self.session)
        if self.query:
            data["query"] = self.query.to_data()
        if self.show_all:
            data["excluded"] = [e.to_data() for e in self.excluded]
        return data


def _bad_result(scorer: str, distribution: str, skill: str | None, what: str, plugin: str = "") -> SwarmError:
    """SCORER_BAD_RESULT for one skill's answer, or (`skill` None) for a batch answer as a whole."""
    by = f"plugin {plugin!r} of {distribution}" if plugin else distribution
    details = {"scorer": scorer, "plugin": plugin, "distribution": distribution}
    if skill is None:
        return SwarmError(
            SCORER_BAD_RESULT,
            f"scorer {scorer!r} from {by} {what}",
            details=details,
            hint=f"score_many returns one list of contributions per candidate, in order; fix or remove {distribution}",
        )
    return SwarmError(
        SCORER_BAD_RESULT,
        f"scorer {scorer!r} from {by} {what} for skill {skill!r}",
        details={**details, "skill": skill},
        hint=f"a scorer returns a list of Contribution(factor, points, reason); fix or uninstall {distribution}",
    )


def _failed(scorer: str, distribution: str, skill: str | None, exc: Exception, option: str) -> SwarmError:
    """SCORER_FAILED: the scorer raised, for one skill or (`skill` None) for the whole batch."""
    on = f" on skill {skill!r}" if skill is not None else ""
    details = {"scorer": scorer, "distribution": distribution}
    return SwarmError(
        SCORER_FAILED,
        f"scorer {scorer!r} from {distribution} failed{on}: {type(exc).__name__}: {exc}",
        details=details if skill is None else {**details, "skill": skill},
        hint=f"fix or uninstall {distribution}, or choose another scorer with {option}",
    )


def score_all(
    records: Sequence[SkillRecord],
    request: RankingRequest,
    scorer: str,
    host: PluginHost,
    option: str = SCORER_OPTION,
) -> list[tuple[SkillRecord, float, tuple[Contribution, ...]]]:
    """Score every record with the scorer called `scorer`; a raising scorer names its distribution.

    `option` is how the caller's interface names the scorer choice, for the hint of a failure.
    """
    component = host.get(Kind.SCORER, scorer)
    ref = host.components(Kind.SCORER)[scorer]
    distribution = ref.distribution
    scored = []
    batch = _score_many(component, records, request, scorer, distribution, ref.plugin, option)
    for position, record in enumerate(records):
        try:
            with quiet():  # a scorer's prints go to stderr, never into the ranking document
                result = batch[position] if batch is not None else component.score(record, request)
                contributions = check_contributions(result)  # a generator runs while it is read
        except BadResult as exc:
            raise _bad_result(scorer, distribution, record.name, str(exc), ref.plugin) from None
        except Exception as exc:  # a plugin's bug must not surface as a traceback
            raise _failed(scorer, distribution, record.name, exc, option) from exc
        total = sum(c.points for c in contributions)
        scored.append((record, _tidy(total), contributions))
    return scored


def _score_many(
    component: object,
    records: Sequence[SkillRecord],
    request: RankingRequest,
    scorer: str,
    distribution: str,
    plugin: str,
    option: str,
) -> list[Any] | None:
    """Corpus statistics once per request, no state kept between requests (None: one at a time).

    The answers come back unchecked one by one: each is read as one `score()` answer, so a bad one
    names its skill.
    """
    if not isinstance(component, BatchScorer):
        return None
    try:
        with quiet():
            return check_batch(component.score_many(tuple(records), request), len(records))
    except BadResult as exc:
        raise _bad_result(scorer, distribution, None, str(exc), plugin) from None
    except Exception as exc:  # a plugin's bug must not surface as a traceback
        raise _failed(scorer, distribution, None, exc, option) from exc


def _tidy(total: float) -> float:
    """Keep integer totals integers and round float noise, so equal scores really tie."""
    rounded = round(total, 6)
    return int(rounded) if float(rounded).is_integer() else rounded


def sort_key(item: tuple[SkillRecord, float, Any]) -> tuple[float, float, str]:
    """Order by total (highest first), then scope priority (project first), then skill name."""
    record, total, _ = item
    return (-total, record.priority, record.name)


# The scorer for candidates that declare no hand-off metadata (or a request given in words), when
# installed and none is named: `swarm-v2` gives every undeclared skill the same point (docs/rank.md).
WORDS_SCORER = "router"
INDISTINCT = "RANKING_INDISTINCT"


def choose_scorer(records: Sequence[SkillRecord], host: PluginHost, *, in_words: bool = False) -> str:
    """The ranking rule, one for every surface: the router (when installed) for a request in words or
    undeclared candidates, else `swarm-v2`."""
    if (in_words or any(is_undeclared(r) for r in records)) and WORDS_SCORER in host.components(Kind.SCORER):
        return WORDS_SCORER
    return DEFAULT_SCORER


def indistinct(scorer: str, scored: Sequence[tuple[SkillRecord, float, Any]]) -> Problem | None:
    """A warning when a scorer gave every one of several candidates the same total: the order is the names'."""
    if len(scored) < 2 or len({total for _, total, _ in scored}) > 1:
        return None
    return Problem(
        INDISTINCT,
        f"the scorer '{scorer}' gave all {len(scored)} candidates the same score ({scored[0][1]}); "
        "they are ordered by scope and name, not by fit",
        hint=(
            "the request's words do not tell these skills apart: say what you need in other, more specific words"
            if scorer == WORDS_SCORER  # never send the user to the scorer that just ranked them
            else f"rank them by the request's words with --scorer {WORDS_SCORER} (the swarm-handoff-router plugin)"
        ),
        severity=Severity.WARNING,
    )


@tracing.trace_span("swarm_handoff.rank")  # one span per call, made afresh each time
def rank(
    records: Sequence[SkillRecord],
    request: RankingRequest,
    *,
    scorer: str | None = None,
    top: int = DEFAULT_TOP,
    explain: bool = False,
    host: PluginHost | None = None,
    problems: Sequence[Problem] = (),
    query: Query | None = None,
    show_all: bool = False,
    scorer_option: str = SCORER_OPTION,
) -> RankingResult:
    """Rank `records` for `request` with the named scorer, labelling the menu from C.

    Without a `scorer`, `choose_scorer` picks one (the router for undeclared candidates). A
    ranking whose scorer gave every candidate the same total carries a RANKING_INDISTINCT warning.

    With a `query` (a known source, a schema version, an input) the targets it rules out are left
    out of the menu and kept, with their reasons, for `show_all`. `scorer_option` names the scorer
    choice as the caller's interface does (`--scorer`, a tool's `scorer`) when a scorer fails.
    """
    host = host or get_host()
    excluded: tuple[Excluded, ...] = ()
    if query:
        records, excluded = split(records, query)
    if top < 1:
        raise UsageError(f"--top must be at least 1, not {top}", hint="use --top 5 for the usual menu")
    scorer = scorer or choose_scorer(records, host)
    tracing.annotate(
        {"swarm_handoff.scorer": scorer, "swarm_handoff.candidates": len(records), "swarm_handoff.top": top}
    )
    scored = sorted(score_all(records, request, scorer, host, scorer_option), key=sort_key)
    flat = indistinct(scorer, scored)
    if flat is not None:
        problems = (*problems, flat)
    entries = tuple(
        RankedCandidate(
            rank=index + 1,
            label=label,
            record=record,
            total=total,
            contributions=contributions,
            source_version=query.schema_version if query else None,
        )
        for index, ((record, total, contributions), label) in enumerate(zip(scored, labels(len(scored)), strict=True))
    )
    return RankingResult(
        scorer=scorer,
        scorer_distribution=host.components(Kind.SCORER)[scorer].distribution,
        request=request,
        ranked=entries,
        top=top,
        explain=explain,
        problems=tuple(problems),
        query=query,
        excluded=excluded,
        show_all=show_all,
    )
