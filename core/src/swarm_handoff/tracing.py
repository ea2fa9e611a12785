"""Spans for discover, rank and hand-off: OpenTelemetry's, when this process already uses it; else nothing.

The OpenTelemetry API is an optional dependency, and this module never imports it. A span is
started only when `opentelemetry.trace` is already loaded: a tracer provider (an SDK) can only be
configured through that module, so a process that has not loaded it records nothing anyway, and
`--version` or a plain `discover` pays no import for it. The MCP server, an A2A host, an SDK set
up by the caller and `opentelemetry-instrument` all load it first; then every span here is the
API's (a no-op when no SDK is configured).

A span's parent is, in this order: the W3C `traceparent` given (a message's), the span current in
this process (the MCP server's span for a tool call continues the client's `_meta`), else the
`TRACEPARENT`/`TRACESTATE` environment variables (OpenTelemetry's carriers to a child process).
Attribute names are the OpenTelemetry GenAI conventions' where they name one; the rest are
`swarm_handoff.*`. Plugins start their spans with these same helpers, by the same names, through
`swarm_handoff.api` (`trace_span`, `trace_context`): one tracer, one place that starts spans.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

TRACER_NAME = "swarm_handoff"
TRACEPARENT_ENV = "TRACEPARENT"
TRACESTATE_ENV = "TRACESTATE"
# W3C trace context, version 00: the ids are lower-case hex and never all zeros.
TRACEPARENT = re.compile(r"00-(?!0{32})([0-9a-f]{32})-(?!0{16})([0-9a-f]{16})-([0-9a-f]{2})\Z")
MAX_TRACESTATE = 512  # the W3C recommendation: a vendor list longer than this may be cut


def _api() -> Any:
    """`opentelemetry.trace` when this process has loaded it; None otherwise (then nothing is traced)."""
    return sys.modules.get("opentelemetry.trace")


def _remote(trace: Any, traceparent: str, tracestate: str | None) -> Any:
    """An OpenTelemetry context whose current span is the remote parent `traceparent` names (None if invalid)."""
    found = TRACEPARENT.match(traceparent)
    if found is None:
        return None
    state = trace.TraceState.from_header([tracestate]) if tracestate and len(tracestate) <= MAX_TRACESTATE else None
    parent = trace.SpanContext(
        trace_id=int(found[1], 16),
        span_id=int(found[2], 16),
        is_remote=True,
        trace_flags=trace.TraceFlags(int(found[3], 16)),
        trace_state=state,
    )
    return trace.set_span_in_context(trace.NonRecordingSpan(parent))


def _parent(trace: Any, parent: str | None, env: Mapping[str, str] | None) -> Any:
    """The context a new span starts in: `parent`, else the current span, else the environment's carrier."""
    if parent:
        return _remote(trace, parent, None)
    if trace.get_current_span().get_span_context().is_valid:
        return None  # the current span is the parent
    carriers = os.environ if env is None else env
    given = carriers.get(TRACEPARENT_ENV)
    return _remote(trace, given, carriers.get(TRACESTATE_ENV)) if given else None


@contextmanager
def trace_span(
    name: str,
    attributes: Mapping[str, Any] | None = None,
    *,
    parent: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Iterator[Any]:
    """A span named `name` around the block, so one trace follows the work (yields None when not traced).

    `env` is where the caller's `TRACEPARENT` is read when no span is current (default: this
    process's environment). A `SwarmError` leaving the block sets `error.type` to its code.
    """
    trace = _api()
    if trace is None:
        yield None
        return
    clean = {k: v for k, v in (attributes or {}).items() if isinstance(v, (str, bool, int, float))}
    tracer = trace.get_tracer(TRACER_NAME)
    with tracer.start_as_current_span(name, context=_parent(trace, parent, env), attributes=clean) as current:
        try:
            yield current
        except Exception as exc:
            code = getattr(exc, "code", None)
            current.set_attribute("error.type", str(code) if code else type(exc).__qualname__)
            raise


def annotate(attributes: Mapping[str, Any]) -> None:
    """Add attributes to the current span (known only once the work is under way); a no-op when not traced."""
    trace = _api()
    if trace is None:
        return
    clean = {k: v for k, v in attributes.items() if isinstance(v, (str, bool, int, float))}
    trace.get_current_span().set_attributes(clean)


def trace_context(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The trace context a hand-off passes on: the current span's, else `TRACEPARENT`/`TRACESTATE` as given.

    Keys `traceparent` and (when there is one) `tracestate`, as a payload's `tracing.tags` and MCP
    `_meta` spell them; empty when there is neither. A `TRACEPARENT` that is not W3C is returned
    as given, for the caller to refuse with a note.
    """
    trace = _api()
    if trace is not None:
        current = trace.get_current_span().get_span_context()
        if current.is_valid:
            found = {"traceparent": f"00-{current.trace_id:032x}-{current.span_id:016x}-{current.trace_flags:02x}"}
            state = current.trace_state.to_header() if current.trace_state else ""
            if state:
                found["tracestate"] = state
            return found
    carriers = os.environ if env is None else env
    given = carriers.get(TRACEPARENT_ENV)
    if not given:
        return {}
    state = carriers.get(TRACESTATE_ENV, "")
    return {"traceparent": given, **({"tracestate": state} if state and len(state) <= MAX_TRACESTATE else {})}
