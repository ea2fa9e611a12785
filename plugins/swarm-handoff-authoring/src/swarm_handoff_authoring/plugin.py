"""Hook implementation: the `graph` and `adopt` commands, declared as operations."""

from __future__ import annotations

from typing import Any

from swarm_handoff.api import hookimpl
from swarm_handoff_authoring.commands import OPERATIONS


@hookimpl
def swarm_handoff_operations(register: Any) -> None:
    """Declare `graph` (the hand-off graph) and `adopt` (write hand-off metadata into a SKILL.md)."""
    for operation in OPERATIONS:
        register(operation)
