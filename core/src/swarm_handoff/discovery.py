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
from typing import Any

import attrs

from swarm_handoff import cache as caches
from swarm_handoff import tracing
from swarm_handoff.components import Kind
from swarm_handoff.configdir import config_dir as config_dir  # where callers have always found it
from swarm_handoff.discovery_result import DiscoveryResult as DiscoveryResult  # its answer, where callers look
from swarm_handoff.discovery_result import Shadowed
from swarm_handoff.errors import Problem, Severity, cwd_gone, cwd_unavailable, working_directory
from swarm_handoff.handoff_edges import receive_named
from swarm_handoff.isolation import quiet
from swarm_handoff.plugin_checks import BadResult, check_order, check_source_result
from swarm_handoff.plugins import PluginHost, get_host
from swarm_handoff.records import DiscoveryContext, SkillRecord, SourceResult
from swarm_handoff.scopes import OVERLAY
from swarm_handoff.source_bound import ENV_SOURCE_TIMEOUT, SOURCE_TIMEOUT, SourceLate, bounded, source_timeout

SOURCE_FAILED = "SOURCE_FAILED"


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


def run_sources(
    context: DiscoveryContext, host: PluginHost, recorder: caches.Recorder | None = None
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

    def compute(recorder: caches.Recorder) -> DiscoveryResult:
        return merge(run_sources(context, host, recorder), show_all=show_all)

    with tracing.trace_span("swarm_handoff.discover", {"swarm_handoff.show_all": show_all}, env=context.env):
        found = caches.discover_cached(context, host, compute, show_all=show_all, cache=cache)
        tracing.annotate({"swarm_handoff.skills": len(found[0].workflows)})
    return found


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
