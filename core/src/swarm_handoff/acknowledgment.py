"""Record a target's acknowledgment of a hand-off, then tell the transports: the one `ack` of every surface.

`ack` on the command line and the MCP `ack` tool both call `acknowledge`. Only a payload that
verifies is acknowledged (`require_intact`: its hash, and its signature when one is required); the
acknowledgment is recorded in the history; then every transport is told
(`transport.acknowledged`), so the one that carried the payload moves its remote task (the A2A
plugin: COMPLETED or FAILED). What the transports answer is in the document (`transports`); the
command line also prints it on stderr.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import attrs

from swarm_handoff.discovery import config_dir
from swarm_handoff.errors import ErrorCode, Problem, SwarmError
from swarm_handoff.history import ACK_STATUSES, open_history
from swarm_handoff.operations import CLI
from swarm_handoff.payload.validate import load_payload
from swarm_handoff.payload.verify import require_intact
from swarm_handoff.plugins import PluginHost
from swarm_handoff.transport import acknowledged


@attrs.frozen(kw_only=True)
class AckReport:
    """The `ack` document: the hand-off as the history now has it, and what the transports said of it."""

    kind: ClassVar[str] = "acknowledgment"
    handoff: Any
    problems: tuple[Problem, ...] = ()
    transports: tuple[str, ...] = ()  # a line from each transport that carried the payload (or failed)

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form; `transports` only when one said something."""
        data: dict[str, Any] = {"handoff": self.handoff.to_data(), "problems": [p.to_data() for p in self.problems]}
        if self.transports:
            data["transports"] = list(self.transports)
        return data


def acknowledge(
    host: PluginHost, payload: Path, status: str, *, require_signature: bool | None, surface: str = CLI
) -> AckReport:
    """Record the acknowledgment of an intact payload, then tell every transport (refusals name `surface`'s inputs)."""
    if status not in ACK_STATUSES:
        raise SwarmError(ErrorCode.USAGE, f"unknown status {status!r}", hint=f"use one of: {', '.join(ACK_STATUSES)}")
    data = load_payload(payload)
    if not isinstance(data, dict) or not isinstance(data.get("handoff"), dict):
        raise SwarmError(ErrorCode.INVALID_PAYLOAD, f"{payload} is not a hand-off payload")
    require_intact(payload, data, config_dir(), require_signature=require_signature, host=host, surface=surface)
    with open_history(config_dir()) as history:
        row = history.acknowledge(payload.resolve(), data, status)
        problems = history.problems
    told = acknowledged(host, payload.resolve(), status)  # a transport that carried it moves its task
    return AckReport(handoff=row, problems=problems, transports=told)
