"""`why NAME`: every place a skill was looked for and what happened there, in discovery order.

A source may describe where it looks by having the `LocatingSource` capability
(`locations(context, name) -> Sequence[Location]`, checked with isinstance); the frontmatter scan,
the packs and the registry do. Each location is then matched with the record
that source produced for that scope, and given one status: not present, skipped, invalid YAML at
line:col, missing field, not eligible, not trusted, shadowed by PATH, or chosen. A location is
matched with the record found at its own path (a source may look in several folders of one scope).

The records come from the same stored answer as `discover` (`discover_detailed`, checked by stat),
so a repeated `why` parses no SKILL.md; only the sources' `locations` are asked afresh, which stat
a few paths. A name is looked up as a folder name first, then as a frontmatter `name:`: when it is
both (one skill's folder, another skill's frontmatter name) the report is about the folder and its
verdict names the other skill, since discovery, hand-offs and `rank` all use the folder name.
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from swarm_handoff.components import Kind, LocatingSource
from swarm_handoff.discovery import discover_detailed
from swarm_handoff.discovery_result import DiscoveryResult
from swarm_handoff.errors import Problem, Severity
from swarm_handoff.metadata import HANDOFF_NO_ACCEPT_FIELD, HANDOFF_NO_CATEGORIES, HANDOFF_NO_DESCRIPTION
from swarm_handoff.plugin_checks import check_order
from swarm_handoff.plugins import PluginHost
from swarm_handoff.records import DiscoveryContext, SkillRecord
from swarm_handoff.termsafe import escape_undecodable, quoted

_MISSING_FIELD = {HANDOFF_NO_CATEGORIES, HANDOFF_NO_DESCRIPTION, HANDOFF_NO_ACCEPT_FIELD}
_NOT_ELIGIBLE = {
    "SKILL_NAME_NOT_UTF8",
    "HANDOFF_ABSENT",
    "HANDOFF_NOT_ACCEPTED",
    "HANDOFF_NOT_MAPPING",
    "HANDOFF_BAD_FIELD",
}


NOT_FOUND = "not found in any discovery location"  # the verdict `why` exits 1 on


@attrs.frozen
class WhyReport:
    """The `why` document: a verdict and one step per place looked at."""

    kind: ClassVar[str] = "why"
    skill: str
    verdict: str
    looked: tuple[dict[str, Any], ...]
    # folders whose frontmatter `name:` is the name asked for (only when that differs from the folder)
    frontmatter_name_of: tuple[str, ...] = ()

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        data: dict[str, Any] = {
            "skill": self.skill,
            "verdict": self.verdict,
            "looked": [dict(step) for step in self.looked],
        }
        if self.frontmatter_name_of:
            data["frontmatter_name_of"] = list(self.frontmatter_name_of)
        return data


def _status(record: SkillRecord, result: DiscoveryResult) -> tuple[str, str | None]:
    if any(w is record for w in result.workflows):
        return "chosen", None
    for shadow in result.shadowed:
        if shadow.record is record:
            return f"shadowed by {shadow.winner.path or shadow.winner.source}", None
    reason = next((p for p in record.problems if p.severity is not Severity.WARNING), None)
    if reason is None:
        return "not eligible", None
    return _verdict_of(reason), _line(reason)


def _verdict_of(problem: Problem) -> str:
    if problem.code in _MISSING_FIELD:
        return "missing field"
    if problem.code in _NOT_ELIGIBLE:
        return "not eligible"
    if problem.code == "SKILL_MISSING":
        return "folder present, no SKILL.md"
    if problem.code == "SKILLS_OWNER_UNTRUSTED":
        return "not trusted: the folder belongs to another user"
    if problem.line is not None:
        column = f":{problem.column}" if problem.column is not None else ""
        return f"invalid YAML at {problem.line}{column}"
    return "unreadable"


def source_order(host: PluginHost, names: Any = ()) -> list[str]:
    """The sources in the order discovery runs them (priority, then name), then any other `names`."""
    ranked: list[tuple[float, str]] = []
    for source_name in host.components(Kind.SOURCE):
        try:
            ranked.append((check_order(host.get(Kind.SOURCE, source_name)), source_name))
        except Exception:  # a broken source was already reported by discovery
            ranked.append((float("-inf"), source_name))
    return list(dict.fromkeys([*(n for _, n in sorted(ranked)), *names]))


def explain(
    name: str, context: DiscoveryContext, host: PluginHost, *, result: DiscoveryResult | None = None
) -> WhyReport:
    """Tell, place by place, what became of the skill called `name` (a folder name or a frontmatter name).

    `result` is a `discover --all` answer already at hand; without it the cached one is used.
    """
    if result is None:
        result = discover_detailed(context, host, show_all=True)[0]
    everything = (*result.workflows, *result.ineligible, *(s.record for s in result.shadowed))
    if "\\" in name and not any(record.name == name for record in everything):
        # A folder name that is not UTF-8, typed as every output prints it (`bad\xffname`).
        name = next((r.name for r in everything if r.name != name and escape_undecodable(r.name) == name), name)
    # Asked by the frontmatter name of a skill whose folder is named differently (120 real files).
    aliases = tuple(dict.fromkeys(r.name for r in everything if r.declared_name == name and r.name != name))
    by_folder = any(record.name == name for record in everything)
    note = ""
    if aliases and by_folder:
        others = ", ".join(quoted(f) for f in aliases)
        note = (
            f"; {quoted(name)} is also the frontmatter name of folder {others}, a different skill "
            f"(`why {aliases[0]}` explains it)"
        )
    elif aliases:
        note = f"{quoted(name)} is the frontmatter name of folder {quoted(aliases[0])}"
        if len(aliases) > 1:
            note += f" (also of {', '.join(quoted(f) for f in aliases[1:])})"
        name = aliases[0]
    by_source: dict[str, list[SkillRecord]] = {}
    for record in everything:
        if record.name == name:
            by_source.setdefault(record.source, []).append(record)
    steps: list[dict[str, Any]] = []
    for source_name in source_order(host, by_source):
        try:
            source = host.get(Kind.SOURCE, source_name)
            locations = list(source.locations(context, name)) if isinstance(source, LocatingSource) else []
        except Exception:  # a broken source was already reported by discovery
            locations = []
        records = by_source.pop(source_name, [])
        places = {location.where for location in locations}
        for location in locations:
            # The record found at this very path; else (a source whose records name another path,
            # such as a pack) one of the same scope that no other location of the source names.
            match = next((r for r in records if r.path == location.where), None) or next(
                (r for r in records if r.scope is location.scope and r.path not in places), None
            )
            step: dict[str, Any] = {"source": source_name, "scope": location.scope.value, "where": location.where}
            if location.note is not None:
                step["status"] = f"skipped: {location.note}"
            elif match is None:
                step["status"] = "not present"
            else:
                records.remove(match)
                _describe(step, match, result)
            steps.append(step)
        for record in records:  # sources that do not describe their locations
            step = {"source": source_name, "scope": record.scope.value, "where": record.path or source_name}
            _describe(step, record, result)
            steps.append(step)
    chosen = result.named(name)
    if chosen is not None:
        verdict = f"chosen from {chosen.scope.value}: {chosen.path or chosen.source}"
    elif any(step["status"] != "not present" and not step["status"].startswith("skipped") for step in steps):
        verdict = "found, but no copy accepts hand-offs"
    else:
        verdict = NOT_FOUND
    if note:
        verdict = f"{verdict}{note}" if by_folder else f"{note}; {verdict}"
    return WhyReport(skill=name, verdict=verdict, looked=tuple(steps), frontmatter_name_of=aliases)


def _describe(step: dict[str, Any], record: SkillRecord, result: DiscoveryResult) -> None:
    """Fill a step's status and detail from the record found there."""
    step["status"], detail = _status(record, result)
    if detail:
        step["detail"] = detail
    # Advice that does not stop the skill (a `name: 123`, an ignored field) is still why it looks odd.
    warnings = [_line(p) for p in record.problems if p.severity is Severity.WARNING]
    if warnings:
        step["warnings"] = warnings


def _line(problem: Problem) -> str:
    return f"{problem.code}: {problem.message}" + (f" (fix: {problem.hint})" if problem.hint else "")
