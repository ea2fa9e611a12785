"""The one home of the human (`--format text`) layouts: one per document kind, all in the core.

`LAYOUTS` names, for every document the core prints, the function that lays it out; they are
imported on first use, so the table costs nothing until text is printed. Most layouts read the
document's data after `escape_data` (so a layout never prints an unescaped field and renders the
same data from any producer); a few read the document itself, where the layout needs what
`to_data()` leaves out, and escape as they go.

A document kind the core does not know (a plugin's) brings its own layout: a `to_text()` method
(`swarm_handoff.api.TextLayout`). A kind with neither is printed as an indented `key: value` tree
(`plain_text`). Whatever lays a page out, `TextFormatter` escapes the page once more, so
nothing a skill or a payload holds can drive the terminal.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from swarm_handoff.components import TextLayout
from swarm_handoff.termsafe import escape_controls, escape_data

if TYPE_CHECKING:
    from swarm_handoff.components import Document

MENU_DESCRIPTION = 100  # characters of a description a menu line shows (whole in --explain and machine formats)


def one_line(text: str, limit: int = MENU_DESCRIPTION) -> str:
    """A description cut to its first line and `limit` characters, so a menu entry stays one line.

    Works on raw or escaped text: a line break, or its escaped form `\\n`, ends the first line.
    The cut falls on a word boundary where one is near, and says so with "...".
    """
    first = text.split("\n", 1)[0].split("\\n", 1)[0].rstrip()
    cut = first != text.rstrip()
    if len(first) > limit:
        space = first.rfind(" ", limit // 2, limit)
        first, cut = first[: space if space > 0 else limit].rstrip(" ,;:"), True
    return f"{first} ..." if cut else first


DATA = "data"  # the layout takes `escape_data(document.to_data())`
DOCUMENT = "document"  # the layout takes the document and escapes each field itself

# kind -> (module under swarm_handoff.textviews, function, what it takes). A test fails when a
# document kind of the core has no entry here.
LAYOUTS: dict[str, tuple[str, str, str]] = {
    "discovery": ("discovery", "discovery_text", DOCUMENT),
    "why": ("discovery", "why_text", DATA),
    "lint": ("discovery", "lint_text", DATA),
    "remote-discovery": ("discovery", "remote_discovery_text", DATA),
    "ranking": ("ranking", "ranking_text", DATA),
    "synthesis": ("payloads", "synthesis_text", DATA),
    "handoff": ("payloads", "handoff_text", DOCUMENT),
    "payload-summary": ("payloads", "payload_summary", DATA),
    "verification": ("payloads", "verification_text", DATA),
    "validation": ("payloads", "validation_text", DATA),
    "conversion": ("payloads", "conversion_text", DOCUMENT),
    "acknowledgment": ("payloads", "acknowledgment_text", DATA),
    "history": ("payloads", "history_text", DATA),
    "trace": ("payloads", "trace_text", DATA),
    "workflow-step": ("workflow", "step_text", DATA),
    "dispatch": ("workflow", "dispatch_text", DATA),
    "workflow-list": ("workflow", "workflow_list_text", DATA),
    "workflow-show": ("workflow", "workflow_show_text", DATA),
    "workflow-check": ("workflow", "workflow_check_text", DATA),
    "workflow-graph": ("workflow", "workflow_graph_text", DOCUMENT),
    "session": ("commands", "session_text", DOCUMENT),
    "session-close": ("commands", "session_close_text", DOCUMENT),
    "session-gc": ("commands", "session_gc_text", DOCUMENT),
    "demo": ("commands", "demo_text", DOCUMENT),
    "plugins": ("reports", "plugins_text", DATA),
    "error": ("reports", "error_text", DATA),
}


def layout_for(kind: str) -> Callable[[Document], str] | None:
    """The core's layout for documents of `kind`, ready to call with the document; None for other kinds."""
    entry = LAYOUTS.get(kind)
    if entry is None:
        return None
    module, name, takes = entry
    function: Callable[..., str] = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    if takes == DOCUMENT:
        return function
    return lambda document: function(escape_data(document.to_data()))


def text_of(document: Document) -> str:
    """Lay `document` out for a person: the core's layout, else the document's `to_text()`, else a tree."""
    layout = layout_for(document.kind)
    if layout is not None:
        return layout(document)
    if isinstance(document, TextLayout):
        return str(document.to_text())
    return generic_text(document)


def generic_text(document: Document) -> str:
    """The last resort for a kind with no layout at all: its data as an indented `key: value` tree."""
    return plain_text(document.to_data())


class TextFormatter:
    """The default `--format text`: what a person reads in a terminal, so nothing in it may drive the terminal."""

    def render(self, document: Document) -> str:
        """Lay the document out (`text_of`), then escape the whole page once more, keeping its line breaks.

        The layouts escape each field (a one-line field loses its line breaks too); the second pass
        covers any `to_text()` a plugin wrote that forgot a field.
        """
        return escape_controls(text_of(document), multiline=True)


def plain_text(data: Any, indent: int = 0) -> str:
    """Render plain data as indented `key: value` lines: readable, if not pretty.

    A string with line breaks (a graph's source, a health check's output) is written as a block
    under `key: |`, every line indented, so no line of it can pass for a key of its own.
    """
    lines: list[str] = []
    _plain_lines(data, indent, lines)
    return "\n".join(lines) + "\n"


def _plain_lines(data: Any, indent: int, lines: list[str]) -> None:
    pad = "  " * indent
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, (dict, list, tuple)) and value:
                lines.append(f"{pad}{escape_controls(key)}:")
                _plain_lines(value, indent + 1, lines)
            else:
                _plain_scalar(f"{pad}{escape_controls(key)}: ", value, pad, lines)
    elif isinstance(data, (list, tuple)):
        for item in data:
            if isinstance(item, (dict, list, tuple)) and item:
                lines.append(f"{pad}-")
                _plain_lines(item, indent + 1, lines)
            else:
                _plain_scalar(f"{pad}- ", item, pad, lines)
    else:
        _plain_scalar(pad, data, pad, lines)


def _plain_scalar(lead: str, value: Any, pad: str, lines: list[str]) -> None:
    if isinstance(value, str) and "\n" in value.rstrip("\n"):
        lines.append(f"{lead}|")
        body = escape_controls(value.removesuffix("\n"), multiline=True)
        lines += [f"{pad}    {line}" if line else "" for line in body.split("\n")]
    else:
        lines.append(f"{lead}{_scalar(value)}")


def _scalar(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (dict, list, tuple)):
        return "(none)"
    return escape_controls(value)  # one line per value: a newline in data must not forge a line
