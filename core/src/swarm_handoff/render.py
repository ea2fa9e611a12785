"""Choose a formatter by name and render a document with it.

`text` is special: the swarm-handoff-formatters plugin provides a rich one, and when it is not
installed the core falls back to a plain rendering of `to_data()`, so that every command still
has a human-readable default with the core alone.
"""

from __future__ import annotations

from typing import Any

from swarm_handoff.components import Document, Kind
from swarm_handoff.errors import UsageError
from swarm_handoff.plugin_checks import quiet
from swarm_handoff.plugins import PluginHost, get_host

DEFAULT_FORMAT = "text"


def available_formats(host: PluginHost | None = None) -> list[str]:
    """List the names `--format` accepts right now (registered formatters plus the text fallback)."""
    host = host or get_host()
    return sorted(set(host.components(Kind.FORMATTER)) | {DEFAULT_FORMAT})


def check_format(name: str, host: PluginHost | None = None) -> str:
    """Fail early, as a usage error, when `--format` names no installed formatter."""
    formats = available_formats(host)
    if name not in formats:
        raise UsageError(f"unknown format {name!r}", hint=f"use one of: {', '.join(formats)}", available=formats)
    return name


def render(document: Document, name: str = DEFAULT_FORMAT, host: PluginHost | None = None) -> str:
    """Render `document` with the formatter called `name`."""
    host = host or get_host()
    check_format(name, host)
    if name == DEFAULT_FORMAT and name not in host.components(Kind.FORMATTER):
        to_text = getattr(document, "to_text", None)  # a document's own layout beats the generic tree
        return str(to_text()) if callable(to_text) else plain_text(document.to_data())
    formatter = host.get(Kind.FORMATTER, name)
    with quiet():  # what a formatter prints is not the document; its return value is
        return str(formatter.render(document))


def plain_text(data: Any, indent: int = 0) -> str:
    """Render plain data as indented `key: value` lines: readable, if not pretty."""
    lines: list[str] = []
    _plain_lines(data, indent, lines)
    return "\n".join(lines) + "\n"


def _plain_lines(data: Any, indent: int, lines: list[str]) -> None:
    pad = "  " * indent
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, (dict, list, tuple)) and value:
                lines.append(f"{pad}{key}:")
                _plain_lines(value, indent + 1, lines)
            else:
                lines.append(f"{pad}{key}: {_scalar(value)}")
    elif isinstance(data, (list, tuple)):
        for item in data:
            if isinstance(item, (dict, list, tuple)) and item:
                lines.append(f"{pad}-")
                _plain_lines(item, indent + 1, lines)
            else:
                lines.append(f"{pad}- {_scalar(item)}")
    else:
        lines.append(f"{pad}{_scalar(data)}")


def _scalar(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (dict, list, tuple)):
        return "(none)"
    return str(value)
