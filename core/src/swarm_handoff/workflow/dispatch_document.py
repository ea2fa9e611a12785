"""`dispatch`: the hand-over to a sub-agent as a document of its own.

A dispatch step's document already says whom to dispatch and what to run afterwards; this
document carries just that part, for a sub-agent launcher or a log: the agent role, the mode
(script: the sub-agent follows a script step by step; free form: it gets a prompt), the context
values it starts from, and the command(s) to invoke after it returns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

from swarm_handoff.workflow.protocol import NextCommand, StepDocument
from swarm_handoff.workflow.routing import Routing, routing_from


@attrs.frozen
class DispatchDocument:
    """One sub-agent dispatch: who, how (script or free form), with what, and what comes after."""

    kind: ClassVar[str] = "dispatch"
    workflow: str
    step: str
    index: int
    total: int
    dispatch: Mapping[str, Any]
    context: Mapping[str, Any]
    routing: Routing  # a type name ("linear", ...) is accepted and typed from `next`
    next: tuple[NextCommand, ...]

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "routing", routing_from(self.routing, self.next))

    @classmethod
    def from_step(cls, document: StepDocument) -> DispatchDocument:
        """Take the dispatch out of a step document; a step without one is a ValueError."""
        if document.dispatch is None:
            raise ValueError(f"step {document.step!r} of {document.workflow!r} dispatches no sub-agent")
        declared = document.dispatch.get("context")  # the dispatch's own context_vars win over the step's values
        context = {**document.params, **document.state, **(dict(declared) if isinstance(declared, Mapping) else {})}
        return cls(
            document.workflow,
            document.step,
            document.index,
            document.total,
            dict(document.dispatch),
            context,
            document.routing,
            document.next,
        )

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {
            "workflow": self.workflow,
            "step": self.step,
            "index": self.index,
            "total": self.total,
            "dispatch": dict(self.dispatch),
            "context": dict(self.context),
            "routing": self.routing.to_data(),
            "next": [n.to_data() for n in self.next],
        }
