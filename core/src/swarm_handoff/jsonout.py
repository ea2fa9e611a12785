"""Write JSON for stdout: one exact document, safe for a terminal, indented only for people.

Apart from the formatter hook (`builtin/formatters.py`) so that a command that writes no JSON,
`--help` included, does not import the json module or compile the escape pattern.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any

from swarm_handoff.components import Document
from swarm_handoff.termsafe import UNSAFE_PAST_C0, undecodable

# JSON already escapes C0 controls; these are the other characters a terminal may act on (DEL, C1,
# bidi controls, line separators) plus lone surrogates, which cannot be encoded as UTF-8 at all.
# They can only occur inside strings, where `\uXXXX` reads back as the same character; a lone
# surrogate (an undecodable byte of a file name) becomes the text `\xff` instead (`escape_undecodable`).
_UNSAFE_IN_JSON = re.compile(f"[{UNSAFE_PAST_C0}]")


def _json_escape(match: re.Match[str]) -> str:
    char = match.group()
    if "\ud800" <= char <= "\udfff":
        return undecodable(char).replace("\\", "\\\\")  # the text `\xff`, its backslash escaped for JSON
    return f"\\u{ord(char):04x}"


class JsonFormatter:
    """Exactly one JSON document per command, so `| jq` and agents can rely on stdout."""

    def render(self, document: Document) -> str:
        """Serialise `document.to_data()` with real Unicode: indented for people, compact for programs, exact."""
        return _UNSAFE_IN_JSON.sub(_json_escape, json_text(document.to_data()))


ENV_JSON_INDENT = "SWARM_HANDOFF_JSON_INDENT"
# The widest indent the setting takes: the output grows by the indent times the depth on every line.
MAX_JSON_INDENT = 16


def json_text(data: Any) -> str:
    """JSON for stdout: indented at a terminal, compact otherwise, since only compact uses the C encoder.

    `json.dumps` falls back to its pure-Python encoder whenever `indent` is set (docs/performance.md,
    "Compact JSON for programs"). Programs and pipes read both the same, so they get the fast one;
    `SWARM_HANDOFF_JSON_INDENT=N` forces N spaces (0: compact) anywhere.
    """
    indent = _forced_indent()
    if indent is None:
        indent = 2 if _is_terminal(sys.stdout) else 0
    if not indent:
        return json.dumps(data, ensure_ascii=False, default=str, separators=(",", ":")) + "\n"
    return json.dumps(data, indent=indent, ensure_ascii=False, default=str) + "\n"


def _forced_indent() -> int | None:
    """The indent `SWARM_HANDOFF_JSON_INDENT` sets, or None when unset or not one it takes (ignored, as junk)."""
    setting = os.environ.get(ENV_JSON_INDENT, "").strip()
    if not (setting.isascii() and setting.isdigit()):  # str.isdigit alone admits `²`, which int() refuses
        return None
    digits = setting.lstrip("0")
    if len(digits) > len(str(MAX_JSON_INDENT)):  # never convert thousands of digits
        return None
    indent = int(digits or "0")
    return indent if indent <= MAX_JSON_INDENT else None


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # replaced, closed or detached stdout
        return False
