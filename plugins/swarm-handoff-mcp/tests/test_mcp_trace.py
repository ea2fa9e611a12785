"""A tool call continues the caller's trace from its request `_meta` (W3C `traceparent`, `tracestate`).

The MCP SDK's server middleware makes each request's span a child of the `traceparent` in its
`_meta` (SEP-414; MCP semantic conventions: `tools/call NAME`, `gen_ai.operation.name`
`execute_tool`); the tool body runs in a worker thread with that context, so the core's discover
and hand-off spans are its children, and a hand-off carries it into the payload's tracing block.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("opentelemetry.sdk", reason="the OpenTelemetry SDK (test extra of swarm-handoff-mcp) is absent")

from mcp.client.client import Client

from swarm_handoff_mcp.server import SwarmServer
from swarm_handoff_mcp.testing import World

CALLER = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
STATE = "congo=t61rcWkgMzE"


@pytest.fixture
def inside(world: World, monkeypatch: pytest.MonkeyPatch) -> World:
    """The server runs in this process, in the world's project with its home."""
    for name, value in world.env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(world.project)
    return world


def call(name: str, arguments: dict[str, Any], meta: dict[str, Any]) -> Any:
    async def run() -> Any:
        async with Client(SwarmServer().build()) as client:
            return await client.call_tool(name, arguments, meta=meta)

    return anyio.run(run)


def test_a_handoff_tool_call_runs_its_spans_in_the_trace_its_meta_names_and_the_payload_carries_it(inside, spans):
    arguments = {
        "target": "lit-review",
        "synthesis": str(inside.synthesis),
        "session": str(inside.session),
        "schema": "3.0",
        "source": "market-scan",
    }
    result = call("handoff", arguments, {"traceparent": CALLER, "tracestate": STATE})
    assert not result.is_error, result.content
    finished = {s.name: s for s in spans.get_finished_spans()}
    tool = finished["tools/call handoff"]
    assert format(tool.parent.span_id, "016x") == CALLER.split("-")[2]  # the SDK's span continues `_meta`
    assert tool.attributes["gen_ai.tool.name"] == "handoff"
    handoff, discover = finished["swarm_handoff.handoff"], finished["swarm_handoff.discover"]
    assert {format(s.context.trace_id, "032x") for s in (tool, handoff, discover)} == {CALLER.split("-")[1]}
    assert handoff.parent.span_id == tool.context.span_id
    assert discover.parent.span_id == handoff.context.span_id
    assert handoff.context.trace_state.to_header() == STATE
    data = json.loads(Path(result.structured_content["payload_path"]).read_text(encoding="utf-8"))
    tags = data["handoff"]["tracing"]["tags"]
    assert tags["traceparent"].split("-")[1:3] == [CALLER.split("-")[1], format(tool.context.span_id, "016x")]
    assert tags["tracestate"] == STATE


def test_a_read_only_tool_call_is_in_the_callers_trace_too(inside, spans):
    result = call("discover", {}, {"traceparent": CALLER})
    assert not result.is_error, result.content
    (discover,) = [s for s in spans.get_finished_spans() if s.name == "swarm_handoff.discover"]
    assert format(discover.context.trace_id, "032x") == CALLER.split("-")[1]


def test_a_malformed_meta_traceparent_starts_a_trace_of_its_own_and_is_never_copied(inside, spans):
    arguments = {"target": "lit-review", "synthesis": str(inside.synthesis), "session": str(inside.session)}
    arguments.update(schema="3.0", source="market-scan")
    result = call("handoff", arguments, {"traceparent": "00-not-a-trace-01"})
    assert not result.is_error, result.content
    data = json.loads(Path(result.structured_content["payload_path"]).read_text(encoding="utf-8"))
    handoff = next(s for s in spans.get_finished_spans() if s.name == "swarm_handoff.handoff")
    tags = data["handoff"].get("tracing", {}).get("tags", {})
    assert "not-a-trace" not in json.dumps(tags)
    assert tags.get("traceparent", "").split("-")[1:2] in ([], [format(handoff.context.trace_id, "032x")])
