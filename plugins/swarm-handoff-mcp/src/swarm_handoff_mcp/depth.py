"""Answer a JSON-RPC line nested too deep, which the SDK's parser would drop without a word.

The SDK reads each stdin line with a JSON parser that refuses more than about 200 levels of
nesting; the failure never reaches a handler, so such a request got no answer at all and the
client waited forever. Each line is measured first (without recursion, in one pass); one nested
deeper than `MAX_MESSAGE_DEPTH` is not handed to the SDK but answered here: a JSON-RPC error
(`-32602`, invalid params) for its `id` (null when the id cannot be read), carrying the project's
code `MCP_REQUEST_TOO_DEEP` in `error.data`. Arguments themselves have a tighter bound
(`arguments.MAX_ARGUMENT_DEPTH`), checked with the other argument limits.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

MAX_MESSAGE_DEPTH = 64  # the whole message: envelope, params, arguments (the SDK's parser fails near 200)
TOO_DEEP = "MCP_REQUEST_TOO_DEEP"
INVALID_PARAMS = -32602


def json_depth(line: str) -> int:
    """The deepest nesting of `{` and `[` in a JSON text, strings skipped; one pass, no recursion."""
    if line.count("{") + line.count("[") <= MAX_MESSAGE_DEPTH:  # cannot be deeper: skip the scan
        return line.count("{") + line.count("[")
    depth = deepest = 0
    in_string = escaped = False
    for char in line:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "}]":
            depth -= 1
    return deepest


def _top_level(line: str, wanted: tuple[str, ...] = ("id", "method")) -> dict[str, Any]:
    """The scalar members `wanted` of the top-level object, read without parsing the nested rest."""
    found: dict[str, Any] = {}
    decoder = json.JSONDecoder()
    depth = 0
    index = 0
    length = len(line)
    while index < length:
        char = line[index]
        if char == '"':
            try:
                text, end = decoder.raw_decode(line, index)  # a string: no recursion
            except ValueError:
                return found
            rest = end
            while rest < length and line[rest] in " \t\r\n":
                rest += 1
            if depth == 1 and rest < length and line[rest] == ":" and text in wanted:
                start = rest + 1
                while start < length and line[start] in " \t\r\n":
                    start += 1
                if start < length and line[start] not in "{[":
                    with contextlib.suppress(ValueError):
                        found[str(text)] = decoder.raw_decode(line, start)[0]
            index = end
            continue
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
        index += 1
    return found


def too_deep_answer(line: str, depth: int) -> dict[str, Any] | None:
    """The JSON-RPC error answering a line nested `depth` deep (too deep); None for a notification (no id)."""
    top = _top_level(line)
    if "id" not in top and isinstance(top.get("method"), str) and '"id"' not in line:
        return None  # a notification is never answered; it is dropped (and said on stderr)
    request_id = top.get("id")
    if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):
        request_id = None  # JSON-RPC: null when the id cannot be read
    method = top.get("method")
    what = f"{method[:80]} request" if isinstance(method, str) else "request"
    message = f"the {what} is nested {depth} levels deep, more than the {MAX_MESSAGE_DEPTH} this server reads"
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {
            "code": INVALID_PARAMS,
            "message": message,
            "data": {
                "code": TOO_DEEP,
                "message": message,
                "details": {"depth": depth, "max_depth": MAX_MESSAGE_DEPTH},
                "hint": "flatten the arguments; no tool takes values nested that deep",
                "recoverable": True,
            },
        },
    }
