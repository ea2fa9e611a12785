"""The core's own formatters, `text`, `json` and `yaml`, registered through the formatter hook."""

from __future__ import annotations

import io
from typing import Any

from swarm_handoff.components import Document, Formatter, Register
from swarm_handoff.hookspecs import hookimpl
from swarm_handoff.termsafe import escape_undecodable
from swarm_handoff.textviews import TextFormatter


class YamlFormatter:
    """YAML for people who keep results in files next to their skills and payloads."""

    def render(self, document: Document) -> str:
        """Serialise `document.to_data()` as block-style YAML that YAML 1.1 readers read the same."""
        from swarm_handoff.yamlout import portable_yaml  # deferred: ruamel.yaml (docs/architecture.md)

        yaml = portable_yaml("rt")  # the round-trip dumper keeps the document's key order
        stream = io.StringIO()
        yaml.dump(_plain(document.to_data()), stream)
        return stream.getvalue()


def _plain(value: Any) -> Any:
    """Turn tuples and other sequences into lists so the safe dumper accepts them.

    YAML cannot carry a lone surrogate (an undecodable byte of a file name), not even escaped: it
    is written as the text `\xff`, as in every format (`termsafe.escape_undecodable`).
    """
    if isinstance(value, dict):
        return {escape_undecodable(str(k)): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return escape_undecodable(value)
    return value


def _json() -> Formatter:
    from swarm_handoff.jsonout import JsonFormatter  # deferred: the json module and its escape pattern

    return JsonFormatter()


@hookimpl
def swarm_handoff_formatters(register: Register) -> None:
    """Offer `text` (every layout is the core's), `json` and `yaml`; `xml` comes from swarm-handoff-formatters."""
    register("json", _json, summary="one JSON document on stdout")
    register("yaml", YamlFormatter, summary="the same document as YAML")
    register("text", TextFormatter, summary="readable plain text for people")
