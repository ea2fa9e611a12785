"""Entry point of the A2A plugin: the `a2a` command group (`serve`, `send`, `skills`, `status`).

The commands are declared as operations (`operation_table.py`); their bodies (`commands.py`) and the
A2A SDK are imported only when one of them runs, so a run that does not use A2A never pays for them.
"""

from __future__ import annotations

from typing import Any

from swarm_handoff.api import hookimpl
from swarm_handoff_a2a.operation_table import GROUP, OPERATIONS


@hookimpl
def swarm_handoff_operations(register: Any) -> None:
    """Declare `a2a serve`, `a2a send`, `a2a skills` and `a2a status`."""
    register(GROUP)
    for operation in OPERATIONS:
        register(operation)
