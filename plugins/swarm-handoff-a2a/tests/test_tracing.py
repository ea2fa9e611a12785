"""One trace across hosts (issue 29, point 5): sender, receiver and ack spans share the chain's trace id."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk", reason="the OpenTelemetry SDK (test extra of swarm-handoff-a2a) is absent")


from opentelemetry import trace

from swarm_handoff_a2a.ack import ack_task
from swarm_handoff_a2a.sender import send

# The A2A plugin's own spans; the core's (discover, rank, hand-off) are there too, from building the payloads.
A2A_SPANS = {"swarm_handoff.send", "swarm_handoff.receive", "swarm_handoff.verify", "swarm_handoff.ack"}


def test_send_receive_verify_and_ack_are_one_trace_the_chains(hosts, receiver, payload, spans):
    running = receiver()
    path = payload()
    chain = json.loads(path.read_text(encoding="utf-8"))["handoff"]["trace_id"].replace("-", "")
    result = send(path, running.url)
    assert result.state == "working"
    (written,) = list(hosts["inbox"].rglob("*.json"))
    assert ack_task("success", payload_path=written, store_url=running.store_url) == "completed"
    ours = {s.name: s for s in spans.get_finished_spans() if s.name in A2A_SPANS}
    assert set(ours) == A2A_SPANS
    assert {n: format(s.context.trace_id, "032x") for n, s in ours.items()} == dict.fromkeys(ours, chain)
    # the receiver's span continues the sender's, through the traceparent in the A2A message metadata
    assert ours["swarm_handoff.receive"].parent.is_remote
    assert ours["swarm_handoff.receive"].start_time > ours["swarm_handoff.send"].start_time
    assert ours["swarm_handoff.verify"].parent.span_id == ours["swarm_handoff.receive"].context.span_id


def test_a_refusal_marks_the_receivers_span_with_its_code(hosts, receiver, payload, spans):
    running = receiver(require_signature=True)
    send(payload(), running.url)
    receive = next(s for s in spans.get_finished_spans() if s.name == "swarm_handoff.receive")
    assert receive.attributes["error.type"] == "RECEIVED_PAYLOAD_UNSIGNED"


def test_a_payload_built_under_a_span_carries_its_traceparent_and_the_hosts_continue_that_trace(
    hosts, receiver, payload, spans, monkeypatch
):
    from swarm_handoff_a2a.tracing import current_traceparent

    running = receiver()
    with trace.get_tracer("the-cli").start_as_current_span("swarm-handoff handoff") as cli:
        monkeypatch.setenv("TRACEPARENT", current_traceparent())  # as a traced parent process passes it on
        path = payload()
    monkeypatch.delenv("TRACEPARENT")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["handoff"]["tracing"]["tags"]["traceparent"].split("-")[1] == format(
        cli.get_span_context().trace_id, "032x"
    )
    assert send(path, running.url).state == "working"  # later, in another process for all it knows
    ours = [s for s in spans.get_finished_spans() if s.name in A2A_SPANS]
    assert {s.name for s in ours} == {"swarm_handoff.send", "swarm_handoff.receive", "swarm_handoff.verify"}
    assert {s.context.trace_id for s in ours} == {cli.get_span_context().trace_id}
    built = next(s for s in spans.get_finished_spans() if s.name == "swarm_handoff.handoff")
    assert built.parent.span_id == cli.get_span_context().span_id  # the core's hand-off span, in the same trace
    send_span = next(s for s in ours if s.name == "swarm_handoff.send")
    assert send_span.parent.span_id == cli.get_span_context().span_id


def test_one_trace_from_the_sender_through_the_mcp_server_to_the_receiving_host(hosts, receiver, spans):
    """Issue 29's "Done when": spans from the sender, the MCP server and the receiver share one trace id.

    An agent's span calls the MCP server's `handoff` tool (the MCP client puts its trace context in
    the request's `_meta`); the payload the tool wrote is later sent over A2A with no span current
    (as `a2a send` in another process would), and the receiving host continues the same trace.
    """
    pytest.importorskip("swarm_handoff_mcp.server", reason="swarm-handoff-mcp is not installed (nox session `all`)")
    import anyio
    from mcp.client.client import Client

    from swarm_handoff.api import trace_context
    from swarm_handoff_mcp.server import SwarmServer

    running = receiver()
    arguments = {
        "target": "beta",
        "synthesis": str(hosts["synthesis"]),
        "session": str(hosts["session"]),
        "source": "alpha",
    }

    async def call(meta: dict[str, str]) -> Any:
        async with Client(SwarmServer().build()) as client:
            return await client.call_tool("handoff", arguments, meta=meta)

    with trace.get_tracer("an-agent").start_as_current_span("plan the review") as sender:
        meta = trace_context({})  # what an agent puts in the request's `_meta` (W3C traceparent)
    assert meta["traceparent"].split("-")[2] == format(sender.get_span_context().span_id, "016x")
    result = anyio.run(call, meta)  # no span current here: the request's `_meta` is the only link
    assert not result.is_error, result.content
    assert send(Path(result.structured_content["payload_path"]), running.url).state == "working"
    finished = spans.get_finished_spans()
    named = {s.name: s for s in finished}
    wanted = {"plan the review", "tools/call handoff", "swarm_handoff.handoff", "swarm_handoff.discover"}
    assert wanted | {"swarm_handoff.send", "swarm_handoff.receive", "swarm_handoff.verify"} <= set(named)
    one = sender.get_span_context().trace_id
    # every span of ours from the agent's on (the receiving host's own start-up discovery came before)
    ours = [s for s in finished if s.name.startswith("swarm_handoff.") and s.start_time >= sender.start_time]
    assert len(ours) >= 5
    assert {s.context.trace_id for s in (*ours, named["tools/call handoff"])} == {one}
    tool = named["tools/call handoff"]
    assert tool.parent.is_remote  # the MCP server continued the trace from the request's `_meta`
    assert tool.parent.span_id == sender.get_span_context().span_id
    assert named["swarm_handoff.receive"].parent.is_remote  # and the receiving host from the A2A message
