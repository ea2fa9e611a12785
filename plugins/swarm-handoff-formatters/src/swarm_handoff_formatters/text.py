"""Render documents as plain text for people: a specific layout where one exists, else a tree."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from swarm_handoff.api import Document, escape_controls, escape_data, plain_text
from swarm_handoff_formatters.documents_text import payload_summary
from swarm_handoff_formatters.ranking_text import render_ranking
from swarm_handoff_formatters.workflow_text import dispatch, workflow_list, workflow_show, workflow_step

Renderer = Callable[[dict[str, Any]], str]


def _plugins(data: dict[str, Any]) -> str:
    lines = [f"swarm-handoff-core {data['core_version']}", ""]
    for plugin in data["plugins"]:
        origin = "built-in" if plugin["builtin"] else plugin["distribution"]
        lines.append(f"{plugin['name']}  ({origin} {plugin['version']})")
        hooks = ", ".join(h.removeprefix("swarm_handoff_") for h in plugin["hooks"]) or "none"
        lines.append(f"  hooks: {hooks}")
        for component in plugin["components"]:
            summary = f" - {component['summary']}" if component["summary"] else ""
            lines.append(f"  {component['kind']} {component['name']}{summary}")
    if data["skipped"]:
        lines += ["", "skipped:"]
        lines += [f"  {s['name']} ({s['distribution']} {s['version']}): {s['reason']}" for s in data["skipped"]]
    if data["failures"]:
        lines += ["", "failed:"]
        for f in data["failures"]:
            lines.append(f"  {f['name']} ({f['distribution']} {f['version']}): {f['code']}: {f['error']}")
            if f["hint"]:
                lines.append(f"    hint: {f['hint']}")
    return "\n".join(lines) + "\n"


def _error(data: dict[str, Any]) -> str:
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


RENDERERS: dict[str, Renderer] = {
    "plugins": _plugins,
    "error": _error,
    "ranking": render_ranking,
    "workflow-list": workflow_list,
    "workflow-show": workflow_show,
    "workflow-step": workflow_step,
    "dispatch": dispatch,
    "payload-summary": payload_summary,
}


class TextFormatter:
    """The default `--format text`: what a person reads in a terminal, so nothing in it may drive the terminal."""

    def render(self, document: Document) -> str:
        """Use the document's own `to_text()`, else the layout made for its kind, else a tree of its data.

        The layouts escape each field (a one-line field loses its line breaks too); the whole page
        is escaped once more, keeping line breaks, for any `to_text()` that forgot a field.
        """
        to_text = getattr(document, "to_text", None)
        if callable(to_text):
            return escape_controls(to_text(), multiline=True)
        renderer = RENDERERS.get(document.kind)
        data = document.to_data()
        text = renderer(escape_data(data)) if renderer else plain_text(data)
        return escape_controls(text, multiline=True)
