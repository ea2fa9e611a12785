"""Render any document as well-formed XML in which no value can inject markup.

This module is the XML vocabulary: escaping, `XmlWriter` and the generic rendering of any data.
The layouts of particular kinds are in `xml_layouts`; `xml_formatter` picks one or the other.

Keys that are valid XML names become element names; any other key is kept in a `key` attribute
of an `<entry>` element. Strings holding characters XML 1.0 cannot carry at all (most control
characters) are written as a JSON string literal with `encoding="json"`, so the exact text
survives a round trip. So are strings holding characters XML could carry but a terminal would
act on (DEL and the C1 controls, which XML 1.0 discourages anyway, bidi overrides and the line
separators): XML printed to a terminal must not drive it either. A lone surrogate (an
undecodable byte of a file name) is first written as the text `\xff`, as in every format
(`escape_undecodable`), since no strict JSON or XML reader accepts it.
"""

from __future__ import annotations

import json
import re
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from swarm_handoff.api import escape_undecodable

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*\Z")
# Characters that XML 1.0 does not allow (section 2.2), which cannot appear even as a reference,
# then characters it allows but a terminal acts on: either way the string is written as JSON.
_NOT_XML = re.compile(
    "[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)


def xml_text(value: str) -> tuple[str, str]:
    """Return (extra attributes, element text) that carry `value` exactly and safely."""
    value = escape_undecodable(value)
    if _NOT_XML.search(value):
        return ' encoding="json"', escape(json.dumps(value, ensure_ascii=True))
    return "", escape(value, {'"': "&quot;", "'": "&apos;", "\r": "&#13;"})


def attribute(name: str, value: str) -> str:
    """Return ` name="value"` (plus ` name-encoding="json"` when XML cannot carry the raw text)."""
    value = escape_undecodable(value)
    if _NOT_XML.search(value):
        return f' {name}={quoteattr(json.dumps(value, ensure_ascii=True))} {name}-encoding="json"'
    return f" {name}={quoteattr(value)}"


# Tags the generic layout gives a meaning of its own: a key spelled like one goes in `key=` too.
_RESERVED = frozenset({"entry", "item"})


def element_open(key: str) -> tuple[str, str]:
    """Return the tag name and attributes for a mapping key, which may be arbitrary user text."""
    if _NAME.match(key) and not key.lower().startswith("xml") and key not in _RESERVED:
        return key, ""
    return "entry", attribute("key", key)


def decode_text(element: Any) -> str:
    """Read back the exact text of an element written by this formatter (tools and tests use it)."""
    text = element.text or ""
    return str(json.loads(text)) if element.get("encoding") == "json" else text


def decode_attribute(element: Any, name: str) -> str | None:
    """Read back an attribute written by `attribute()`, undoing its JSON fallback."""
    raw = element.get(name)
    if raw is None or element.get(f"{name}-encoding") != "json":
        return raw  # type: ignore[no-any-return]
    return str(json.loads(raw))


def _attrs(values: dict[str, Any]) -> str:
    """Render attributes in the given order; None leaves one out, booleans become true/false."""
    parts = []
    for name, value in values.items():
        if value is None:
            continue
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        parts.append(attribute(name, text))
    return "".join(parts)


class XmlWriter:
    """Appends indented elements to `lines`; tag and attribute names are the caller's, never user text."""

    def __init__(self, lines: list[str], depth: int = 0) -> None:
        self.lines = lines
        self.depth = depth

    def _pad(self) -> str:
        return "  " * self.depth

    def text(self, tag: str, value: Any, **attributes: Any) -> None:
        """Write `<tag ...>value</tag>`, escaping the value (None is written as null="true")."""
        extra, body = _scalar(value)
        self.lines.append(f"{self._pad()}<{tag}{_attrs(attributes)}{extra}>{body}</{tag}>")

    def empty(self, tag: str, **attributes: Any) -> None:
        """Write `<tag .../>`."""
        self.lines.append(f"{self._pad()}<{tag}{_attrs(attributes)}/>")

    def open(self, tag: str, **attributes: Any) -> None:
        """Write an opening tag and indent what follows."""
        self.lines.append(f"{self._pad()}<{tag}{_attrs(attributes)}>")
        self.depth += 1

    def close(self, tag: str) -> None:
        """Write the closing tag that matches the last `open`."""
        self.depth -= 1
        self.lines.append(f"{self._pad()}</{tag}>")

    def items(self, tag: str, item: str, values: Any, **attributes: Any) -> None:
        """Write a list as `<tag><item>...</item>...</tag>`, or `<tag/>` when it is empty."""
        if not values:
            self.empty(tag, **attributes)
            return
        self.open(tag, **attributes)
        for value in values:
            self.text(item, value)
        self.close(tag)

    def data(self, tag: str, value: Any, **attributes: Any) -> None:
        """Write any JSON-ready value with the generic rendering, under `tag`."""
        if isinstance(value, (dict, list, tuple)):
            if not value:
                self.empty(tag, **attributes)
                return
            self.open(tag, **attributes)
            render_data(value, self.depth, self.lines)
            self.close(tag)
        else:
            self.text(tag, value, **attributes)


def render_data(data: Any, depth: int, lines: list[str]) -> None:
    """Render JSON-ready data generically: keys become elements (or `<entry key=...>`)."""
    _render(data, depth, lines)


def _render(data: Any, depth: int, lines: list[str]) -> None:
    pad = "  " * depth
    if isinstance(data, dict):
        for key, value in data.items():
            _element(str(key), value, depth, lines)
    elif isinstance(data, (list, tuple)):
        for item in data:
            _element("item", item, depth, lines, list_item=True)
    else:
        lines.append(pad + _scalar(data)[1])


def _element(key: str, value: Any, depth: int, lines: list[str], *, list_item: bool = False) -> None:
    pad = "  " * depth
    tag, attrs = ("item", "") if list_item else element_open(key)
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
