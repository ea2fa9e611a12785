"""`route()`: who should take this request, in plain words, over every discovered skill (issue 28, point 1).

The engine under a `route` command or tool: a request in words is enough (no synthesis file),
every discovered skill is a candidate whether it declares the hand-off block or not (those that
do are marked `accepts_handoff`), each with the reasons `--explain` gives, and the answer says "no
skill fits" (`abstain`) when the router's evidence for its best match is below the calibrated
threshold, listing no candidate unless `show_all` asks for the ranking anyway.

It lives in the router's distribution, not in `swarm_handoff.api`: the core must not import a
plugin, and both the ranking and the abstention are the router's own.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import ClassVar

import attrs

from swarm_handoff.api import (
    MAX_REQUEST_CHARS,
    Contribution,
    Problem,
    Severity,
    SkillRecord,
    UsageError,
    discover,
    escape_controls,
    make_context,
    problem_line,
    with_undeclared,
)
from swarm_handoff_router.evidence import ABSTAIN_THRESHOLD
from swarm_handoff_router.router import route_with_evidence

MAX_PROBLEM_TYPE_CHARS = 64
# How many of the skills left out of the ranking the document names (the count is always whole).
MAX_NOT_RANKED_NAMED = 100
# The text answer names this many of them, then "and N more".
NOT_RANKED_IN_TEXT = 5
# Read on the command line, over MCP and in Python alike: no one surface's syntax.
HINT_WORDS = 'say what you need in words, e.g. "summarise this PDF"'


@attrs.frozen
class Routed:
    """One skill of the answer: its place, whether it accepts hand-offs, its score and why."""

    rank: int
    record: SkillRecord
    accepts_handoff: bool
    score: float
    contributions: tuple[Contribution, ...]

    def to_data(self) -> dict[str, object]:
        """The JSON-ready form of one ranked skill."""
        return {
            "rank": self.rank,
            "skill": self.record.name,
            "scope": str(self.record.scope),
            "accepts_handoff": self.accepts_handoff,
            "score": self.score,
            "path": self.record.path,
            "reasons": [c.to_data() for c in self.contributions],
        }


@attrs.frozen
class NotRanked:
    """A discovered skill that is no candidate (its SKILL.md is broken, or it declines hand-offs), and why."""

    name: str
    code: str
    path: str | None

    def to_data(self) -> dict[str, object]:
        """The JSON-ready form: the skill, the code that keeps it out, its SKILL.md."""
        return {"skill": self.name, "code": self.code, "path": self.path}


@attrs.frozen
class RouteDocument:
    """The answer to "who should take this?": the ranking, and whether no skill fits."""

    kind: ClassVar[str] = "route"
    request: str
    ranked: tuple[Routed, ...]
    abstain: bool
    reason: str
    evidence: float
    threshold: float
    top: int | None = None
    scope: str | tuple[str, ...] | None = None
    problem_type: str | None = None
    show_all: bool = False
    explain: bool = False
    not_ranked: tuple[NotRanked, ...] = ()
    problems: tuple[Problem, ...] = ()  # what discovery could not read (a folder, a source), as `rank` shows

    def explained(self, explain: bool = True) -> RouteDocument:
        """The same answer, its text layout listing each skill's reasons (`--explain`)."""
        return attrs.evolve(self, explain=explain)

    @property
    def shown(self) -> tuple[Routed, ...]:
        """What the answer lists: nothing when no skill fits (unless `show_all`), else the best `top`."""
        if self.abstain and not self.show_all:
            return ()
        return self.ranked[: self.top] if self.top else self.ranked

    def to_data(self) -> Mapping[str, object]:
        """The document as plain data: `abstain` is a field, with its reason, evidence and threshold."""
        return {
            "kind": self.kind,
            "request": self.request,
            "scorer": "router",
            "problem_type": self.problem_type,
            "scope": list(self.scope) if isinstance(self.scope, tuple) else self.scope,
            "abstain": self.abstain,
            "abstain_reason": self.reason,
            "evidence": self.evidence,
            "threshold": self.threshold,
            "ranked": len(self.ranked),
            "candidates": [entry.to_data() for entry in self.shown],
            "not_ranked_count": len(self.not_ranked),
            "not_ranked": [entry.to_data() for entry in self.not_ranked[:MAX_NOT_RANKED_NAMED]],
            "problems": [p.to_data() for p in self.problems],
        }

    def to_text(self) -> str:
        """The answer for a person: a ranked list (* marks a skill that accepts hand-offs), or "no skill fits".

        Every name, reason and message is one line (`escape_controls`): a skill folder named with a
        line break shows it as `\\n`, as `discover` does, and cannot add a line of its own.
        """
        lines: list[str] = []
        if self.abstain:
            lines.append(f"No skill fits this request: {escape_controls(self.reason)}.")
            if not self.show_all and self.ranked:
                lines.append("(--all shows the ranking anyway)")
        shown = self.shown
        names = [escape_controls(entry.record.name) for entry in shown]
        width = max(map(len, names), default=0)
        for entry, name in zip(shown, names, strict=True):
            mark = "*" if entry.accepts_handoff else " "
            scope = escape_controls(entry.record.scope)
            lines.append(f"{entry.rank:>3}. {name:<{width}} {mark} {entry.score:>9.3f}  [{scope}]")
            if self.explain:
                for c in entry.contributions:
                    lines.append(f"       {c.points:+g}  {escape_controls(c.factor)}: {escape_controls(c.reason)}")
        if shown:
            if any(entry.accepts_handoff for entry in shown):
                lines.append("* accepts hand-offs (swarm-handoff handoff SKILL ...)")
            if len(shown) < len(self.ranked):
                lines.append(f"({len(shown)} of {len(self.ranked)} skills; --top N shows more)")
        if self.not_ranked:
            named = ", ".join(
                f"{escape_controls(entry.name)} ({escape_controls(entry.code)})"
                for entry in self.not_ranked[:NOT_RANKED_IN_TEXT]
            )
            more = len(self.not_ranked) - NOT_RANKED_IN_TEXT
            lines.append(
                f"({len(self.not_ranked)} discovered skill{'s' if len(self.not_ranked) > 1 else ''} not ranked: "
                f"{named}{f' and {more} more' if more > 0 else ''}; swarm-handoff discover --all says why)"
            )
        for problem in self.problems:  # as `discover` prints them, after the severity
            first, *fix = problem_line(problem, indent="")
            lines += [f"{problem.severity.value}: {first}", *fix]
        return "\n".join(lines) + "\n"


