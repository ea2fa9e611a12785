"""The documents the `workflow` commands print: kept apart so that starting the CLI, which
imports every command module, does not pay for building their classes."""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from swarm_handoff.errors import Problem


@attrs.frozen
class WorkflowListDocument:
    """`workflow list`: the registered workflows and the packs that failed to load."""

    kind: ClassVar[str] = "workflow-list"
    workflows: tuple[dict[str, Any], ...]
    problems: tuple[Problem, ...] = ()

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {"workflows": list(self.workflows), "problems": [p.to_data() for p in self.problems]}


@attrs.frozen
class WorkflowShowDocument:
    """`workflow show`: one workflow's parameters, steps and transitions."""

    kind: ClassVar[str] = "workflow-show"
    data: dict[str, Any]

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return self.data


@attrs.frozen
class WorkflowCheckDocument:
    """`workflow check` when everything is valid: what was checked."""

    kind: ClassVar[str] = "workflow-check"
    checked: tuple[str, ...]
    cases_run: bool = False

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {"valid": True, "checked": list(self.checked), "cases_run": self.cases_run}


@attrs.frozen
class WorkflowGraphDocument:
    """`workflow graph`: the graph source; `--format text` prints the source alone."""

    kind: ClassVar[str] = "workflow-graph"
    workflow: str
    syntax: str
    source: str

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {"workflow": self.workflow, "syntax": self.syntax, "source": self.source}
