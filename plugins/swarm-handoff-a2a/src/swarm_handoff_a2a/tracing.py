"""Spans for send, receive, verify and ack, with the OpenTelemetry API when it is installed (else nothing).

Without the API every call here is a no-op; with the API but no SDK configured, OpenTelemetry's own
no-op tracer answers. One chain is one trace across hosts: a span's parent is, in this order, the
W3C `traceparent` that came with the message (A2A message metadata), the one the payload states
(`handoff.tracing.tags.traceparent`), the span current in this process, or else the chain itself:
the payload's `trace_id` (a UUID: 32 hex digits, a valid W3C trace id) with its span id (the first
16 hex digits of its `payload_hash`). Attribute names follow OpenTelemetry's GenAI conventions
where they name one (`gen_ai.operation.name`, `gen_ai.agent.name`); the rest are `swarm_handoff.*`.
Every span is started by the core's one helper (`swarm_handoff.api.trace_span`), so the core's
discover, rank and hand-off spans and these are one tracer's; loading the API here is what makes
an A2A host a process "in use" for it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from swarm_handoff.api import TRACEPARENT, trace_context, trace_span


def _otel() -> Any:
    try:
        from opentelemetry import trace
    except ImportError:  # the optional dependency is absent: spans are skipped
        return None
    return trace


def chain_traceparent(payload: Mapping[str, Any]) -> str | None:
    """The traceparent a payload stands for: its stated one, else its trace id and span id; None if neither."""
    handoff = payload.get("handoff") if isinstance(payload, Mapping) else None
    if not isinstance(handoff, Mapping):
        return None
    tracing = handoff.get("tracing")
    tags = tracing.get("tags") if isinstance(tracing, Mapping) else None
    stated = tags.get("traceparent") if isinstance(tags, Mapping) else None
    if isinstance(stated, str) and TRACEPARENT.match(stated):
        return stated
    trace_id = str(handoff.get("trace_id", "")).replace("-", "").lower()
    meta = handoff.get("meta")
    digest = meta.get("payload_hash") if isinstance(meta, Mapping) else None
    span = str(digest).removeprefix("sha256:")[:16] if isinstance(digest, str) else ""
    derived = f"00-{trace_id}-{span}-01"
    return derived if TRACEPARENT.match(derived) else None


@contextmanager
def span(name: str, attributes: Mapping[str, Any] | None = None, *, parent: str | None = None) -> Iterator[Any]:
    """A span named `name` (child of `parent`, a W3C traceparent, when given; else of the current span)."""
    if _otel() is None:
        yield None
        return
    with trace_span(name, attributes, parent=parent if parent and TRACEPARENT.match(parent) else None) as now:
        yield now


def current_traceparent() -> str | None:
    """The W3C traceparent of the current span, to send along; None without OpenTelemetry or a valid span."""
    if _otel() is None:
        return None
    value = trace_context({}).get("traceparent")  # no environment: only a span current here counts
    return value if value and TRACEPARENT.match(value) else None


def mark_error(current: Any, code: str, message: str) -> None:
    """Say on a span that its operation was refused (the swarm-handoff code as the error type)."""
    if current is None:
        return
    trace = _otel()
    if trace is None:
        return
    current.set_attribute("error.type", code)
    current.set_status(trace.Status(trace.StatusCode.ERROR, message[:500]))
