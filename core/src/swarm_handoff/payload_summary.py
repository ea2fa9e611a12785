"""`payload-summary`: a short, format-neutral overview of any hand-off payload.

The payload schemas (v2.0, v3.0) are defined elsewhere; a summary only needs the payload as
plain data, so it works for every version and for payloads a schema rejects. It records the
version the payload claims, its canonical size and sha256 (sorted, compact JSON: the same bytes
whatever the key order), and one line per top-level section.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

PREVIEW_CHARS = 80
_VERSION_KEYS = ("protocol_version", "schema_version", "version")


def _preview(value: Any) -> tuple[str, int | None, str]:
    """Return (type, count, preview) for one section's value."""
    if isinstance(value, Mapping):
        keys = ", ".join(str(k) for k in value)
        return "mapping", len(value), _clip(keys)
    if isinstance(value, (list, tuple)):
        return "list", len(value), _clip("; ".join(str(v) for v in value[:3]))
    if value is None:
        return "null", None, ""
    return type(value).__name__, None, _clip(str(value))


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 3] + "..."


@attrs.frozen
class PayloadSection:
    """One top-level key of a payload: its type, how many entries it holds, and a preview."""

    name: str
    type: str
    count: int | None
    preview: str

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {"name": self.name, "type": self.type, "count": self.count, "preview": self.preview}


@attrs.frozen
class PayloadSummary:
    """What a person or an agent needs to recognise a payload without reading all of it."""

    kind: ClassVar[str] = "payload-summary"
    sections: tuple[PayloadSection, ...]
    size_bytes: int
    sha256: str
    version: str | None = None
    path: str | None = None

    @classmethod
    def of(cls, payload: Mapping[str, Any], *, path: str | None = None) -> PayloadSummary:
        """Summarise `payload` (plain data, e.g. a loaded YAML mapping or a document's `to_data()`)."""
        canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
        # surrogatepass: a lone surrogate (possible in data built in Python) must not crash a summary
        raw = canonical.encode("utf-8", "surrogatepass")
        version = next((str(payload[k]) for k in _VERSION_KEYS if payload.get(k) is not None), None)
        sections = tuple(PayloadSection(str(name), *_preview(value)) for name, value in payload.items())
        return cls(sections, len(raw), hashlib.sha256(raw).hexdigest(), version, path)

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {
            "path": self.path,
            "version": self.version,
            "size_bytes": self.size_bytes,
            "sha256": self.sha256,
            "sections": [s.to_data() for s in self.sections],
        }
