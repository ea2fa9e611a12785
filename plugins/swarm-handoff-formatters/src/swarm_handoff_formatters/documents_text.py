"""Text layouts for the discovery list and the payload summary."""

from __future__ import annotations

from typing import Any


def _problem_lines(problems: list[dict[str, Any]], indent: str = "  ") -> list[str]:
    lines = []
    for problem in problems:
        where = ":".join(str(problem[k]) for k in ("path", "line", "column") if problem.get(k) is not None)
        severity = problem.get("severity", "error")
        lines.append(f"{indent}{severity}: {where + ': ' if where else ''}{problem['code']}: {problem['message']}")
        if problem.get("hint"):
            lines.append(f"{indent}  fix: {problem['hint']}")
    return lines


def _skill_lines(record: dict[str, Any]) -> list[str]:
    categories = ", ".join(record.get("categories", [])) or "no categories"
    lines = [f"  {record['skill']}  [{categories}]  ({record['scope']}, priority {record['priority']})"]
    if record.get("description"):
        lines.append(f"    {record['description']}")
    if record.get("path"):
        lines.append(f"    at {record['path']}")
    return lines


def discovery(data: dict[str, Any]) -> str:
    """Render `discover`: the skills that accept a hand-off in priority order, then what was set aside."""
    found = data["workflows"]
    lines = [f"{len(found)} skill(s) accept a hand-off ({data['scanned']} scanned)"]
    for record in found:
        lines += _skill_lines(record)
    if data.get("ineligible"):
        lines += ["", "not accepting hand-offs:"]
        for record in data["ineligible"]:
            lines += _skill_lines(record)
    if data.get("shadowed"):
        lines += ["", "shadowed by a skill of the same name in a higher-priority scope:"]
        for entry in data["shadowed"]:
            lines += _skill_lines(entry)
            lines.append(f"    shadowed by {entry.get('shadowed_by')}")
    if data.get("problems"):
        lines += ["", "problems:", *_problem_lines(data["problems"])]
    return "\n".join(lines) + "\n"


def payload_summary(data: dict[str, Any]) -> str:
    """Render a payload summary: what it is, its integrity, and one line per section."""
    title = f"payload {data['path']}" if data.get("path") else "payload"
    version = f", version {data['version']}" if data.get("version") else ""
    lines = [f"{title}{version}: {data['size_bytes']} bytes, sha256 {data['sha256']}"]
    width = max((len(s["name"]) for s in data["sections"]), default=0)
    for section in data["sections"]:
        count = f" ({section['count']})" if section.get("count") is not None else ""
        preview = f"  {section['preview']}" if section["preview"] else ""
        lines.append(f"  {section['name'].ljust(width)}  {section['type']}{count}{preview}")
    return "\n".join(lines) + "\n"
