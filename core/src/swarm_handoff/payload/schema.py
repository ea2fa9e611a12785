"""A small, declarative checker for the shapes payloads must have, collecting every problem.

The payload versions are described with the node types below (a subset of what JSON Schema can say:
types, required keys, closed mappings, enums, lengths, ranges, patterns, and the `date-time`,
`uuid` and `uri` formats). Checking never stops at the first problem: each one is appended to the
list with the dotted path of the field, so one run tells the user everything to fix.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import Any, cast

import attrs

from swarm_handoff.errors import Problem
from swarm_handoff.termsafe import shown, shown_name

MISSING_FIELD = "PAYLOAD_MISSING_FIELD"
WRONG_TYPE = "PAYLOAD_WRONG_TYPE"
BAD_VALUE = "PAYLOAD_BAD_VALUE"
UNKNOWN_FIELD = "PAYLOAD_UNKNOWN_FIELD"


def _ecma_end(pattern: str) -> str:
    # JSON Schema patterns are ECMA regexes, whose `$` is the very end of the text; Python's `$`
    # also matches before a final newline, which let "sha256:<hex>" plus a newline through.
    return pattern[:-1] + r"\Z" if pattern.endswith("$") and not pattern.endswith(r"\$") else pattern


_TIME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})\Z")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S*\Z")


def parse_time(value: Any) -> dt.datetime | None:
    """Parse an ISO 8601 date-time with a zone (`Z` or `+hh:mm`); None when it is not one."""
    if not isinstance(value, str) or not _TIME.match(value):
        return None
    match = _TIME.match(value)
    assert match is not None
    fraction = (match.group(7) or ".0")[1:7].ljust(6, "0")
    zone = match.group(8)
    zone = "+00:00" if zone in ("Z", "z") else zone
    text = f"{match.group(1)}-{match.group(2)}-{match.group(3)}T{match.group(4)}:{match.group(5)}:{match.group(6)}"
    try:
        return dt.datetime.fromisoformat(f"{text}.{fraction}{zone}")
    except ValueError:  # month 13, hour 25, offset +99:00 ...
        return None


def type_name(value: Any, *, json: bool = False) -> str:
    """Name a value's type in the words its authors use: YAML's (`mapping`, `list`) or, with `json`, JSON Schema's."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object" if json else "mapping"
    if isinstance(value, (list, tuple)):
        return "array" if json else "list"
    return type(value).__name__  # not from YAML or JSON: a Python caller's own object


class Node:
    """One field's expected shape; `check` appends a `Problem` for each way `value` breaks it."""

    def check(self, value: Any, field: str, out: list[Problem]) -> None:
        """Append the problems of `value` at `field` to `out`."""
        raise NotImplementedError


def problem(code: str, field: str, message: str, hint: str | None = None) -> Problem:
    """Build a payload problem whose message starts with the field's dotted path."""
    return Problem(code, f"{field}: {message}", hint=hint)


def field_of(item: Problem) -> str:
    """Recover the dotted field path a payload problem's message starts with."""
    return item.message.split(": ", 1)[0]


@attrs.frozen
class Anything(Node):
    """Any value at all (free-form mappings the schema leaves open)."""

    def check(self, value: Any, field: str, out: list[Problem]) -> None:
        """Accept everything."""


@attrs.frozen
class Str(Node):
    """A string, with optional length, pattern, allowed values and format."""

    min_len: int = 0
    max_len: int | None = None
    pattern: str | None = None
    choices: tuple[str, ...] = ()
    fmt: str | None = None  # "date-time", "uuid", "uri" or "path" (no NUL: no file path can hold one)
    nullable: bool = False
    hint: str | None = None  # said when the pattern does not match

    def check(self, value: Any, field: str, out: list[Problem]) -> None:
        """Check type, then every constraint, reporting each broken one."""
        if value is None and self.nullable:
            return
        if not isinstance(value, str):
            out.append(problem(WRONG_TYPE, field, f"must be a string, not {type_name(value)}", "quote the value"))
            return
        if len(value.strip()) < self.min_len:
            out.append(problem(BAD_VALUE, field, "must not be empty", "write a value"))
        if self.max_len is not None and len(value) > self.max_len:
            out.append(
                problem(BAD_VALUE, field, f"is {len(value)} characters, at most {self.max_len} allowed", "shorten it")
            )
        if self.choices and value not in self.choices:
            out.append(
                problem(BAD_VALUE, field, f"{shown(value)} is not allowed", f"use one of: {', '.join(self.choices)}")
            )
        if self.pattern is not None and not re.search(_ecma_end(self.pattern), value):
            out.append(problem(BAD_VALUE, field, f"{shown(value)} does not match {self.pattern}", self.hint))
        if self.fmt == "date-time" and parse_time(value) is None:
            out.append(
                problem(
                    BAD_VALUE,
                    field,
                    f"{shown(value)} is not an ISO 8601 date-time",
                    "write it like 2026-02-04T19:30:00Z (a zone, Z or +hh:mm, is required)",
                )
            )
        elif self.fmt == "uuid" and not _UUID.match(value):
            out.append(problem(BAD_VALUE, field, f"{shown(value)} is not a lower-case UUID", "use str(uuid.uuid4())"))
        elif self.fmt == "uri" and not _URI.match(value):
            out.append(problem(BAD_VALUE, field, f"{shown(value)} is not a URI", "write a full URL with its scheme"))
        elif self.fmt == "path" and "\0" in value:
            out.append(
                problem(
                    BAD_VALUE,
                    field,
                    f"holds a NUL character (at {value.index(chr(0))}), which no file path can hold",
                    "write the file's real path; a NUL byte is never part of one",
                )
            )


