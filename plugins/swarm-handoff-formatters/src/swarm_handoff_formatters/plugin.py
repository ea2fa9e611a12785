"""Hook implementation: register the `xml` formatter (built on first use); `text` is the core's."""

from __future__ import annotations

from typing import Any

from swarm_handoff.api import Register, hookimpl


def _xml() -> Any:
    from swarm_handoff_formatters.xml_formatter import XmlFormatter

    return XmlFormatter()


@hookimpl
def swarm_handoff_formatters(register: Register) -> None:
    """Offer `xml` for agents that act on structured output (every text layout lives in the core)."""
    register("xml", _xml, summary="well-formed XML for agents; every value escaped")
