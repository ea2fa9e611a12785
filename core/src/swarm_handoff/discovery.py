"""Run every discovery source and merge what they found: priority, shadowing, problems.

Sources are components (the `swarm_handoff_discovery_sources` hook). Each returns records for the
scopes it covers; this module decides which record wins a name. A record claims its name only
when it is eligible, as in the discovery seed's algorithm, so an ineligible project skill does not
hide an eligible global one; every record that lost is kept as `shadowed`, never dropped.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from swarm_handoff.components import Kind
from swarm_handoff.errors import Problem, Severity, cwd_gone, cwd_unavailable, working_directory
from swarm_handoff.plugin_checks import BadResult, check_order, check_source_result, quiet
from swarm_handoff.plugins import PluginHost, get_host
from swarm_handoff.records import DiscoveryContext, SkillRecord, SourceResult, category_key
from swarm_handoff.scopes import OVERLAY
from swarm_handoff.source_bound import ENV_SOURCE_TIMEOUT, SOURCE_TIMEOUT, SourceLate, bounded, source_timeout

if TYPE_CHECKING:
    from swarm_handoff.agent_copies import AgentView
    from swarm_handoff.cache import Recorder

SOURCE_FAILED = "SOURCE_FAILED"
NO_WORKFLOWS = "EC-01"
# EC-01, worded as the discovery seed words it: nothing installed vs. skills that do not accept hand-offs.
NO_SKILLS_MESSAGE = "No skills installed. Install skills to enable handoffs."
NONE_ACCEPT_MESSAGE = (
    "{scanned} skills found, none accept handoffs.\n"
    "To enable handoffs, add `handoff:` metadata to SKILL.md.\n"
    "See why each was skipped: swarm-handoff discover --all (and swarm-handoff lint PATH/SKILL.md)"
)
# The two filters as the CLI spells them; an interface that names them otherwise passes its own.
FILTER_CLI_NAMES: Mapping[str, str] = {"category": "--category", "scope": "--scope"}
# EC-01 when only a filter left nothing: the workflows exist, the filter excluded them.
FILTERED_MESSAGE = (
    "No workflow matches {filter}: it excluded {excluded} workflow(s) that accept handoffs.\n"
    "Run without the filter to see them."
)


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """Return the user-level folder: `$CLAUDE_CONFIG_DIR` when set, else `~/.claude` from `HOME`."""
    env = os.environ if env is None else env
    if env.get("CLAUDE_CONFIG_DIR"):
        return Path(env["CLAUDE_CONFIG_DIR"]).expanduser()
    home = env.get("HOME") or str(Path.home())
    return Path(home) / ".claude"


def make_context(
    cwd: Path | str | None = None, env: Mapping[str, str] | None = None, *, refresh: bool = False
) -> DiscoveryContext:
    """Resolve the working directory and config folder once, for every source to share."""
    env = dict(os.environ if env is None else env)
    try:
        where = Path(cwd or working_directory()).resolve()
    except OSError as exc:
        if cwd_gone():  # a relative --cwd is resolved against a working directory that was removed
            raise cwd_unavailable(exc) from exc
        raise
    return DiscoveryContext(cwd=where, config_dir=config_dir(env), env=env, refresh=refresh)


@attrs.frozen
class Shadowed:
    """A record that lost its name to a more local one (kept so `--all` and `why` can show it)."""

    record: SkillRecord
    winner: SkillRecord

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form: the loser, plus where the winner lives."""
        return {**self.record.to_data(), "shadowed_by": self.winner.path or self.winner.source}