@attrs.frozen
class Num(Node):
    """A number (`integer=True`: a whole number), optionally within a range; booleans never count."""

    integer: bool = False
    minimum: float | None = None
    maximum: float | None = None

    def check(self, value: Any, field: str, out: list[Problem]) -> None:
        """Check type and range."""
        kinds: tuple[type, ...] = (int,) if self.integer else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds):
            expected = "a whole number" if self.integer else "a number"
            out.append(problem(WRONG_TYPE, field, f"must be {expected}, not {type_name(value)}"))
            return
        number = cast(float, value)  # an int or a float here; ints compare exactly, however large
        low = self.minimum is not None and number < self.minimum
        high = self.maximum is not None and number > self.maximum
        if low or high or number != number:  # number != number: NaN
            bounds = f"between {self.minimum} and {self.maximum}" if self.maximum is not None else f">= {self.minimum}"
            out.append(problem(BAD_VALUE, field, f"{shown(value)} is out of range, must be {bounds}"))


@attrs.frozen
class Bool(Node):
    """true or false."""

    def check(self, value: Any, field: str, out: list[Problem]) -> None:
        """Check the type."""
        if not isinstance(value, bool):
            out.append(problem(WRONG_TYPE, field, f"must be true or false, not {type_name(value)}"))


@attrs.frozen
class Arr(Node):
    """A list whose items all have one shape."""

    items: Node = Anything()
    min_items: int = 0

    def check(self, value: Any, field: str, out: list[Problem]) -> None:
        """Check the type, the length, then every item."""
        if not isinstance(value, list):
            out.append(problem(WRONG_TYPE, field, f"must be a list, not {type_name(value)}", "write a YAML list"))
            return
        if len(value) < self.min_items:
            out.append(problem(BAD_VALUE, field, f"must have at least {self.min_items} item(s)"))
        for index, item in enumerate(value):
            self.items.check(item, f"{field}[{index}]", out)


@attrs.frozen
class Obj(Node):
    """A mapping with known fields; `closed` refuses the others, `values` checks every value."""

    fields: Mapping[str, Node] = attrs.field(factory=dict)
    required: tuple[str, ...] = ()
    closed: bool = False
    values: Node | None = None

    def check(self, value: Any, field: str, out: list[Problem]) -> None:
        """Check the type, the required fields, unknown fields when closed, then each field."""
        if not isinstance(value, Mapping):
            out.append(problem(WRONG_TYPE, field, f"must be a mapping, not {type_name(value)}", "write key: value"))
            return
        prefix = f"{field}." if field else ""
        for name in self.required:
            if name not in value:
                out.append(problem(MISSING_FIELD, f"{prefix}{name}", "is required"))
        for key, item in value.items():
            node = self.fields.get(key) if isinstance(key, str) else None
            if node is not None:
                node.check(item, f"{prefix}{key}", out)
            elif self.values is not None:
                self.values.check(item, f"{prefix}{key}", out)
            elif self.closed:
                allowed = ", ".join(self.fields)
                hint = f"use: {allowed}"
                out.append(problem(UNKNOWN_FIELD, f"{prefix}{shown_name(key)}", "is not a field of this version", hint))


def check(node: Node, value: Any) -> list[Problem]:
    """Return every problem of `value` against `node`, in document order."""
    found: list[Problem] = []
    node.check(value, "", found)
    return found


def version_of(payload: Any) -> str | None:
    """Read `handoff.version` as text (a YAML `2.0` float counts as "2.0"), or None."""
    handoff = payload.get("handoff") if isinstance(payload, Mapping) else None
    version = handoff.get("version") if isinstance(handoff, Mapping) else None
    if isinstance(version, (int, float)) and not isinstance(version, bool):
        return f"{float(version):.1f}"
    return version if isinstance(version, str) else None
