"""How the command line runs `swarm-handoff demo`: the demo's own body (`demo.demo_operation`), sandboxed."""

from __future__ import annotations

from typing import Any

from swarm_handoff.cli.operations_cli import invoke
from swarm_handoff.operations import Operation
from swarm_handoff.sandbox import demo_sandbox


def demo_invoke(operation: Operation, values: dict[str, Any]) -> None:
    """Run `demo` inside its sandbox: temporary config and cache folders, your history untouched."""
    with demo_sandbox() as sandbox:
        # A kept session outlives the sandbox, so it goes to the system's temporary folder.
        invoke(operation, {**values, "scratch": None if values["keep"] else sandbox})
