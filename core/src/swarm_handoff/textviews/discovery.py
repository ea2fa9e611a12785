"""Text layouts of the discovery documents (`discover`, `why`, `lint`), for people at a terminal.

`discovery_text` reads the result itself (it shows records that `to_data()` leaves out without
`--all`) and escapes each field; `why_text` and `lint_text` get the escaped data (see `LAYOUTS`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from swarm_handoff.agent_copies import agent_name
from swarm_handoff.errors import Problem
from swarm_handoff.termsafe import escape_controls as esc
from swarm_handoff.textviews import one_line

if TYPE_CHECKING:
    from swarm_handoff.discovery_result import DiscoveryResult
    from swarm_handoff.records import SkillRecord


def problem_line(problem: Problem, indent: str = "  ") -> list[str]:
    """`path:line:col: CODE: message` plus an indented `fix:` line, as compilers print them."""
    where = esc(problem.location())
    lines = [f"{indent}{where + ': ' if where else ''}{esc(problem.code)}: {esc(problem.message)}"]
    if problem.hint:
        lines.append(f"{indent}  fix: {esc(problem.hint)}")
    return lines


def discovery_text(result: DiscoveryResult) -> str:
    """One line per eligible workflow in priority order; --all adds the skipped and the shadowed."""
    view = result.agent_view()

    def agents(record: SkillRecord) -> str:
        names = [agent_name(a) for a in view.agents(record)]
        return f"  [agents: {esc(', '.join(names)) if names else 'none'}]"

    lines: list[str] = []
    for r in result.workflows:
        cats = ", ".join(esc(c) for c in r.categories) or "-"
        lines.append(f"{esc(r.name)}  [{r.scope.value}, {esc(r.priority)}]  ({cats})  {esc(one_line(r.description))}")
        lines.append(f"  {esc(r.path or r.source)}{agents(r)}")
        for other in view.other_copies(r):  # the copy that agent loads is not the one handed off to
            copy = other.record
            note = "" if copy.eligible else " (not a hand-off target)"
            where = esc(copy.path or copy.source)
            lines.append(f"  {esc(agent_name(other.agent))} loads another copy: [{copy.scope.value}] {where}{note}")
    if result.page_of is not None:  # one page of a longer list: say which, and where the next starts
        offset, _, total = result.page_of
        shown = f"{offset + 1}-{offset + len(result.workflows)}" if result.workflows else "none"
        more = (
            f"; the next page starts at {offset + len(result.workflows)}"
            if offset + len(result.workflows) < total
            else ""
        )
        lines.append(f"(workflows {shown} of {total}{more})")
    if result.message:
        lines.append(esc(result.message, multiline=True))  # the tool's own advice, several lines
    if result.show_all:
        if result.ineligible:
            lines += ["", "skipped:"]
            for r in result.ineligible:
                # the first error; else the warning a source gave as its reason (its last: the registry's stale mark)
                reason = next((p for p in r.problems if p.severity.value != "warning"), None) or (
                    r.problems[-1] if r.problems else None
                )
                code = f"{esc(reason.code)}: {esc(reason.message)}" if reason else "not eligible"
                lines.append(f"  {esc(r.name)}  [{r.scope.value}]  {code}")
                lines.append(f"    {esc(r.path or r.source)}{agents(r)}")
        if result.shadowed:
            lines += ["", "shadowed:"]
            for s in result.shadowed:
                record, winner = s.record, s.winner
                where = esc(record.path or record.source)
                lines.append(f"  {esc(record.name)}  [{record.scope.value}] {where}{agents(record)}")
                lines.append(f"    by [{winner.scope.value}] {esc(winner.path or winner.source)}")
        if result.excluded:
            lines += ["", "left out by the query:"]
            for e in result.excluded:
                lines.append(f"  {esc(e.record.name)}  [{e.record.scope.value}]  {esc('; '.join(e.reasons))}")
    if result.problems:
        lines += ["", "problems:"]
        for p in result.problems:
            lines += problem_line(p)
    return "\n".join(lines) + "\n"


def why_text(data: dict[str, Any]) -> str:
    """Every place a name was looked for, one line each, with what happened there."""
    lines = [f"{data['skill']}: {data['verdict']}"]
    for step in data["looked"]:
        lines.append(f"  [{step['scope']}] {step['where']}: {step['status']}")
        if step.get("detail"):
            lines.append(f"      {step['detail']}")
        lines += [f"      warning {warning}" for warning in step.get("warnings", ())]
    return "\n".join(lines) + "\n"


def lint_text(data: dict[str, Any]) -> str:
    """Problems per file, then a summary line with the error and warning counts."""
    lines: list[str] = []
    for entry in data["files"]:
        serious = [p for p in entry["problems"] if p["severity"] != "info"]
        state = f"{len(serious)} problem(s)" if serious else "ok"
        eligible = "accepts hand-offs" if entry["eligible"] else "does not accept hand-offs"
        lines.append(f"{entry['path']}: {state}, {eligible}")
        for p in entry["problems"]:
            where = ":".join(str(p[k]) for k in ("line", "column") if k in p)
            lines.append(f"  {where + ': ' if where else ''}{p['severity']} {p['code']}: {p['message']}")
            if "hint" in p:
                lines.append(f"    fix: {p['hint']}")
    lines.append(f"{data['errors']} error(s), {data['warnings']} warning(s)")
    return "\n".join(lines) + "\n"


def remote_discovery_text(data: dict[str, Any]) -> str:
    """`discover --remote URL`: one line per skill the remote host takes a hand-off for."""
    lines = [f"{data['count']} skill(s) accept a hand-off at {data['url']}"]
    for skill in data["skills"]:
        tags = f" [{', '.join(skill['tags'])}]" if skill["tags"] else ""
        lines.append(f"  {skill['id']}  {one_line(skill['description'])}{tags}")
    return "\n".join(lines) + "\n"