@attrs.frozen(kw_only=True)
class DiscoveryResult:
    """The `discover` document: eligible workflows in priority order, and everything set aside."""

    kind: ClassVar[str] = "discovery"
    workflows: tuple[SkillRecord, ...]
    ineligible: tuple[SkillRecord, ...] = ()
    shadowed: tuple[Shadowed, ...] = ()
    problems: tuple[Problem, ...] = ()
    scanned: int = 0
    show_all: bool = False
    # (skipped, shadowed) when the lists themselves are not kept (a session cache hit), else None
    set_aside_counts: tuple[int, int] | None = None
    # what `filtered` left out: a description of the filter and how many eligible workflows it excluded
    filter_text: str | None = None
    filtered_out: int = 0
    # (offset, limit, total) when `workflows` is one page of a longer list (`paged`), else None
    page_of: tuple[int, int, int] | None = None

    @property
    def skipped_count(self) -> int:
        """How many skills were skipped as not eligible (listed by `discover --all`)."""
        return self.set_aside_counts[0] if self.set_aside_counts is not None else len(self.ineligible)

    @property
    def shadowed_count(self) -> int:
        """How many skills lost their name to a more local one (listed by `discover --all`)."""
        return self.set_aside_counts[1] if self.set_aside_counts is not None else len(self.shadowed)

    excluded: tuple[Any, ...] = ()  # `eligibility.Excluded`: left out by a query (--accepts-from, ...)

    @property
    def message(self) -> str | None:
        """The EC-01 message when no workflow was found (two wordings, or what a filter excluded), else None."""
        if self.workflows or (self.page_of is not None and self.page_of[2]):
            return None  # a page past the end of a list that has workflows is no "none found"
        if self.filtered_out and self.filter_text:
            return FILTERED_MESSAGE.format(excluded=self.filtered_out, filter=self.filter_text)
        if self.scanned == 0:
            return NO_SKILLS_MESSAGE
        return NONE_ACCEPT_MESSAGE.format(scanned=self.scanned)

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form; the set-aside lists appear only with `show_all`, their counts always."""
        view = self.agent_view()
        data: dict[str, Any] = {
            "scanned": self.scanned,
            "workflows": [
                {
                    **r.to_data(),
                    "agents": list(view.agents(r)),
                    "agents_load_other": [o.to_data() for o in view.other_copies(r)],
                }
                for r in self.workflows
            ],
            "problems": [p.to_data() for p in self.problems],
            "skipped_count": self.skipped_count,
            "shadowed_count": self.shadowed_count,
        }
        if self.filter_text:
            data["filter"] = {"text": self.filter_text, "excluded": self.filtered_out}
        if self.page_of is not None:
            offset, limit, total = self.page_of
            after = offset + len(self.workflows)
            data["page"] = {
                "offset": offset,
                "limit": limit,
                "returned": len(self.workflows),
                "total": total,
                "next_offset": after if after < total else None,
            }
        if self.message is not None:
            data["message"] = self.message
        if self.show_all:
            data["ineligible"] = [{**r.to_data(), "agents": list(view.agents(r))} for r in self.ineligible]
            data["shadowed"] = [{**s.to_data(), "agents": list(view.agents(s.record))} for s in self.shadowed]
            data["excluded"] = [e.to_data() for e in self.excluded]
        return data

    def agent_view(self) -> AgentView:
        """Which agent loads which copy of each listed skill (`agents`, `agents_load_other`)."""
        from swarm_handoff.agent_copies import agent_view

        skipped, shadowed = self.ineligible, tuple(s.record for s in self.shadowed)
        if not self.show_all:  # only the listed names are shown: the copies of other names change nothing
            names = {r.name for r in self.workflows}
            skipped = tuple(r for r in skipped if r.name in names)
            shadowed = tuple(r for r in shadowed if r.name in names)
        return agent_view(self.workflows, skipped, shadowed)

    def filtered(
        self,
        categories: tuple[str, ...] = (),
        scopes: tuple[str, ...] = (),
        names: Mapping[str, str] = FILTER_CLI_NAMES,
    ) -> DiscoveryResult:
        """Keep the records in any of `categories` and `scopes` (empty means no filter).

        `names` spells the two filters as the caller's interface does, for the note on what they left out.
        """

        wanted = {category_key(c) for c in categories}  # case ignored, as ranking and `rank --category` do

        def keep(record: SkillRecord) -> bool:
            in_scope = not scopes or record.scope.value in scopes
            return in_scope and (not wanted or bool(wanted & {category_key(c) for c in record.categories}))

        if not categories and not scopes:
            return self
        kept = tuple(r for r in self.workflows if keep(r))
        ineligible = tuple(r for r in self.ineligible if keep(r))
        shadowed = tuple(s for s in self.shadowed if keep(s.record))
        from swarm_handoff.payload.names import given  # only when filtering: not on the plain discover path

        words = [given(names["category"], c) for c in categories] + [given(names["scope"], s) for s in scopes]
        return attrs.evolve(
            self,
            workflows=kept,
            ineligible=ineligible,
            shadowed=shadowed,
            # a session cache hit keeps only counts: they describe the whole scan, not the filter
            set_aside_counts=None,
            filter_text=" ".join(words),
            filtered_out=self.filtered_out + len(self.workflows) - len(kept),
        )

    def paged(self, offset: int, limit: int) -> DiscoveryResult:
        """Keep `limit` workflows from `offset` on, so a long list travels in parts; all of it: itself.

        A cut list says so in the document's `page` (offset, limit, returned, total, next_offset);
        a list that fits whole is returned as it is, so its document is exactly the uncut one.
        """
        if offset == 0 and len(self.workflows) <= limit:
            return self
        page = self.workflows[offset : offset + limit]
        return attrs.evolve(self, workflows=page, page_of=(offset, limit, len(self.workflows)))

    def queried(self, query: Any) -> DiscoveryResult:
        """Keep the workflows matching an `eligibility.Query`; the rest go to `excluded` with reasons."""
        from swarm_handoff.eligibility import split

        kept, left = split(self.workflows, query)
        return attrs.evolve(self, workflows=kept, excluded=(*self.excluded, *left))

    def named(self, name: str) -> SkillRecord | None:
        """Return the eligible workflow called `name`, if discovery found one."""
        return next((r for r in self.workflows if r.name == name), None)


def run_sources(
    context: DiscoveryContext, host: PluginHost, recorder: Recorder | None = None
) -> list[tuple[str, SourceResult]]:
    """Call each source in its declared priority order; a source that raises or answers wrongly is a problem.

    With a `recorder` (the cache layer, `cache.discover_cached`) each call runs inside its
    recording scope, so what the source watches becomes an input of the answer.
    """
    results: list[tuple[str, SourceResult]] = []
    refs = host.components(Kind.SOURCE)
    built: list[tuple[float, str, Any]] = []
    for name, ref in refs.items():
        try:
            source = host.get(Kind.SOURCE, name)
            priority = check_order(source)
        except BadResult as exc:
            results.append((name, _blamed(host, name, exc)))
        except Exception as exc:  # a broken plugin never stops discovery
            results.append((name, _failed(name, ref.distribution, exc)))
        else:
            built.append((priority, name, source))
            continue
        if recorder is not None:
            recorder.failed(name)
    bound, setting = source_timeout(context.env)
    if setting is not None:
        results.append(("", SourceResult(problems=(setting,))))
    for _, name, source in sorted(built, key=lambda item: (item[0], item[1])):

        def call(source: Any = source, name: str = name) -> Any:
            return source.discover(context) if recorder is None else recorder.call(name, source, context)

        try:
            with quiet():
                found = bounded(call, bound, key=name)
            result = check_source_result(found)
        except SourceLate:
            result = _late(name, refs[name].distribution, bound or 0.0)
        except BadResult as exc:
            result = _blamed(host, name, exc)
        except Exception as exc:  # the source's, or the bound's own: never an answer to keep
            result = _failed(name, refs[name].distribution, exc)
        else:
            results.append((name, result))
            continue
        if recorder is not None:  # every way a source fails leaves this answer unstored
            recorder.failed(name)
        results.append((name, result))
    return results


def _blamed(host: PluginHost, name: str, exc: BadResult) -> SourceResult:
    """The source answered outside its protocol: skip it, blaming its plugin (strict mode raises)."""
    return SourceResult(problems=(host.blame(Kind.SOURCE, name, str(exc), outcome="its skills were skipped"),))


def _unanswered(code: str, name: str, distribution: str, what: str, hint: str = "") -> SourceResult:
    """A source that gave no answer (`what` happened): its skills are missing this time, the others' are listed."""
    problem = Problem(
        code,
        f"discovery source {name!r} ({distribution}) {what}",
        hint=f"fix or uninstall {distribution}{hint}",
        severity=Severity.WARNING,
    )
    return SourceResult(problems=(problem,))


