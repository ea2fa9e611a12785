"""Render any swarm-handoff document as Markdown: a heading, then the data as nested lists."""

from __future__ import annotations

from typing import Any

from swarm_handoff.api import Document

_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_{}[]<>()#+-.!|"})


def escape(text: str) -> str:
    """Escape Markdown's punctuation so a skill's description cannot restyle the page."""
    return " ".join(text.split()).translate(_SPECIAL)


class MarkdownFormatter:
    """Formats every document kind; it needs nothing but `kind` and `to_data()`."""

    def render(self, document: Document) -> str:
        """Return `# kind` followed by the document's data as a nested bullet list."""
        lines = [f"# {escape(document.kind)}", ""]
        _items(document.to_data(), 0, lines)
        return "\n".join(lines) + "\n"


def _items(data: Any, depth: int, lines: list[str]) -> None:
    pad = "  " * depth
    pairs = data.items() if isinstance(data, dict) else enumerate(data)
    for key, value in pairs:
        label = f"**{escape(str(key))}**" if isinstance(data, dict) else f"{key + 1}."
        if isinstance(value, (dict, list)) and value:
            lines.append(f"{pad}- {label}")
            _items(value, depth + 1, lines)
        else:
            shown = "—" if value in (None, [], {}) else f"`{value}`" if isinstance(value, bool) else escape(str(value))
            lines.append(f"{pad}- {label}: {shown}")
