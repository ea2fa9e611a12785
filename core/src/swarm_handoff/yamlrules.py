"""What YAML input may hold, checked the same way by both YAML readers.

`yamlio` (the reference loader for single documents) and `fastyaml` (discovery's constructor over
the parser's events) refuse the same things with the same codes: explicit tags outside the core
schema, duplicate keys, syntax errors, flow collections nested too deep and number literals too
long. The limits both share with JSON are in `limits`.
"""

from __future__ import annotations

import re

from swarm_handoff.errors import LoadError, Problem
from swarm_handoff.limits import MAX_NUMBER_CHARS, NUMBER_TOO_LONG, YAML_TOO_DEEP
from swarm_handoff.yamlout import resolves_to_non_text

YAML_SYNTAX = "YAML_SYNTAX"
YAML_DUPLICATE_KEY = "YAML_DUPLICATE_KEY"
# Flow collections nested deeper than this are refused before parsing: no real document comes close,
# and the pure parser needs seconds to hit Python's recursion limit on a few kilobytes of brackets.
MAX_FLOW_DEPTH = 100
YAML_UNSAFE_TAG = "YAML_UNSAFE_TAG"
# The only explicit tags accepted: those of the JSON-compatible core schema. `!!set`, `!!binary`,
# `!!omap`, `!!timestamp`, `!!python/...` and local `!tags` build values no reader agrees on.
SAFE_TAGS = frozenset(
    {None, "!", *(f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "map", "seq"))}
)
_BRACKETS = re.compile(r"[\[\]{}]")


def check_nesting(text: str, *, path: str | None = None, limit: int = MAX_FLOW_DEPTH) -> None:
    """Refuse text whose `[`/`{` nesting exceeds `limit`, cheaply, before any parser recurses into it."""
    depth = 0
    for match in _BRACKETS.finditer(text):
        if match.group() in "[{":
            depth += 1
            if depth > limit:
                line = text.count("\n", 0, match.start()) + 1
                raise LoadError(
                    Problem(
                        YAML_TOO_DEEP,
                        f"collections nested more than {limit} deep",
                        path=path,
                        line=line,
                        hint="flatten the structure; no hand-off document needs this",
                    )
                )
        elif depth:
            depth -= 1


def unsafe_tag(tag: str, path: str | None, line: int | None, column: int | None = None) -> LoadError:
    """The error for an explicit YAML tag outside the core schema."""
    return LoadError(
        Problem(
            YAML_UNSAFE_TAG,
            f"the tag {tag!r} is not allowed",
            path=path,
            line=line,
            column=column,
            hint="remove the tag: only plain strings, numbers, booleans, null, lists and mappings are accepted",
        )
    )


def long_number(text: str, path: str | None, line: int | None, column: int | None = None) -> LoadError:
    """The error for a number literal over MAX_NUMBER_CHARS characters."""
    return LoadError(
        Problem(
            NUMBER_TOO_LONG,
            f"a number of {len(text)} characters (at most {MAX_NUMBER_CHARS})",
            path=path,
            line=line,
            column=column,
            hint="quote it if it is an identifier, or shorten it",
        )
    )


def is_long_number(value: str) -> bool:
    """True for a plain scalar a resolver could read as a number and that is over MAX_NUMBER_CHARS long."""
    return len(value) > MAX_NUMBER_CHARS and resolves_to_non_text(value)
