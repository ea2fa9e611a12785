"""The body of `swarm-handoff demo`: the main job, end to end, with nothing to set up."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from swarm_handoff.components import Document
from swarm_handoff.operations import Operation
from swarm_handoff.plugins import PluginHost


def demo_operation(
    host: PluginHost, *, folder: Path | None, cwd: Path | None, keep: bool, scratch: Path | None = None
) -> Document:
    """`demo`: discover, rank for an example synthesis, hand off, verify, run step one."""
    from swarm_handoff.demo import command_name, run_demo
    from swarm_handoff.discovery import make_context

    return run_demo(make_context(cwd), host, folder, scratch=scratch, command=command_name())


def demo_invoke(operation: Operation, values: dict[str, Any]) -> None:
    """Run `demo` inside its sandbox: temporary config and cache folders, your history untouched."""
    from swarm_handoff.cli.operations_cli import invoke
    from swarm_handoff.demo import demo_sandbox

    with demo_sandbox() as sandbox:
        # A kept session outlives the sandbox, so it goes to the system's temporary folder.
        invoke(operation, {**values, "scratch": None if values["keep"] else sandbox})
