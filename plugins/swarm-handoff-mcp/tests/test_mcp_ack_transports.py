"""The MCP `ack` tool tells the transports, as `ack` on the command line does (issue 29: one ack path).

A transport registered through `swarm_handoff_transports` (a fake here; the A2A plugin's in use)
is told of every acknowledgment recorded, so the one that carried the payload moves its remote
task. Both surfaces reach it through the core's one function, never a copy in the tool's body.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from swarm_handoff.api import RemoteDelivery, RemoteSkill, hookimpl, open_history, record_from_frontmatter
from swarm_handoff_mcp.calls import ack_tool, handoff_tool
from swarm_handoff_mcp.tools import Call, check_arguments, tool_specs

SYNTHESIS = {"original_prompt": "Review it.", "problem_type": "analytical", "synthesis_summary": "Review."}


class Carrier:
    """A transport that says it carried every payload whose name has `carried` in it."""

    def __init__(self) -> None:
        self.acks: list[tuple[Path, str]] = []

    def skills(self, url: str) -> Sequence[RemoteSkill]:
        return ()

    def send(self, payload: Path, url: str, target: str) -> RemoteDelivery:
        raise AssertionError("ack never sends")

    def acknowledged(self, payload: Path, status: str) -> str | None:
        self.acks.append((payload, status))
        return f"remote task 7: {status}" if "carried" in payload.name else None


@pytest.fixture
def carrier(swarm_host: Any, register_source: Any, register_plugin: Any, monkeypatch: Any, tmp_path: Path) -> Carrier:
    front = {"description": "Reviews.", "handoff": {"accepts_handoff": True, "accepts_from": ["planner"]}}
    register_source("mcp-ack", (record_from_frontmatter(front, name="picky", scope="project", source="t", path=None),))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    transport = Carrier()

    class Plugin:
        @hookimpl
        def swarm_handoff_transports(self, register: Any) -> None:
            register("memory", lambda: transport, summary="a pretend host")

    register_plugin(Plugin(), "mcp-ack-transport")
    return transport


def call(tool: Any, name: str, swarm_host: Any, **arguments: Any) -> Any:
    spec = next(s for s in tool_specs() if s.name == name)
    return tool(Call(check_arguments(spec, arguments), swarm_host))


def test_the_ack_tool_records_then_tells_the_transports_and_says_what_they_answered(
    carrier: Carrier, swarm_host: Any, tmp_path: Path
) -> None:
    made = call(handoff_tool, "handoff", swarm_host, target="picky", source="planner", synthesis=SYNTHESIS,
                session=str(tmp_path))  # fmt: skip
    local = Path(made.to_data()["payload_path"])
    plain = call(ack_tool, "ack", swarm_host, path=str(local), status="success").to_data()
    assert carrier.acks == [(local.resolve(), "success")]
    assert "transports" not in plain  # no transport carried it: the document is as it always was
    carried = local.with_name("carried-" + local.name)
    carried.write_bytes(local.read_bytes())
    told = call(ack_tool, "ack", swarm_host, path=str(carried), status="failure").to_data()
    assert carrier.acks[-1] == (carried.resolve(), "failure")
    assert told["transports"] == ["remote task 7: failure"]
    assert told["handoff"]["status"] == "failure"
    with open_history(tmp_path / "config") as history:
        assert [h.status for h in history.list()] == ["failure"]


def test_a_refused_ack_tells_no_transport(carrier: Carrier, swarm_host: Any, tmp_path: Path) -> None:
    made = call(handoff_tool, "handoff", swarm_host, target="picky", source="planner", synthesis=SYNTHESIS,
                session=str(tmp_path))  # fmt: skip
    local = Path(made.to_data()["payload_path"])
    local.write_text(local.read_text(encoding="utf-8").replace("Review.", "Forged."), encoding="utf-8")
    with pytest.raises(Exception) as caught:
        call(ack_tool, "ack", swarm_host, path=str(local), status="success")
    assert getattr(caught.value, "code", None) == "INTEGRITY_MISMATCH"
    assert carrier.acks == []