def _late(name: str, distribution: str, seconds: float) -> SourceResult:
    what = f"did not answer within {seconds:g} s; its skills are not listed"
    hint = f", or raise {ENV_SOURCE_TIMEOUT} (seconds; 0: no bound)"
    return _unanswered(SOURCE_TIMEOUT, name, distribution, what, hint)


def _failed(name: str, distribution: str, exc: BaseException) -> SourceResult:
    return _unanswered(SOURCE_FAILED, name, distribution, f"failed: {type(exc).__name__}: {exc}")


# Fields a registry entry may fill in when the local skill leaves them at their default.
_OVERLAY_FIELDS = (
    "description", "categories", "health_check", "requires", "optional_consumes", "accepts_from", "provides_to",
    "schema_version", "schema_type", "input_requirements", "output_types",
)  # fmt: skip


def overlay(local: SkillRecord, entry: SkillRecord) -> SkillRecord:
    """Fill the local record's empty fields from an overlay-role entry; everything the skill says wins.

    The winner's `meta` names the entry as `<scope>_entry` (`registry_entry` for the registry).
    """
    changes: dict[str, Any] = {
        name: getattr(entry, name) for name in _OVERLAY_FIELDS if not getattr(local, name) and getattr(entry, name)
    }
    if local.trigger == "{payload_path}" and entry.trigger != "{payload_path}":
        changes["trigger"] = entry.trigger
    changes["meta"] = {**dict(entry.meta), **dict(local.meta), f"{entry.scope.value}_entry": entry.path or True}
    return attrs.evolve(local, **changes)


