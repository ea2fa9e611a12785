"""Optional keyed signatures: catch someone who edits a payload and recomputes its hash.

The hash (`canonical.py`) only proves that a payload is what its own `meta.payload_hash` says;
anyone who can write the file can recompute it. `handoff --sign` adds `meta.signature`, an
HMAC-SHA256 over the same canonical bytes the hash covers (side files included, through their
recorded checksums), keyed with a secret that lives only in the user's config folder:
`<config>/swarm-handoff/signing.key`, 32 random bytes written as hex, mode 0600, created on first
use. The signature reads `hmac-sha256:<key id>:<hex mac>`; the key id (a hash of the key, not the
key) tells "signed with another key" from "changed after signing".

The key is created in a temporary file (O_EXCL) and published with `link()`, which fails when the
name exists: two first uses at once both end up reading the one key that won, and nobody ever
reads a half-written key. HMAC is symmetric: only holders of the key can sign *and* check, so a
signature means "written by someone with this user's key" (the same user, or a machine that was
given the key), not "written by a given person".
"""

from __future__ import annotations

import copy
import errno
import hashlib
import hmac
import os
import secrets
import stat
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from swarm_handoff.errors import SwarmError
from swarm_handoff.payload.canonical import SIGNATURE_FIELD, canonical_bytes
from swarm_handoff.termsafe import shown

ALGORITHM = "hmac-sha256"
KEY_FILE = "signing.key"
KEY_BYTES = 32
SIGNING_KEY_UNSAFE = "SIGNING_KEY_UNSAFE"
SIGNING_KEY_UNAVAILABLE = "SIGNING_KEY_UNAVAILABLE"
SIGNATURE_INVALID = "SIGNATURE_INVALID"
VALID, INVALID, ABSENT = "valid", "invalid", "absent"


def key_path(config: Path) -> Path:
    """Where the signing key lives: beside the tool's other per-user state, never in a session."""
    return config / "swarm-handoff" / KEY_FILE


def key_id(key: bytes) -> str:
    """A short public name for `key`, so a wrong key is told apart from a changed payload."""
    return hashlib.sha256(b"swarm-handoff signing key id\0" + key).hexdigest()[:16]


def _unsafe(path: Path, why: str) -> SwarmError:
    return SwarmError(
        SIGNING_KEY_UNSAFE,
        f"the signing key {path} {why}",
        # Said the same way on every interface: it tells when a key is made, not an input to give.
        hint=f"remove it (a new one is made the next time a payload is signed) or fix it: chmod 600 {path}",
        recoverable=True,
    )


def read_key(config: Path) -> bytes | None:
    """Read the key, or None when there is none; refuse one others could read, or not a plain file."""
    path = key_path(config)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    for _ in range(50):  # only the no-link fallback below can show a key being written
        try:
            fd = os.open(path, flags)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise _unsafe(path, "is a symbolic link") from None
            raise SwarmError(SIGNING_KEY_UNAVAILABLE, f"cannot read the signing key {path}: {exc.strerror}") from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise _unsafe(path, "is not a regular file")
            if hasattr(os, "getuid") and info.st_uid != os.getuid():
                raise _unsafe(path, "belongs to another user")
            if info.st_mode & 0o077:
                raise _unsafe(path, f"can be read by others (mode {stat.S_IMODE(info.st_mode):o})")
            raw = os.read(fd, 4 * KEY_BYTES)
        finally:
            os.close(fd)
        text = raw.decode("ascii", "replace").strip()
        if len(text) == 2 * KEY_BYTES:
            try:
                return bytes.fromhex(text)
            except ValueError:
                break
        if text:
            break
        time.sleep(0.01)
    raise _unsafe(path, f"does not hold {KEY_BYTES} bytes written as hex")


def _publish(folder: Path, path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{KEY_FILE}.", suffix=".tmp", dir=folder)  # O_EXCL, mode 0600
    try:
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(tmp, path)  # atomic and exclusive: fails when another first use won
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links: exclusive creation of the name itself
            try:
                out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
            except FileExistsError:
                return
            with os.fdopen(out, "w", encoding="ascii") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
    finally:
        Path(tmp).unlink(missing_ok=True)


def load_or_create_key(config: Path) -> bytes:
    """The user's signing key, made on first use (two first uses at once agree on one key)."""
    key = read_key(config)
    if key is not None:
        return key
    path = key_path(config)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        _publish(path.parent, path, secrets.token_hex(KEY_BYTES) + "\n")
    except OSError as exc:
        raise SwarmError(
            SIGNING_KEY_UNAVAILABLE,
            f"cannot create the signing key {path}: {exc.strerror or exc}",
            hint="check that the config folder is writable (CLAUDE_CONFIG_DIR, else ~/.claude)",
            recoverable=True,
        ) from None
    key = read_key(config)
    if key is None:
        raise SwarmError(SIGNING_KEY_UNAVAILABLE, f"the signing key {path} vanished while it was being created")
    return key


def signature_of(payload: Mapping[str, Any], key: bytes) -> str:
    """`hmac-sha256:<key id>:<mac>` over the payload's canonical bytes (what the hash covers)."""
    mac = hmac.new(key, canonical_bytes(payload), hashlib.sha256).hexdigest()
    return f"{ALGORITHM}:{key_id(key)}:{mac}"


def sign(payload: Mapping[str, Any], config: Path) -> dict[str, Any]:
    """Return a copy of `payload` with `meta.signature` set with the user's key (made if needed)."""
    key = load_or_create_key(config)
    signed: dict[str, Any] = copy.deepcopy(dict(payload))
    meta = signed["handoff"].setdefault("meta", {})
    meta[SIGNATURE_FIELD] = signature_of(signed, key)
    return signed


@attrs.frozen
class SignatureCheck:
    """The verdict on `meta.signature`: valid, invalid or absent, and why when invalid."""

    status: str
    reason: str | None = None
    other_key: bool = False  # invalid only because another key signed it (or no key is here to check it)


def check_signature(payload: Mapping[str, Any], config: Path) -> SignatureCheck:
    """Check `meta.signature` with the user's key; never creates a key."""
    handoff = payload.get("handoff")
    meta = handoff.get("meta") if isinstance(handoff, Mapping) else None
    stated = meta.get(SIGNATURE_FIELD) if isinstance(meta, Mapping) else None
    if stated is None:
        return SignatureCheck(ABSENT)
    parts = stated.split(":") if isinstance(stated, str) else []
    if len(parts) != 3 or parts[0] != ALGORITHM:
        return SignatureCheck(INVALID, f"meta.signature {shown(stated)} is not {ALGORITHM}:<key id>:<mac>")
    key = read_key(config)
    if key is None:
        return SignatureCheck(
            INVALID,
            f"meta.signature cannot be checked: there is no signing key at {key_path(config)}",
            other_key=True,
        )
    if parts[1] != key_id(key):
        return SignatureCheck(
            INVALID,
            f"meta.signature was made with another key (id {shown(parts[1])}, ours {key_id(key)})",
            other_key=True,
        )
    if not hmac.compare_digest(stated, signature_of(payload, key)):
        return SignatureCheck(INVALID, "meta.signature does not match the content: the payload changed after signing")
    return SignatureCheck(VALID)
