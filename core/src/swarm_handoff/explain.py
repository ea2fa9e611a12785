"""`why NAME`: every place a skill was looked for and what happened there, in discovery order.

A source may describe where it looks by having the `LocatingSource` capability
(`locations(context, name) -> Sequence[Location]`, checked with isinstance); the frontmatter scan,
the packs and the registry do. Each location is then matched with the record
that source produced for that scope, and given one status: not present, skipped, invalid YAML at
line:col, missing field, not eligible, shadowed by PATH, or chosen.
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from swarm_handoff.components import Kind, LocatingSource
from swarm_handoff.discovery import DiscoveryResult, merge, run_sources
from swarm_handoff.errors import Problem, Severity
from swarm_handoff.metadata import HANDOFF_NO_ACCEPT_FIELD, HANDOFF_NO_CATEGORIES, HANDOFF_NO_DESCRIPTION
from swarm_handoff.plugins import PluginHost
from swarm_handoff.records import DiscoveryContext, Scope, SkillRecord

_MISSING_FIELD = {HANDOFF_NO_CATEGORIES, HANDOFF_NO_DESCRIPTION, HANDOFF_NO_ACCEPT_FIELD}
_NOT_ELIGIBLE = {"HANDOFF_ABSENT", "HANDOFF_NOT_ACCEPTED", "HANDOFF_NOT_MAPPING", "HANDOFF_BAD_FIELD"}


NOT_FOUND = "not found in any discovery location"  # the verdict `why` exits 1 on


@attrs.frozen
class Location:
    """One place a source looks for a skill of a given name; `note` says why it was not searched."""

    scope: Scope = attrs.field(converter=Scope)
    where: str
    note: str | None = None


@attrs.frozen
class WhyReport:
    """The `why` document: a verdict and one step per place looked at."""

    kind: ClassVar[str] = "why"
    skill: str
    verdict: str
    looked: tuple[dict[str, Any], ...]

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {"skill": self.skill, "verdict": self.verdict, "looked": [dict(step) for step in self.looked]}

    def to_text(self) -> str:
        """Deprecated: the layout lives in `swarm_handoff.textviews`; kept for one release for callers of the API."""
        from swarm_handoff.textviews import deprecated_to_text

        return deprecated_to_text(self)


def _status(record: SkillRecord, result: DiscoveryResult) -> tuple[str, str | None]:
    if any(w is record for w in result.workflows):
        return "chosen", None
    for shadow in result.shadowed:
        if shadow.record is record:
            return f"shadowed by {shadow.winner.path or shadow.winner.source}", None
    reason = next((p for p in record.problems if p.severity is not Severity.WARNING), None)
    if reason is None:
        return "not eligible", None
    detail = f"{reason.code}: {reason.message}" + (f" (fix: {reason.hint})" if reason.hint else "")
    return _verdict_of(reason), detail


def _verdict_of(problem: Problem) -> str:
    if problem.code in _MISSING_FIELD:
        return "missing field"
    if problem.code in _NOT_ELIGIBLE:
        return "not eligible"
    if problem.code == "SKILL_MISSING":
        return "folder present, no SKILL.md"
    if problem.line is not None:
        column = f":{problem.column}" if problem.column is not None else ""
        return f"invalid YAML at {problem.line}{column}"
    return "unreadable"


def explain(name: str, context: DiscoveryContext, host: PluginHost) -> WhyReport:
    """Run discovery and tell, place by place, what became of the skill called `name`."""
    results = run_sources(context, host)
    result = merge(results, show_all=True)
    everything = (*result.workflows, *result.ineligible, *(s.record for s in result.shadowed))
    alias = ""
    if not any(record.name == name for record in everything):
        # Asked by the frontmatter name of a skill whose folder is named differently.
        folders = list(dict.fromkeys(r.name for r in everything if r.declared_name == name))
        if folders:
            alias = f"{name!r} is the frontmatter name of folder {folders[0]!r}"
            if len(folders) > 1:
                alias += f" (also of {', '.join(repr(f) for f in folders[1:])})"
            name = folders[0]
    by_source: dict[str, list[SkillRecord]] = {}
    for record in everything:
        if record.name == name:
            by_source.setdefault(record.source, []).append(record)
    steps: list[dict[str, Any]] = []
    for source_name, _ in results:
        try:
            source = host.get(Kind.SOURCE, source_name)
            locations = list(source.locations(context, name)) if isinstance(source, LocatingSource) else []
        except Exception:  # a broken source was already reported by discovery
            locations = []
        records = by_source.pop(source_name, [])
        for location in locations:
            match = next((r for r in records if r.scope is location.scope), None)
            step: dict[str, Any] = {"source": source_name, "scope": location.scope.value, "where": location.where}
            if location.note is not None:
                step["status"] = f"skipped: {location.note}"
            elif match is None:
                step["status"] = "not present"
            else:
                records.remove(match)
                step["status"], detail = _status(match, result)
                if detail:
                    step["detail"] = detail
            steps.append(step)
        for record in records:  # sources that do not describe their locations
            status, detail = _status(record, result)
            step = {"source": source_name, "scope": record.scope.value, "where": record.path or source_name}
            step["status"] = status
            if detail:
                step["detail"] = detail
            steps.append(step)
    chosen = result.named(name)
    if chosen is not None:
        verdict = f"chosen from {chosen.scope.value}: {chosen.path or chosen.source}"
    elif any(step["status"] != "not present" and not step["status"].startswith("skipped") for step in steps):
        verdict = "found, but no copy accepts hand-offs"
    else:
        verdict = NOT_FOUND
    if alias:
        verdict = f"{alias}; {verdict}"
    return WhyReport(skill=name, verdict=verdict, looked=tuple(steps))
