"""What a test needs to see spans: one in-memory exporter on the process's tracer provider.

OpenTelemetry lets a process set its tracer provider once, so every suite that checks spans in
the same process (the core's, the MCP server's, the A2A plugin's under `nox -s all`) shares this
one exporter instead of each adding its own. The SDK is imported only when the fixture runs:
loading the testing kit costs nothing, and a suite without the SDK skips with the reason.
"""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["spans"]

_EXPORTER: list[Any] = []  # the one exporter of this process, made on first use


@pytest.fixture
def spans() -> Any:
    """The in-memory span exporter, emptied: what the test's code traced, and nothing from before."""
    pytest.importorskip("opentelemetry.sdk", reason="the OpenTelemetry SDK is absent (pip install opentelemetry-sdk)")
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    if not _EXPORTER:
        provider = trace.get_tracer_provider()
        if not isinstance(provider, TracerProvider):  # set once per process: OpenTelemetry allows no second one
            provider = TracerProvider()
            trace.set_tracer_provider(provider)
        exporter = InMemorySpanExporter()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        _EXPORTER.append(exporter)
    _EXPORTER[0].clear()
    return _EXPORTER[0]
