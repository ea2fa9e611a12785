"""The `rank` document as the Stage 4 menu people read: `(C) [categories] skill - description`.

Works on the document's plain data only, so it renders a ranking produced by any scorer; with
`explain` set it adds one line per factor (signed points, factor, reason).
"""

from __future__ import annotations

from typing import Any

from swarm_handoff.textviews import one_line


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.3f}".rstrip("0").rstrip(".")


def _signed(value: float) -> str:
    text = _number(value)
    return text if text.startswith("-") else f"+{text}"


def ranking_text(data: dict[str, Any]) -> str:
    """Render the ranked menu, with every factor under each entry when `explain` is set."""
    request = data["request"]
    header = (
        f"Hand-off targets (problem_type {request['problem_type']}), ranked by {data['scorer']} "
        f"({data['shown']} of {data['candidates']} shown)"
    )
    lines = [header]
    if request.get("chain"):
        lines.append(f"chain so far: {' -> '.join(request['chain'])}")
    lines.append("")
    if not data["workflows"]:
        lines.append("No skill that accepts a hand-off was found.")
        lines.append("hint: add `handoff: {accepts_handoff: true, ...}` to a SKILL.md (see `swarm-handoff discover`)")
    for entry in data["workflows"]:
        categories = ", ".join(entry["categories"])
        # the menu: one line per entry; --explain shows the whole description
        description = entry["description"] if data.get("explain") else one_line(entry["description"])
        lines.append(f"({entry['label']}) [{categories}] {entry['skill']} - {description}")
        details = [f"score {_number(entry['score'])}", entry["scope"]]
        if entry.get("estimated_duration"):
            details.append(f"est. {entry['estimated_duration']}")
        compatibility = entry.get("compatibility")
        if compatibility:
            details.append(f"schema {compatibility['target_version']}: {compatibility['status']}")
        if entry.get("undeclared"):
            details.append("undeclared: hand off with --allow-undeclared")
        if entry.get("remote"):
            details.append(f"remote: {entry['remote']}")
        lines.append("    " + " | ".join(details))
        if data.get("explain"):
            factor_width = max((len(c["factor"]) for c in entry["breakdown"]), default=0)
            for contribution in entry["breakdown"]:
                points = _signed(contribution["points"]).rjust(5)
                lines.append(f"    {points}  {contribution['factor'].ljust(factor_width)}  {contribution['reason']}")
    if "excluded" in data:
        lines += ["", "left out:"] if data["excluded"] else []
        for entry in data["excluded"]:
            lines.append(f"  {entry['skill']}: {'; '.join(entry['excluded_because'])}")
    for problem in data.get("problems", []):
        where = f"{problem['path']}: " if problem.get("path") else ""
        lines.append(f"{problem['severity']}: {where}{problem['code']}: {problem['message']}")
    session = data.get("session")
    if session:
        verb = "created" if session["created"] else "updated"
        lines.append("")
        lines.append(
            f"{verb} {session['path']} ({len(session['updated'])} scores updated, {len(session['added'])} added)"
        )
    return "\n".join(lines) + "\n"
