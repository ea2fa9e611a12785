"""Load JSON that others wrote with the same limits as YAML, and refuse duplicate keys.

`json.loads` keeps the last of two equal keys while other readers keep the first, so a document
with a repeated key means different things to different tools: it is refused, naming the key and
its line. Nesting is counted before parsing (the C scanner recurses once per level), number
literals are capped (Python refuses to turn more than 4,300 digits into an int), and the loaded
data goes through `limits.check_size` like any YAML document.
"""

from __future__ import annotations

import json
import re
from typing import Any

from swarm_handoff.errors import Problem
from swarm_handoff.limits import MAX_DEPTH, MAX_NODES, MAX_NUMBER_CHARS, NUMBER_TOO_LONG, check_size, too_deep
from swarm_handoff.textfile import MAX_BYTES, YAML_TOO_LARGE, LoadError

JSON_SYNTAX = "JSON_SYNTAX"
JSON_DUPLICATE_KEY = "JSON_DUPLICATE_KEY"
JSON_TOO_DEEP = "JSON_TOO_DEEP"
# Strings (with a key's colon) and brackets. An unterminated string, even one ending in a lone
# backslash, still matches up to the end of the text, so scanning stays linear on hostile input
# (without the `\Z` branches, text full of `\"` made every quote rescan to the end: quadratic).
_TOKENS = re.compile(r'"(?:[^"\\]|\\.|\\\Z)*(?:"|\Z)\s*:?|[\[\]{}]', re.S)


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
