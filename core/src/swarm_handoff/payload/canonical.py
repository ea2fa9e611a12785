"""The canonical form of a payload, and the integrity fields computed over it.

A payload is hashed as data, not as text, so that re-serialising it (YAML <-> JSON), reordering its
keys or reformatting its YAML keeps the hash, while any change to any value breaks it:

1. take the whole document (the top-level mapping, usually `{"handoff": {...}}`); every key is
   text (the loaders refuse others with KEY_NOT_TEXT, and so does this module), so `1` and `'1'`
   can never be two keys that serialise alike, and values keep their JSON types (`1`, `"1"`,
   `true` and `1.0` all differ);
2. remove `meta.payload_hash`, `meta.payload_size_bytes` and `meta.signature` under the `handoff`
   mapping (the `meta` mapping itself stays, even when that leaves it empty);
3. turn `datetime`/`date` values into ISO 8601 text (UTC as `Z`), the form the writer uses, so a
   time that a YAML loader turned into an object hashes like the quoted string it came from;
4. serialise as JSON with keys sorted, no whitespace (`,` and `:` separators), non-ASCII kept as
   is, and encode as UTF-8.

`payload_hash` is `sha256:` plus the hex digest of those bytes; `payload_size_bytes` is their count;
the optional `meta.signature` is an HMAC over the same bytes (see `signing.py`). Files the payload
depends on (the v3.0 side file) are covered through the `checksum` recorded next to their path in
the payload (see `integrity.py`), which is part of these bytes.

Choosing to refuse non-text keys rather than to change the form keeps every payload written so far
verifying with the hash it states.
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import json
from collections.abc import Mapping
from typing import Any

import attrs

from swarm_handoff.termsafe import shown

HASH_PREFIX = "sha256:"
HASH_PATTERN = r"^sha256:[a-f0-9]{64}$"  # what `payload_hash` and a side file's checksum look like
INTEGRITY_FIELDS = ("payload_hash", "payload_size_bytes")
SIGNATURE_FIELD = "signature"


class NotCanonical(ValueError):
    """Data that has no canonical form: a key that is not text, or bytes."""


def iso_time(value: dt.datetime | dt.date) -> str:
    """Render a time the way payloads store it: ISO 8601, UTC written as `Z`."""
    if isinstance(value, dt.datetime):
        text = value.isoformat()
        if value.utcoffset() == dt.timedelta(0):
            text = text[: -len("+00:00")] + "Z" if text.endswith("+00:00") else text
        return text
    return value.isoformat()


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        for key in value:
            if not isinstance(key, str):  # str(1) == "1": two different payloads would hash alike
                raise NotCanonical(f"the key {shown(key)} is a {type(key).__name__}, not text")
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (dt.datetime, dt.date)):
        return iso_time(value)
    if isinstance(value, (bytes, bytearray)):  # the loaders refuse !!binary; no text form may collide
        raise NotCanonical("binary data has no canonical form")
    return value


def strip_integrity(payload: Mapping[str, Any]) -> Any:
    """Return plain data of `payload` without the integrity and signature fields (step 2 of the form)."""
    data = _plain(payload)
    handoff = data.get("handoff") if isinstance(data, dict) else None
    meta = handoff.get("meta") if isinstance(handoff, dict) else None
    if isinstance(meta, dict):
        for name in (*INTEGRITY_FIELDS, SIGNATURE_FIELD):
            meta.pop(name, None)
    return data


def canonical_bytes(payload: Mapping[str, Any]) -> bytes:
    """Serialise `payload` in the canonical form the hash and size are computed over."""
    data = strip_integrity(payload)
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=True)
    return text.encode("utf-8", "surrogatepass")


def payload_hash(payload: Mapping[str, Any]) -> str:
    """Compute `sha256:<hex>` over the canonical form."""
    return HASH_PREFIX + hashlib.sha256(canonical_bytes(payload)).hexdigest()


def payload_size_bytes(payload: Mapping[str, Any]) -> int:
    """Count the bytes of the canonical form (what the hash covers)."""
    return len(canonical_bytes(payload))


def seal(payload: Mapping[str, Any]) -> dict[str, Any]:
    """Return a copy of `payload` with `meta.payload_hash` and `meta.payload_size_bytes` filled in."""
    sealed: dict[str, Any] = copy.deepcopy(dict(payload))
    handoff = sealed.setdefault("handoff", {})
    meta = handoff.setdefault("meta", {}) if isinstance(handoff, dict) else None
    if not isinstance(meta, dict):
        raise ValueError("only a payload whose handoff and handoff.meta are mappings can be sealed")
    data = canonical_bytes(sealed)
    meta["payload_hash"] = HASH_PREFIX + hashlib.sha256(data).hexdigest()
    meta["payload_size_bytes"] = len(data)
    return sealed


@attrs.frozen
class Integrity:
    """What `check_integrity` found: the stated and computed values, and whether they agree."""

    stated_hash: Any
    computed_hash: str
    stated_size: Any
    computed_size: int

    @property
    def ok(self) -> bool:
        """True only when both the hash and the size are stated and match."""
        return not self.mismatches()

    def mismatches(self) -> list[str]:
        """Name each integrity field that is missing or wrong, in words a user can act on."""
        found = []
        if self.stated_hash is None:
            found.append("meta.payload_hash is missing")
        elif self.stated_hash != self.computed_hash:
            found.append(
                f"meta.payload_hash is {shown(self.stated_hash)} but the content hashes to {self.computed_hash!r}"
            )
        if self.stated_size is None:
            found.append("meta.payload_size_bytes is missing")
        elif type(self.stated_size) is not int or self.stated_size != self.computed_size:
            found.append(
                f"meta.payload_size_bytes is {shown(self.stated_size)} but the content is {self.computed_size} bytes"
            )
        return found


def check_integrity(payload: Mapping[str, Any]) -> Integrity:
    """Recompute the integrity fields of `payload` and compare them with what it states."""
    handoff = payload.get("handoff") if isinstance(payload, Mapping) else None
    meta = handoff.get("meta") if isinstance(handoff, Mapping) else None
    meta = meta if isinstance(meta, Mapping) else {}
    data = canonical_bytes(payload)
    return Integrity(
        stated_hash=meta.get("payload_hash"),
        computed_hash=HASH_PREFIX + hashlib.sha256(data).hexdigest(),
        stated_size=meta.get("payload_size_bytes"),
        computed_size=len(data),
    )


SPAN_DIGITS = 16  # a span id: the first 16 hex digits of a payload's `payload_hash`


def span_from_hash(payload_hash: Any) -> str | None:
    """The span id a `payload_hash` gives (what the next hop names as its parent); None when it is not a sha256."""
    if not isinstance(payload_hash, str) or not payload_hash.startswith("sha256:"):
        return None
    return payload_hash[len("sha256:") :][:SPAN_DIGITS]
