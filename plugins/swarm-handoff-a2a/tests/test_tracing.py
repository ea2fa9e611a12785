"""One trace across hosts (issue 29, point 5): sender, receiver and ack spans share the chain's trace id."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("opentelemetry.sdk", reason="the OpenTelemetry SDK (test extra of swarm-handoff-a2a) is absent")

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from swarm_handoff_a2a.ack import ack_task
from swarm_handoff_a2a.sender import send

EXPORTER = InMemorySpanExporter()
# The A2A plugin's own spans; the core's (discover, rank, hand-off) are there too, from building the payloads.
A2A_SPANS = {"swarm_handoff.send", "swarm_handoff.receive", "swarm_handoff.verify", "swarm_handoff.ack"}


@pytest.fixture
def spans():
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):  # set once per process: OpenTelemetry allows no second one
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    if not getattr(provider, "_swarm_handoff_test", False):
        provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
        provider._swarm_handoff_test = True  # type: ignore[attr-defined]
    EXPORTER.clear()
    return EXPORTER


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
