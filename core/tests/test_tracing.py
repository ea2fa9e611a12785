"""Spans for discover, rank and hand-off (issue 29, point 5), with OpenTelemetry's in-memory exporter.

Without OpenTelemetry loaded nothing is traced and nothing is imported (`tests/test_startup_imports.py`
pins the import side); with it, each operation is one span, children of the caller's trace.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk", reason="the OpenTelemetry SDK is absent (pip install opentelemetry-sdk)")

from opentelemetry import trace

from swarm_handoff import tracing
from swarm_handoff.api import HandoffOptions, SwarmError, discover, hand_off
from swarm_handoff.ranking import RankingRequest, rank
from swarm_handoff.records import SkillRecord
from swarm_handoff.synthesis import parse_synthesis

SYNTHESIS = "original_prompt: Review it.\nproblem_type: analytical\nsynthesis_summary: Review.\n"
PARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


@pytest.fixture
def world(handoff_world):
    records = (
        SkillRecord(name="alpha", scope="global", source="test", categories=("research",), protocol_version="3.0"),
        SkillRecord(name="beta", scope="global", source="test", categories=("research",), protocol_version="3.0"),
    )
    return handoff_world(records, SYNTHESIS)


def ours(exporter: Any) -> dict[str, list]:
    found: dict[str, list] = {}
    for finished in exporter.get_finished_spans():
        if finished.instrumentation_scope.name == tracing.TRACER_NAME:
            found.setdefault(finished.name, []).append(finished)
    return found


def test_a_handoff_is_one_span_with_its_discovery_inside_named_by_the_genai_conventions(world, spans):
    result = hand_off(HandoffOptions(target="beta", synthesis=world["synthesis"], session=world["session"]))
    made = ours(spans)
    (handoff,) = made["swarm_handoff.handoff"]
    assert handoff.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert handoff.attributes["gen_ai.agent.name"] == "beta"
    payload = json.loads(Path(result.payload_path).read_text(encoding="utf-8"))["handoff"]
    assert handoff.attributes["gen_ai.conversation.id"] == payload["trace_id"]
    assert handoff.attributes["swarm_handoff.payload_hash"] == payload["meta"]["payload_hash"]
    discovered = made["swarm_handoff.discover"]
    assert [d.parent.span_id for d in discovered] == [handoff.context.span_id] * len(discovered)
    assert discovered[0].attributes["swarm_handoff.skills"] >= 2


def test_a_refused_handoff_is_a_span_whose_error_type_is_the_code(world, spans):
    with pytest.raises(SwarmError) as caught:
        hand_off(HandoffOptions(target="gamma", synthesis=world["synthesis"], session=world["session"]))
    (handoff,) = ours(spans)["swarm_handoff.handoff"]
    assert handoff.attributes["error.type"] == caught.value.code == "TARGET_NOT_FOUND"
    assert handoff.status.status_code == trace.StatusCode.ERROR


def test_rank_is_a_span(world, spans):
    records = discover().workflows
    rank(records, RankingRequest(synthesis=parse_synthesis({"original_prompt": "q", "problem_type": "analytical"})))
    (ranked,) = ours(spans)["swarm_handoff.rank"]
    assert ranked.attributes["swarm_handoff.candidates"] == len(records)
    assert isinstance(ranked.attributes["swarm_handoff.scorer"], str)


def test_the_callers_traceparent_is_the_parent_and_travels_in_the_payload(world, spans, monkeypatch):
    monkeypatch.setenv("TRACEPARENT", PARENT)
    monkeypatch.setenv("TRACESTATE", "vendor=abc")
    result = hand_off(HandoffOptions(target="beta", synthesis=world["synthesis"], session=world["session"]))
    (handoff,) = ours(spans)["swarm_handoff.handoff"]
    assert format(handoff.context.trace_id, "032x") == PARENT.split("-")[1]
    assert format(handoff.parent.span_id, "016x") == PARENT.split("-")[2]
    tags = json.loads(Path(result.payload_path).read_text(encoding="utf-8"))["handoff"]["tracing"]["tags"]
    assert tags == {"traceparent": PARENT, "tracestate": "vendor=abc"}


def test_a_current_span_is_the_parent_and_its_context_travels_in_the_payload(world, spans):
    with trace.get_tracer("an-agent").start_as_current_span("plan") as caller:
        result = hand_off(HandoffOptions(target="beta", synthesis=world["synthesis"], session=world["session"]))
    (handoff,) = ours(spans)["swarm_handoff.handoff"]
    assert handoff.parent.span_id == caller.get_span_context().span_id
    tags = json.loads(Path(result.payload_path).read_text(encoding="utf-8"))["handoff"]["tracing"]["tags"]
    context = caller.get_span_context()
    assert tags["traceparent"] == f"00-{context.trace_id:032x}-{context.span_id:016x}-{context.trace_flags:02x}"


def test_without_opentelemetry_loaded_nothing_is_traced(world, spans, monkeypatch):
    monkeypatch.delitem(sys.modules, "opentelemetry.trace")
    monkeypatch.setenv("TRACEPARENT", PARENT)
    with tracing.trace_span("swarm_handoff.discover") as current:
        assert current is None
    result = hand_off(HandoffOptions(target="beta", synthesis=world["synthesis"], session=world["session"]))
    assert ours(spans) == {}
    tags = json.loads(Path(result.payload_path).read_text(encoding="utf-8"))["handoff"]["tracing"]["tags"]
    assert tags == {"traceparent": PARENT}  # as the caller gave it


def test_each_tracing_helper_has_one_name_the_core_and_plugins_share():
    """No alias: the core and plugins (through the api) call a helper by the same name."""
    import inspect

    from swarm_handoff import api

    helpers = {name: value for name, value in vars(tracing).items() if inspect.isfunction(value)}
    assert all(value.__name__ == name for name, value in helpers.items()), helpers
    assert api.trace_span is tracing.trace_span
    assert api.trace_context is tracing.trace_context