class _Words:
    """A request in words, read as a synthesis is: the prompt is the request."""

    def __init__(self, text: str) -> None:
        self.original_prompt = text
        self.reframed_challenge = ""
        self.synthesis_summary = ""


def route(
    request: str,
    *,
    cwd: str | Path | None = None,
    top: int | None = None,
    scope: str | Sequence[str] | None = None,
    problem_type: str | None = None,
    show_all: bool = False,
    records: Sequence[SkillRecord] | None = None,
) -> RouteDocument:
    """Rank every discovered skill (declared or not) for a request in words, or say that none fits.

    `cwd` is where discovery starts (default: the working directory); `records` replaces discovery
    with given skills (a caller that already has them). `top` limits the candidates listed,
    `scope` keeps the skills of one scope (or of several, given as a list), `problem_type` is
    recorded in the answer (the router reads words, not the type), `show_all` lists the ranking
    even when no skill fits.
    """
    text = _checked_request(request)
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
        raise UsageError(f"top must be a whole number of at least 1, not {top!r}", hint="5 gives a short menu")
    if problem_type is not None and (not isinstance(problem_type, str) or len(problem_type) > MAX_PROBLEM_TYPE_CHARS):
        raise UsageError(
            f"problem_type must be a short word (at most {MAX_PROBLEM_TYPE_CHARS} characters), not {problem_type!r}",
            hint="a word such as decision, or leave it out: the router reads the request's words",
        )
    candidates, accepting, left, problems = _candidates(cwd) if records is None else (list(records), set(), [], ())
    named: str | tuple[str, ...] | None = None
    if scope is not None:
        wanted = (scope,) if isinstance(scope, str) else tuple(scope)
        named = scope if isinstance(scope, str) else wanted
        scopes = sorted({str(r.scope) for r in (*candidates, *left)})  # a scope of broken skills is still found
        for one in wanted:
            if one not in scopes:
                raise UsageError(
                    f"no discovered skill has the scope {one!r}",
                    hint=f"use one of: {', '.join(scopes) or '(no skill was found)'}",
                )
        candidates = [r for r in candidates if str(r.scope) in wanted]
        left = [r for r in left if str(r.scope) in wanted]
    not_ranked = tuple(_not_ranked(r) for r in left)
    if not candidates:
        reason = "no skill was discovered: there is nothing to rank"
        if not_ranked:  # found, but none may be a candidate: "none discovered" would contradict the list below
            said = (
                "1 skill was discovered, and it"
                if len(not_ranked) == 1
                else f"{len(not_ranked)} skills were discovered, and none"
            )
            reason = f"{said} cannot be ranked: there is nothing to rank"
        ranked: tuple[Routed, ...] = ()
        abstain, score, threshold = True, 0.0, ABSTAIN_THRESHOLD
    else:
        contributions, evidence = route_with_evidence(candidates, _Words(text))
        totals = [_tidy(math.fsum(c.points for c in found)) for found in contributions]
        order = sorted(range(len(candidates)), key=lambda i: (-totals[i], candidates[i].priority, candidates[i].name))
        ranked = tuple(
            Routed(place, candidates[i], candidates[i].name in accepting, totals[i], tuple(contributions[i]))
            for place, i in enumerate(order, start=1)
        )
        abstain, reason, score, threshold = evidence.abstain, evidence.reason(), evidence.score, evidence.threshold
    return RouteDocument(
        request=text,
        ranked=ranked,
        abstain=abstain,
        reason=reason,
        evidence=score,
        threshold=threshold,
        top=top,
        scope=named,
        problem_type=problem_type,
        show_all=show_all,
        not_ranked=not_ranked,
        problems=tuple(problems),
    )


