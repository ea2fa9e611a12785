"""The `xml` formatter: a kind's own layout (`xml_layouts`) where it has one, else the generic rendering.

Kinds with a layout of their own (workflow steps, dispatches, discovery, ranking, errors, the
plugins report, payload summaries) are laid out by `xml_layouts`; every other kind gets the
generic rendering of `xml`, so a document a plugin adds is still valid XML.
"""

from __future__ import annotations

from swarm_handoff.api import Document
from swarm_handoff_formatters.xml import XmlWriter, attribute, render_data
from swarm_handoff_formatters.xml_layouts import LAYOUTS


class XmlFormatter:
    """Agents read the output and act on it, so it must parse and be unambiguous."""

    def render(self, document: Document) -> str:
        """Use the layout made for the document's kind, or the generic rendering of its data."""
        data = document.to_data()
        layout = LAYOUTS.get(document.kind)
        lines = [f"<swarm-handoff{attribute('kind', document.kind)}>"]
        if layout is not None:
            writer = XmlWriter(lines, 1)
            layout(writer, dict(data))
        else:
            render_data(data, 1, lines)
        lines.append("</swarm-handoff>")
        return "\n".join(lines) + "\n"
