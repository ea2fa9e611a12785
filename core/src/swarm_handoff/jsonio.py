"""Load JSON that others wrote with the same limits as YAML, refuse duplicate keys, and check loaded data.

`json.loads` keeps the last of two equal keys while other readers keep the first, so a document
with a repeated key means different things to different tools: it is refused, naming the key and
its line. Nesting is counted before parsing (the C scanner recurses once per level), number
literals are capped (Python refuses to turn more than 4,300 digits into an int), and the loaded
data goes through `check_size` like any YAML document. Every reader loads JSON-shaped data (text keys,
lists, numbers), so the check of loaded data against the shared limits (`limits`) lives here, beside
the JSON loader, and the YAML readers use it too.
"""

from __future__ import annotations

import json
import re
from typing import Any

from swarm_handoff.errors import LoadError, Problem
from swarm_handoff.limits import (
    KEY_NOT_TEXT,
    MAX_BYTES,
    MAX_DEPTH,
    MAX_INT_BITS,
    MAX_NODES,
    MAX_NUMBER_CHARS,
    NUMBER_TOO_LONG,
    YAML_TOO_DEEP,
    YAML_TOO_LARGE,
    YAML_TOO_MANY_NODES,
)

JSON_SYNTAX = "JSON_SYNTAX"
JSON_DUPLICATE_KEY = "JSON_DUPLICATE_KEY"
JSON_TOO_DEEP = "JSON_TOO_DEEP"
# Strings (with a key's colon) and brackets. An unterminated string, even one ending in a lone
# backslash, still matches up to the end of the text, so scanning stays linear on hostile input
# (without the `\Z` branches, text full of `\"` made every quote rescan to the end: quadratic).
_TOKENS = re.compile(r'"(?:[^"\\]|\\.|\\\Z)*(?:"|\Z)\s*:?|[\[\]{}]', re.S)


def too_deep(path: str | None, line: int | None = None, limit: int = MAX_DEPTH, code: str = YAML_TOO_DEEP) -> LoadError:
    """The error for a document nested more than `limit` deep."""
    return LoadError(
        Problem(
            code,
            f"collections nested more than {limit} deep",
            path=path,
            line=line,
            hint="flatten the structure; no hand-off document needs this",
        )
    )


def check_size(
    data: Any, *, path: str | None = None, limit: int = MAX_NODES, text_keys: bool = False, max_depth: int = MAX_DEPTH
) -> None:
    """Refuse loaded data over the node, depth or number limits (aliases expanded), or with non-text keys.

    Aliases can nest an anchored value deeper than the text does, and a hex literal can load into an
    int too big to write back, so the limits are checked on the data as well as on the text.
    """
    count = 0
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        item, depth = stack.pop()
        count += 1
        if count > limit:
            raise LoadError(
                Problem(
                    YAML_TOO_MANY_NODES,
                    f"the document expands to more than {limit} values (aliases included)",
                    path=path,
                    hint="remove anchors/aliases that repeat large structures",
                )
            )
        if isinstance(item, dict):
            if depth >= max_depth:
                raise too_deep(path, limit=max_depth)
            if text_keys:
                for key in item:
                    if not isinstance(key, str):
                        raise LoadError(
                            Problem(
                                KEY_NOT_TEXT,
                                f"the key {key!r} is a {type(key).__name__}, not text",
                                path=path,
                                hint="quote the key: a payload's keys are strings, as in JSON",
                            )
                        )
            stack.extend((value, depth + 1) for value in item.values())
        elif isinstance(item, list):
            if depth >= max_depth:
                raise too_deep(path, limit=max_depth)
            stack.extend((value, depth + 1) for value in item)
        elif isinstance(item, int) and item.bit_length() > MAX_INT_BITS:
            raise LoadError(
                Problem(
                    NUMBER_TOO_LONG,
                    f"an integer of {item.bit_length()} bits (at most {MAX_INT_BITS})",
                    path=path,
                    hint="quote it if it is an identifier, or shorten it",
                )
            )


class _Duplicate(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Duplicate(key)
        result[key] = value
    return result


def _number(kind: type) -> Any:
    def parse(text: str) -> Any:
        if len(text) > MAX_NUMBER_CHARS:
            raise _TooLong(text)
        return kind(text)

    return parse


class _TooLong(Exception):
    pass


def _check_depth(text: str, path: str | None) -> None:
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > MAX_DEPTH:
                raise too_deep(path, text.count("\n", 0, match.start()) + 1, code=JSON_TOO_DEEP)
        elif token in ("]", "}"):
            depth -= 1


def duplicate_line(text: str, key: str) -> int | None:
    """The line of the first repeat of `key` within one object (only called on the error path)."""
    objects: list[set[str] | None] = []
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            objects.append(set() if token == "{" else None)
        elif token in ("]", "}"):
            if objects:
                objects.pop()
        elif token.endswith(":") and objects and objects[-1] is not None:
            name = json.loads(token[:-1].rstrip())
            if name in objects[-1] and name == key:
                return text.count("\n", 0, match.start()) + 1
            objects[-1].add(name)
    return None


def loads(text: str, *, path: str | None = None, limit: int = MAX_NODES) -> Any:
    """Parse JSON text into plain data, or raise a located `LoadError` (never another exception)."""
    if len(text) > MAX_BYTES:
        raise LoadError(Problem(YAML_TOO_LARGE, f"larger than {MAX_BYTES} bytes", path=path, hint="check the path"))
    _check_depth(text, path)
    try:
        data = json.loads(text, object_pairs_hook=_pairs, parse_int=_number(int), parse_float=_number(float))
    except _Duplicate as exc:
        raise LoadError(
            Problem(
                JSON_DUPLICATE_KEY,
                f"the key {exc.key!r} appears twice in one object (readers disagree on which one counts)",
                path=path,
                line=duplicate_line(text, exc.key),
                hint="remove or rename the repeated key",
            )
        ) from None
    except _TooLong as exc:
        raise LoadError(
            Problem(
                NUMBER_TOO_LONG,
                f"a number of {len(str(exc))} characters (at most {MAX_NUMBER_CHARS})",
                path=path,
                hint="write it as a string if it is an identifier, or shorten it",
            )
        ) from None
    except json.JSONDecodeError as exc:
        raise LoadError(
            Problem(JSON_SYNTAX, exc.msg, path=path, line=exc.lineno, column=exc.colno, hint="check the JSON syntax")
        ) from None
    except (RecursionError, ValueError) as exc:  # a deep document on a small stack; a bad surrogate
        raise LoadError(Problem(JSON_SYNTAX, f"invalid JSON: {exc}", path=path, hint="check the JSON syntax")) from None
    check_size(data, path=path, limit=limit)
    return data
