"""The limits every parser of loaded data shares (YAML and JSON alike), and the check on loaded data.

Both `yamlio` and `jsonio` build on these, so they live below both; the values are documented in
docs/errors.md, "Input limits".
"""

from __future__ import annotations

from typing import Any

from swarm_handoff.errors import LoadError, Problem

# Values visited while walking the loaded document; aliases are counted each time they are reached,
# so "billion laughs" documents exceed it long before they exhaust memory.
MAX_NODES = 200_000
YAML_TOO_MANY_NODES = "YAML_TOO_MANY_NODES"
YAML_TOO_DEEP = "YAML_TOO_DEEP"
# Collections nested deeper than this (block or flow, aliases expanded) are refused: the loaders,
# JSON output and the formatters recurse once per level, and no hand-off document needs more.
MAX_DEPTH = 100
# Number literals longer than this are refused: Python refuses to turn more than 4,300 digits into
# an int (ValueError), and a hex literal that loads could not be written back as JSON.
MAX_NUMBER_CHARS = 100
# What an int that passed MAX_NUMBER_CHARS can weigh at most (a hex digit is 4 bits).
MAX_INT_BITS = 4 * MAX_NUMBER_CHARS
NUMBER_TOO_LONG = "NUMBER_TOO_LONG"
KEY_NOT_TEXT = "KEY_NOT_TEXT"


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
