"""Unsigned hops: a chain remembers every hop that continued from a payload without a signature.

The signature (`signing.py`) is outside the hashed bytes, so deleting `meta.signature` needs no
re-hash: whoever can write a signed payload can strip the signature, edit the content and seal it
again. A hop that continued from such a payload and then signed its own would launder the edit:
its payload is correctly signed. So the next payload says so, in a place every later hop carries
on and the signature covers:

* v3.0: the tracing tag `unsigned_hops` (the schema's `tracing.tags`, text values): the names of
  the skills that continued from an unsigned payload, comma-separated, oldest first (v3.0 skill
  names never hold a comma). The budget never drops it (`build3._trim_tracing` keeps the tags).
* v2.0: `meta.unsigned_hops`, a list of the same names (v2.0's `meta` is open).

`verify --require-signature` and every reader that requires a signature refuse a payload with
any unsigned hop (`UNSIGNED_HOP_IN_CHAIN`): a signature on the last hop vouches only for that hop.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from swarm_handoff.payload.canonical import seal
from swarm_handoff.payload.signing import ABSENT, SIGNATURE_INVALID, read_key

UNSIGNED_TAG = "unsigned_hops"  # v3.0: tracing.tags.unsigned_hops
UNSIGNED_META = "unsigned_hops"  # v2.0: meta.unsigned_hops
UNSIGNED_HOP_IN_CHAIN = "UNSIGNED_HOP_IN_CHAIN"
ABSENT_BUT_REQUIRED = "meta.signature is absent, and a signature is required"
MAX_HOPS_READ = 64  # more than any chain may have (CHAIN_MAX); a longer list is read as its first 64


def _mapping(data: Any, key: str) -> Mapping[str, Any]:
    value = data.get(key) if isinstance(data, Mapping) else None
    return value if isinstance(value, Mapping) else {}


def unsigned_hops(payload: Mapping[str, Any]) -> tuple[str, ...]:
    """The skills that continued this payload's chain from an unsigned payload, oldest first."""
    handoff = _mapping(payload, "handoff")
    tag = _mapping(_mapping(handoff, "tracing"), "tags").get(UNSIGNED_TAG)
    found: list[str] = []
    if isinstance(tag, str):
        found += [name.strip() for name in tag.split(",") if name.strip()]
    listed = _mapping(handoff, "meta").get(UNSIGNED_META)
    if isinstance(listed, list):
        found += [str(name) for name in listed[:MAX_HOPS_READ]]
    elif listed is not None:  # a value of another shape still says "something was unsigned"
        found.append(str(listed)[:200])
    return tuple(found[:MAX_HOPS_READ])


def mark_unsigned(payload: dict[str, Any], hops: tuple[str, ...]) -> None:
    """Record `hops` in `payload` (in place) where its version keeps them; the caller seals again."""
    if not hops:
        return
    handoff = payload["handoff"]
    if str(handoff.get("version")) == "3.0":
        tracing = handoff.setdefault("tracing", {})
        tags = tracing.setdefault("tags", {})
        tags[UNSIGNED_TAG] = ",".join(hops)
        handoff.get("meta", {}).pop(UNSIGNED_META, None)
    else:
        handoff.setdefault("meta", {})[UNSIGNED_META] = list(hops)


def carried_over(original: Mapping[str, Any], converted: dict[str, Any]) -> dict[str, Any]:
    """`converted` (another version of `original`) with `original`'s unsigned hops where its version keeps them.

    A conversion moves the record between v3.0's tracing tag and v2.0's meta and never drops it; the
    result is sealed again. `converted` itself, untouched, when `original` records no unsigned hop.
    """
    hops = unsigned_hops(original)
    if not hops:
        return converted
    import copy

    marked = copy.deepcopy(converted)
    mark_unsigned(marked, hops)
    return seal(marked)


def unsigned_problem(hops: tuple[str, ...], what: str) -> str:
    """The sentence naming the unsigned hops of `what` (a file, or "the received payload")."""
    shown = ", ".join(hops[:10]) + (f" and {len(hops) - 10} more" if len(hops) > 10 else "")
    return (
        f"{what} continues a chain in which {shown} handed on a payload received without a signature "
        "(recorded in tracing.tags.unsigned_hops or meta.unsigned_hops): its signature vouches only for the last hop"
    )


def unsigned_refusal(signature: str, hops: tuple[str, ...], what: str) -> tuple[str, str] | None:
    """(code, why) when a reader that requires a signature refuses: none at all, or an unsigned hop before.

    `signature` is the payload's signature verdict (`signing.ABSENT`, ...), `hops` its `unsigned_hops`;
    None when neither holds. A reader with a code of its own (a received payload's) keeps only `why`.
    """
    if signature == ABSENT:
        return SIGNATURE_INVALID, ABSENT_BUT_REQUIRED
    if hops:
        return UNSIGNED_HOP_IN_CHAIN, unsigned_problem(hops, what)
    return None


def signature_required(config: Path, given: bool | None) -> bool:
    """Whether a reader requires a signature: as given, else whenever this user has a signing key."""
    if given is not None:
        return given

    return read_key(config) is not None
