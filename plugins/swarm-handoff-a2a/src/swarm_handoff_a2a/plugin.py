"""Entry point of the A2A plugin: the `a2a` command group (`serve`, `send`, `skills`, `status`) and the transport.

The commands are declared as operations (`operation_table.py`); their bodies (`commands.py`) are
imported only when one of them runs. The transport (`transport.py`) is what the core's `handoff
--to URL`, `discover --remote`, `rank --remote` and `ack` reach for `http(s)://` URLs. The A2A SDK
is imported only when one of them talks A2A, so a run that does not use A2A never pays for it.
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


def _transport() -> Any:
    from swarm_handoff_a2a.transport import TRANSPORT

    return TRANSPORT


@hookimpl
def swarm_handoff_transports(register: Any) -> None:
    """Take `http://` and `https://` URLs for `handoff --to` (one transport under both schemes)."""
    for scheme in ("http", "https"):
        register(scheme, _transport, summary=f"A2A 1.0 to {scheme}:// hosts (swarm-handoff-a2a)")
