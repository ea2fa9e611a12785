"""One tool call runs each discovery source once, and the server builds each source once in its life."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import mcp_types as types
import pytest

from swarm_handoff.api import SourceResult, hookimpl, record_from_frontmatter
from swarm_handoff_mcp.server import SwarmServer

SYNTHESIS = {"original_prompt": "Review it.", "problem_type": "analytical", "synthesis_summary": "Review."}


class Counted:
    """A source that counts its runs; its factory counts the builds."""

    built = 0

    def __init__(self) -> None:
        Counted.built += 1
        self.runs = 0
        self.priority = 1

    def discover(self, context: Any) -> SourceResult:
        self.runs += 1
        front = {"description": "Reviews.", "handoff": {"accepts_handoff": True, "handoff_categories": ["review"]}}
        return SourceResult(
            records=(record_from_frontmatter(front, name="reviewer", scope="project", source="counted", path=None),)
        )


@pytest.fixture
def server(swarm_host: Any, register_plugin: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> SwarmServer:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("SWARM_HANDOFF_NO_CACHE", "1")  # every call really runs the sources
    Counted.built = 0
    instances: list[Counted] = []

    class Plugin:
        @hookimpl
        def swarm_handoff_discovery_sources(self, register: Any) -> None:
            register("counted", lambda: instances.append(Counted()) or instances[-1])

    register_plugin(Plugin(), "counted")
    made = SwarmServer(swarm_host)
    made.instances = instances  # type: ignore[attr-defined]
    return made


def call(server: SwarmServer, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    ctx = SimpleNamespace(session=SimpleNamespace(client_capabilities=None, can_send_request=False), request_id=1)

    async def run() -> types.CallToolResult:
        return await server.call_tool(ctx, types.CallToolRequestParams(name=name, arguments=arguments))  # type: ignore[arg-type]

    return anyio.run(run)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("discover", {}),
        ("why", {"name": "reviewer"}),
        ("rank", {"synthesis": SYNTHESIS}),
        ("handoff", {"target": "reviewer", "synthesis": SYNTHESIS}),
    ],
)
def test_a_call_runs_the_sources_once_and_builds_none(
    server: SwarmServer, tmp_path: Path, tool: str, arguments: dict[str, Any]
) -> None:
    if tool == "handoff":
        arguments = {**arguments, "session": str(tmp_path)}
    assert Counted.built == 1  # the server built every source once, at start, for the scopes of its schemas
    [source] = server.instances  # type: ignore[attr-defined]
    for expected in (1, 2):
        result = call(server, tool, arguments)
        assert not result.is_error, result.structured_content
        assert source.runs == expected
    assert Counted.built == 1
