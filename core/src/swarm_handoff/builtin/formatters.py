"""The core's own formatters, `json` and `yaml`, registered through the formatter hook."""

from __future__ import annotations

import io
import json
from typing import Any

from swarm_handoff import hookimpl
from swarm_handoff.components import Document, Register


class JsonFormatter:
    """Exactly one JSON document per command, so `| jq` and agents can rely on stdout."""

    def render(self, document: Document) -> str:
        """Serialise `document.to_data()` with stable indentation and real Unicode."""
        return json.dumps(document.to_data(), indent=2, ensure_ascii=False, default=str) + "\n"


class YamlFormatter:
    """YAML for people who keep results in files next to their skills and payloads."""

    def render(self, document: Document) -> str:
        """Serialise `document.to_data()` as block-style YAML that YAML 1.1 readers read the same."""
        from swarm_handoff.yamlout import portable_yaml  # deferred: ruamel costs ~35 ms to import

        yaml = portable_yaml("rt")  # the round-trip dumper keeps the document's key order
        stream = io.StringIO()
        yaml.dump(_plain(document.to_data()), stream)
        return stream.getvalue()


def _plain(value: Any) -> Any:
    """Turn tuples and other sequences into lists so the safe dumper accepts them."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@hookimpl
def swarm_handoff_formatters(register: Register) -> None:
    """Offer `json` and `yaml`; `text` and `xml` come from swarm-handoff-formatters."""
    register("json", JsonFormatter, summary="one JSON document on stdout")
    register("yaml", YamlFormatter, summary="the same document as YAML")