def merge(results: list[tuple[str, SourceResult]], *, show_all: bool = False) -> DiscoveryResult:
    """Pick the winner of each name (lowest precedence, then source order) and keep the rest.

    Every rule comes from the records' scopes (`scopes.py`): the precedence orders them, and a
    record whose scope has the `overlay` role fills in a more local winner of its name instead of
    being shadowed by it; alone, it stands as any record does.
    """
    ordered: list[SkillRecord] = []
    problems: list[Problem] = []
    scanned = 0
    for _, result in results:
        ordered.extend(result.records)
        problems.extend(p for p in result.problems if p not in problems)  # two sources, one folder: said once
        scanned += result.scanned
    from swarm_handoff.handoff_edges import receive_named  # lazy: a cache hit never merges

    ordered = list(receive_named(ordered))  # `handoffs:` targets become eligible before names are claimed
    ordered.sort(key=lambda r: r.priority)  # stable: equal priorities keep source order
    winners: dict[str, SkillRecord] = {}
    ineligible: list[SkillRecord] = []
    shadowed: list[Shadowed] = []
    for record in ordered:
        if record.scope.role == OVERLAY and record.name in winners:
            # e.g. a registry entry for a local skill: the local metadata wins field by field.
            winners[record.name] = overlay(winners[record.name], record)
        elif not record.eligible:
            ineligible.append(record)
        elif record.name in winners:
            shadowed.append(Shadowed(record, winners[record.name]))
        else:
            winners[record.name] = record
    shadowed = [Shadowed(s.record, winners[s.record.name]) for s in shadowed]  # winners may be overlaid
    workflows = tuple(sorted(winners.values(), key=lambda r: (r.priority, r.name)))
    return DiscoveryResult(
        workflows=workflows,
        ineligible=tuple(ineligible),
        shadowed=tuple(shadowed),
        problems=tuple(problems),
        scanned=scanned,
        show_all=show_all,
    )


def discover_detailed(
    context: DiscoveryContext, host: PluginHost, *, show_all: bool = False, cache: bool = True
) -> tuple[DiscoveryResult, list[tuple[str, int, int, int, int, int]] | None]:
    """Discover, and say which inputs the answer rests on (None when it must not be reused).

    All caching happens in `swarm_handoff.cache`, around running the sources; this module only
    runs and merges them.
    """
    from swarm_handoff import cache as caches

    def compute(recorder: caches.Recorder) -> DiscoveryResult:
        return merge(run_sources(context, host, recorder), show_all=show_all)

    return caches.discover_cached(context, host, compute, show_all=show_all, cache=cache)


def discover(
    context: DiscoveryContext | None = None,
    host: PluginHost | None = None,
    *,
    show_all: bool = False,
    cache: bool = True,
) -> DiscoveryResult:
    """Find every skill that accepts a hand-off, from every installed source.

    With `cache` (the default) the user-level caches answer when no input changed since the last
    run, and only changed SKILL.md files are parsed again; `context.refresh` bypasses both.
    """
    context = context or make_context()
    host = host or get_host()
    return discover_detailed(context, host, show_all=show_all, cache=cache)[0]
