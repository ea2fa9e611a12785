"""Text layout for the payload summary (the discovery list brings its own, `to_text()`)."""

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
