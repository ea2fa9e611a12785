"""Routing of a step document as the seed's union: Linear | Branch | Terminal.

A step either goes on to one step (linear), lets a reported outcome pick among several (branch,
with each outcome and where it leads, the end of the workflow included), or ends the workflow
(terminal). A union makes the impossible combinations unrepresentable: a terminal step has no
outcomes, a linear one exactly one target. Each compares equal to its type name (`"linear"`,
`"branch"`, `"terminal"`) so code written when routing was a plain string keeps working.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import attrs


class _Typed:
    """Equality with the type name, for readers of the former string form."""

    type: ClassVar[str]

    def __str__(self) -> str:
        return self.type

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return other == self.type
        return type(other) is type(self) and attrs.astuple(self) == attrs.astuple(other)  # type: ignore[arg-type]

    def __hash__(self) -> int:
        return hash(self.type)


@attrs.frozen(eq=False)
class LinearRouting(_Typed):
    """One way on: the step to run next."""

    type: ClassVar[str] = "linear"
    step: str
    index: int

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {"type": self.type, "step": self.step, "index": self.index}


@attrs.frozen(eq=False)
class BranchOutcome:
    """One outcome of a branch: what selects it, and the step it leads to (None: the workflow ends)."""

    label: str
    when: Mapping[str, tuple[str, ...]]
    outcome: str
    step: str | None
    index: int | None

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {
            "label": self.label,
            "when": {k: list(v) for k, v in self.when.items()},
            "outcome": self.outcome,
            "step": self.step,
            "index": self.index,
        }


@attrs.frozen(eq=False)
class BranchRouting(_Typed):
    """Several ways on: the reported outcome picks one."""

    type: ClassVar[str] = "branch"
    outcomes: tuple[BranchOutcome, ...]

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {"type": self.type, "outcomes": [o.to_data() for o in self.outcomes]}


@attrs.frozen(eq=False)
class TerminalRouting(_Typed):
    """The workflow ends here."""

    type: ClassVar[str] = "terminal"

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {"type": self.type}


Routing = LinearRouting | BranchRouting | TerminalRouting


def routing_type(value: Any) -> str:
    """The routing's type name from a document's data: the typed mapping, or the former plain string."""
    if isinstance(value, Mapping):
        return str(value.get("type", ""))
    return str(value)


def routing_from(value: Routing | str, nexts: Sequence[Any]) -> Routing:
    """A typed routing; a type name (the former string form) is built from the document's next commands."""
    if not isinstance(value, str):
        return value
    if value == "terminal" or not nexts:
        return TerminalRouting()
    if value == "linear":
        first = nexts[0]
        return LinearRouting(step=str(first.step), index=int(first.index or 0))
    return BranchRouting(tuple(BranchOutcome(n.label, n.when, n.outcome, n.step, n.index) for n in nexts))
