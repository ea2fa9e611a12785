"""Text layouts of the reports every install prints: `plugins` and the `error` document."""

from __future__ import annotations

from typing import Any


def plugins_text(data: dict[str, Any]) -> str:
    """The core version, then each plugin with its hooks and components, then what was skipped or failed."""
    lines = [f"swarm-handoff-core {data['core_version']}", ""]
    for plugin in data["plugins"]:
        origin = "built-in" if plugin["builtin"] else plugin["distribution"]
        lines.append(f"{plugin['name']}  ({origin} {plugin['version']})")
        hooks = ", ".join(h.removeprefix("swarm_handoff_") for h in plugin["hooks"]) or "none"
        lines.append(f"  hooks: {hooks}")
        for component in plugin["components"]:
            summary = f" - {component['summary']}" if component["summary"] else ""
            lines.append(f"  {component['kind']} {component['name']}{summary}")
    for pack in data.get("packs", []):
        lines += ["", f"pack {pack['distribution']} {pack['version']}"]
        for skill in pack["skills"]:
            lines.append(f"  {skill['name']} ({', '.join(skill['provides'])}) - {skill['entry_point']}")
    if data["skipped"]:
        lines += ["", "skipped:"]
        lines += [
            f"  {_kind(s)}{s['name']} ({s['distribution']} {s['version']}): {s['reason']}" for s in data["skipped"]
        ]
    if data["failures"]:
        lines += ["", "failed:"]
        for f in data["failures"]:
            lines.append(f"  {_kind(f)}{f['name']} ({f['distribution']} {f['version']}): {f['code']}: {f['error']}")
            if f["hint"]:
                lines.append(f"    hint: {f['hint']}")
    return "\n".join(lines) + "\n"


def _kind(entry: dict[str, Any]) -> str:
    """'pack ' before a skill pack's entry point; nothing before a plugin's (as before packs were listed)."""
    return "pack " if entry.get("kind") == "pack" else ""


def error_text(data: dict[str, Any]) -> str:
    """The code and message, each problem with its location and fix, then the hint."""
    error = data["error"]
    lines = [f"error {error['code']}: {error['message']}"]
    for problem in error.get("problems", []):
        where = ":".join(str(problem[k]) for k in ("path", "line", "column") if k in problem)
        lines.append(f"  {where + ': ' if where else ''}{problem['code']}: {problem['message']}")
        if "hint" in problem:
            lines.append(f"    fix: {problem['hint']}")
    if error.get("hint"):
        lines.append(f"hint: {error['hint']}")
    if error.get("payload_preserved"):
        lines.append(f"payload preserved at: {error['payload_preserved']}")
    return "\n".join(lines) + "\n"
