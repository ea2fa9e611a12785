"""Hook implementation: the `skills` command group (`skills link`, `skills unlink`), as operations."""

from __future__ import annotations

from typing import Any

from swarm_handoff.api import hookimpl
from swarm_handoff_link.commands import GROUP, OPERATIONS


@hookimpl
def swarm_handoff_operations(register: Any) -> None:
    """Declare `skills link` and `skills unlink`; the linking code is imported only when one of them runs."""
    register(GROUP)
    for operation in OPERATIONS:
        register(operation)
