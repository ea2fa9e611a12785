"""Choose a formatter by name and render a document with it, with the process-wide host by default.

What a format does is `formatting`'s (the engine, which takes the host from its caller); this is
the door for code that has no host in hand: the API's `render`, a test, a plugin's own command.
"""

from __future__ import annotations

from swarm_handoff import formatting
from swarm_handoff.components import Document
from swarm_handoff.formatting import DEFAULT_FORMAT as DEFAULT_FORMAT
from swarm_handoff.formatting import too_deep as too_deep
from swarm_handoff.plugins import PluginHost, get_host


def available_formats(host: PluginHost | None = None) -> list[str]:
    """List the names `--format` accepts right now (registered formatters, and `text` always)."""
    return formatting.available_formats(host or get_host())


def check_format(name: str, host: PluginHost | None = None) -> str:
    """Fail early, as a usage error, when `--format` names no installed formatter."""
    return formatting.check_format(name, host or get_host())


def render(document: Document, name: str = DEFAULT_FORMAT, host: PluginHost | None = None) -> str:
    """Render `document` with the formatter called `name`; too deep a document is OUTPUT_TOO_DEEP, not a crash."""
    return formatting.render_with(document, name, host or get_host())
