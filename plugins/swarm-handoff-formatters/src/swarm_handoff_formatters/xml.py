"""Render any document as well-formed XML in which no value can inject markup.

Keys that are valid XML names become element names; any other key is kept in a `key` attribute
of an `<entry>` element. Strings holding characters XML 1.0 cannot carry at all (most control
characters, lone surrogates) are written as a JSON string literal with `encoding="json"`, so the
exact text survives a round trip.
"""

from __future__ import annotations

import json
import re
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from swarm_handoff.components import Document

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
# Characters that XML 1.0 allows (section 2.2); anything else cannot appear, even as a reference.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(value: str) -> tuple[str, str]:
    """Return (extra attributes, element text) that carry `value` exactly and safely."""
    if _NOT_XML.search(value):
        return ' encoding="json"', escape(json.dumps(value, ensure_ascii=True))
    return "", escape(value, {'"': "&quot;", "'": "&apos;", "\r": "&#13;"})


def attribute(name: str, value: str) -> str:
    """Return ` name="value"` (plus ` name-encoding="json"` when XML cannot carry the raw text)."""
    if _NOT_XML.search(value):
        return f' {name}={quoteattr(json.dumps(value, ensure_ascii=True))} {name}-encoding="json"'
    return f" {name}={quoteattr(value)}"


def element_open(key: str) -> tuple[str, str]:
    """Return the tag name and attributes for a mapping key, which may be arbitrary user text."""
    if _NAME.match(key) and not key.lower().startswith("xml"):
        return key, ""
    return "entry", attribute("key", key)


class XmlFormatter:
    """Agents read the output and act on it, so it must parse and be unambiguous."""

    def render(self, document: Document) -> str:
        """Render `document.to_data()` under a root element named for the document's kind."""
        lines = [f"<swarm-handoff{attribute('kind', document.kind)}>"]
        _render(document.to_data(), 1, lines)
        lines.append("</swarm-handoff>")
        return "\n".join(lines) + "\n"


def _render(data: Any, depth: int, lines: list[str]) -> None:
    pad = "  " * depth
    if isinstance(data, dict):
        for key, value in data.items():
            _element(str(key), value, depth, lines)
    elif isinstance(data, (list, tuple)):
        for item in data:
            _element("item", item, depth, lines)
    else:
        lines.append(pad + _scalar(data)[1])


def _element(key: str, value: Any, depth: int, lines: list[str]) -> None:
    pad = "  " * depth
    tag, attrs = element_open(key)
    if isinstance(value, (dict, list, tuple)):
        if not value:
            lines.append(f"{pad}<{tag}{attrs}/>")
            return
        lines.append(f"{pad}<{tag}{attrs}>")
        _render(value, depth + 1, lines)
        lines.append(f"{pad}</{tag}>")
        return
    extra, text = _scalar(value)
    lines.append(f"{pad}<{tag}{attrs}{extra}>{text}</{tag}>")


def _scalar(value: Any) -> tuple[str, str]:
    if value is None:
        return ' null="true"', ""
    if isinstance(value, bool):
        return "", "true" if value else "false"
    return xml_text(str(value))
