"""Hook implementations: register the `text` and `xml` formatters (built on first use)."""

from __future__ import annotations

from typing import Any

from swarm_handoff.api import Register, hookimpl


def _xml() -> Any:
    from swarm_handoff_formatters.xml import XmlFormatter

    return XmlFormatter()


def _text() -> Any:
    from swarm_handoff_formatters.text import TextFormatter

    return TextFormatter()


@hookimpl
def swarm_handoff_formatters(register: Register) -> None:
    """Offer `text` for people and `xml` for agents that act on structured output."""
    register("text", _text, summary="readable plain text for people")
    register("xml", _xml, summary="well-formed XML for agents; every value escaped")