def _checked_request(request: object) -> str:
    """The request text, stripped; a clear error for anything that is not a usable request."""
    if not isinstance(request, str):
        raise UsageError(f"the request must be text, not {type(request).__name__}", hint=HINT_WORDS)
    text = request.strip()
    if not text:
        raise UsageError("the request is empty", hint=HINT_WORDS)
    if len(text) > MAX_REQUEST_CHARS:
        raise UsageError(
            f"the request is {len(text):,} characters; at most {MAX_REQUEST_CHARS:,} are read",
            hint="pass the request itself, not a whole log or document",
        )
    return text


def _candidates(
    cwd: str | Path | None,
) -> tuple[list[SkillRecord], set[str], list[SkillRecord], Sequence[Problem]]:
    """Every discovered skill that may be offered (declared targets, then undeclared skills), the
    names of those that declare they accept hand-offs, the skills found that may not be offered, and
    what discovery could not read."""
    context = make_context(cwd)
    if cwd is not None and not context.cwd.is_dir():
        raise UsageError(
            f"{cwd} is not a folder: there is no project there to discover skills from",
            hint="give the project's folder, or leave cwd out to use the working folder",
        )
    found = discover(context)
    candidates = list(with_undeclared(found))
    offered = {r.name for r in candidates}
    left = [r for r in found.ineligible if r.name not in offered]
    return candidates, {r.name for r in found.workflows}, left, found.problems


def _not_ranked(record: SkillRecord) -> NotRanked:
    """Why a discovered skill is no candidate: its first error, else its first warning, else its first note."""
    severity = {Severity.ERROR: 0, Severity.WARNING: 1}
    problems = sorted(record.problems, key=lambda p: severity.get(p.severity, 2))
    return NotRanked(record.name, problems[0].code if problems else "", record.path)


def _tidy(total: float) -> float:
    """Integer totals as integers, float noise rounded: equal scores really tie (as `rank` does)."""
    rounded = round(total, 6)
    return int(rounded) if float(rounded).is_integer() else rounded
