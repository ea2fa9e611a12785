"""Read typed frontmatter fields leniently, collecting every problem, so a skill's problems come out at once.

The hand-off block, the metadata form and the `handoffs:` list are all read through `FieldReader`;
a field of the wrong type becomes a `HANDOFF_BAD_FIELD` problem instead of an exception.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from swarm_handoff.errors import Problem, Severity

HANDOFF_BAD_FIELD = "HANDOFF_BAD_FIELD"
SCHEMA_HINT = "see docs/discovery.md for the v2.0 and v3.0 hand-off fields"


class FieldReader:
    """Collects problems while reading fields, so that every problem of a skill is reported at once."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.problems: list[Problem] = []

    def add(self, code: str, message: str, hint: str, severity: Severity = Severity.ERROR) -> None:
        """Note one problem with this skill's fields; reading goes on, so every problem is reported."""
        self.problems.append(Problem(code, message, path=self.path, hint=hint, severity=severity))

    def strings(self, value: Any, field: str) -> list[str]:
        """A list of strings; a lone string is a one-element list (the seed's lenient rule)."""
        if value is None:
            return []
        if isinstance(value, str):
            return [value] if value.strip() else []
        if isinstance(value, Sequence):
            items = [str(v) for v in value if isinstance(v, (str, int, float)) and not isinstance(v, bool)]
            if len(items) != len(value):
                self.add(HANDOFF_BAD_FIELD, f"{field}: only text items are kept", SCHEMA_HINT, Severity.WARNING)
            return items
        self.add(HANDOFF_BAD_FIELD, f"{field} must be a list of text, not {type(value).__name__}", SCHEMA_HINT)
        return []

    def text(self, value: Any, field: str) -> str | None:
        """A field as text (a number keeps its digits); another type is a warning and reads as absent."""
        if value is None:
            return None
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return str(value)
        self.add(HANDOFF_BAD_FIELD, f"{field} must be text, not {type(value).__name__}", SCHEMA_HINT, Severity.WARNING)
        return None


def value_kind(value: Any) -> str:
    """A user's word for the type YAML gave a value ('a number' for `123`, 'null' for `~`)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, str):
        return "a string"
    return type(value).__name__
