"""`verify`: does a payload file still say what was written, and is it still fresh?

Integrity is the canonical hash and size (see `canonical.py`), the checksums of the files the
payload references (see `integrity.py`) and, when present, the keyed signature (see `signing.py`);
freshness is `expires_at`. All are checked together so one report answers "can the target trust
this file now". The signature is reported as `valid`, `invalid` or `absent`; invalid fails.
`require_intact` is the same gate for `ack`: only a payload that verifies is acknowledged.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from swarm_handoff.configdir import config_dir
from swarm_handoff.errors import ErrorCode, SwarmError
from swarm_handoff.inputs import ref, spell_error, surface_spelling, switched_off
from swarm_handoff.operations import CLI
from swarm_handoff.payload.integrity import INTEGRITY_MISMATCH, examine, untrusted_hint
from swarm_handoff.payload.schema import parse_time, version_of
from swarm_handoff.payload.signing import ABSENT, INVALID
from swarm_handoff.payload.unsigned import (
    ABSENT_BUT_REQUIRED,
    UNSIGNED_HOP_IN_CHAIN,
    signature_required,
    unsigned_hops,
    unsigned_problem,
    unsigned_refusal,
)
from swarm_handoff.payload.validate import read_payload, validate_payload
from swarm_handoff.termsafe import shown

if TYPE_CHECKING:
    from swarm_handoff.plugins import PluginHost

PAYLOAD_EXPIRED = "PAYLOAD_EXPIRED"
SIGNATURE_INVALID = "SIGNATURE_INVALID"
DEFAULT_EXPIRY = dt.timedelta(hours=1)  # handoff-schema-v2's default for an absent `expires_at`


def _stamp(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@attrs.frozen(kw_only=True)
class VerifyReport:
    """The `verify` document: integrity and expiry of one payload file."""

    kind: ClassVar[str] = "verification"
    path: str
    version: str | None
    payload_hash: Any
    computed_hash: str
    payload_size_bytes: Any
    computed_size: int
    expires_at: Any
    expired: bool
    expires_at_default: bool = False  # True: absent from the payload, so timestamp + 1 h (the seed's default)
    checked_at: str
    mismatches: tuple[str, ...] = ()
    signature: str = "absent"
    files: tuple[Any, ...] = ()
    unsigned_hops: tuple[str, ...] = ()  # skills that continued the chain from an unsigned payload (unsigned.py)

    @property
    def ok(self) -> bool:
        """True when hash, size, referenced files and any signature match and the payload has not expired."""
        return not self.mismatches and not self.expired

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        data = attrs.asdict(self, recurse=False)
        return {
            **data,
            "mismatches": list(self.mismatches),
            "files": [f.to_data() for f in self.files],
            "unsigned_hops": list(self.unsigned_hops),
            "ok": self.ok,
        }


def verify_file(
    path: Path,
    now: dt.datetime | None = None,
    *,
    config: Path | None = None,
    require_signature: bool = False,
    host: PluginHost | None = None,
    surface: str = CLI,
) -> VerifyReport:
    """Check a payload file's integrity, signature and expiry; raise the structured error when any fails.

    `require_signature` makes an absent signature a failure: a signature is optional, so whoever
    strips it and recomputes the hash is only caught by a reader that insists on one. A refusal
    names that input neutrally (`require_signature`, in `details.inputs`), spelt for `surface`.
    """
    text, payload = read_payload(path)
    handoff = payload.get("handoff") if isinstance(payload, dict) else None
    if not isinstance(handoff, dict):
        raise SwarmError(
            ErrorCode.INVALID_PAYLOAD,
            f"{path} is not a hand-off payload (no handoff: mapping)",
            details={"missing_fields": ["handoff"], "validation_errors": []},
        )
    report = validate_payload(payload, host, path=str(path))  # before anything is hashed
    if not report.valid:
        raise report.to_error()
    findings = examine(payload, path, config or config_dir(), text=text)
    integrity = findings.integrity
    moment = now or dt.datetime.now(dt.timezone.utc)
    expires_raw = handoff.get("expires_at")
    expires = parse_time(expires_raw)
    defaulted = False
    if expires_raw is None:  # the seed's default: `expires_at` absent means timestamp + 1 hour
        created = parse_time(handoff.get("timestamp"))
        if created is not None:
            expires, defaulted = created + DEFAULT_EXPIRY, True
    mismatches = findings.problems
    unsigned = require_signature and findings.signature.status == ABSENT
    if unsigned:
        mismatches.append(f"{ABSENT_BUT_REQUIRED} ({ref('require_signature')})")
    hops = unsigned_hops(payload)
    laundered = require_signature and bool(hops)
    if laundered:
        mismatches.append(
            unsigned_problem(hops, "the payload") + f" (a signature is required: {ref('require_signature')})"
        )
    if expires_raw is not None and expires is None:
        mismatches.append(f"expires_at {shown(expires_raw)} is not an ISO 8601 time")
    verdict = VerifyReport(
        path=str(path),
        version=version_of(payload),
        payload_hash=integrity.stated_hash,
        computed_hash=integrity.computed_hash,
        payload_size_bytes=integrity.stated_size,
        computed_size=integrity.computed_size,
        expires_at=_stamp(expires) if defaulted and expires is not None else expires_raw,
        expires_at_default=defaulted,
        expired=expires is not None and expires <= moment,
        checked_at=moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
        mismatches=tuple(mismatches),
        signature=findings.signature.status,
        files=findings.files,
        unsigned_hops=hops,
    )
    if verdict.ok:
        return verdict
    problems = [*mismatches]
    if verdict.expired:
        how = " (no expires_at: timestamp + 1 h, the default)" if defaulted else ""
        problems.append(f"expired at {verdict.expires_at}{how} (checked at {verdict.checked_at})")
    bad_signature = findings.signature.status == INVALID and findings.signature.reason in mismatches
    about_signature = int(bad_signature) + int(unsigned) + int(laundered)  # the signature's problems only
    if mismatches and len(mismatches) == about_signature:
        code = UNSIGNED_HOP_IN_CHAIN if about_signature == 1 and laundered else SIGNATURE_INVALID
    else:
        code = INTEGRITY_MISMATCH if mismatches else PAYLOAD_EXPIRED
    error = SwarmError(
        code,
        f"{path}: " + "; ".join(problems),
        details={"missing_fields": [], "validation_errors": problems, "verification": verdict.to_data()},
        hint=untrusted_hint(findings, "rebuild it with `swarm-handoff handoff`")
        if mismatches
        else "the payload is stale: hand off again to get a fresh one",
        recoverable=not mismatches,
    )
    raise spell_error(error, surface_spelling(surface, "verify"))


ACK_UNVERIFIABLE = "ACK_UNVERIFIABLE"


def require_intact(
    path: Path,
    data: Any,
    config: Path,
    *,
    require_signature: bool | None = None,
    host: PluginHost | None = None,
    surface: str = CLI,
) -> None:
    """Refuse to record an acknowledgment for a payload that cannot be shown to be what was handed off.

    An acknowledgment feeds the history that rankers score by, so only a payload that verifies
    counts: one that fails a check, one that states no hash (nothing to verify), and, when a
    signature is required (`require_signature`; None: whenever this user has a signing key), one
    without a signature or whose chain went through an unsigned hop. Expiry does not matter here.
    The refusal names `require_signature` neutrally, spelt for `surface`.
    """
    report = validate_payload(data, host, path=str(path))  # as verify: the shape first, then any hashing
    if not report.valid:
        raise report.to_error()
    findings = examine(data, path, config)
    handoff = data.get("handoff") if isinstance(data, Mapping) else None
    expires = handoff.get("expires_at") if isinstance(handoff, Mapping) else None
    why = None
    if findings.status == "absent":
        why = "it states no meta.payload_hash and meta.payload_size_bytes, so it cannot be verified"
    elif expires is not None and parse_time(expires) is None:
        why = f"its expires_at {shown(expires)} is not an ISO 8601 time, so it cannot be verified"
    if why is not None:
        raise SwarmError(
            ACK_UNVERIFIABLE,
            f"{path}: not acknowledged: {why}",
            details={"missing_fields": [], "validation_errors": [why]},
            hint="acknowledge only a payload `swarm-handoff verify` accepts, as `swarm-handoff handoff` writes them",
            recoverable=False,
        )
    problems = findings.problems
    if problems:
        raise SwarmError(
            INTEGRITY_MISMATCH,
            f"{path}: not acknowledged, the payload fails its integrity check: " + "; ".join(problems),
            details={"missing_fields": [], "validation_errors": problems},
            hint=untrusted_hint(findings, "run `swarm-handoff verify` and hand off again"),
            recoverable=False,
        )
    refusal = unsigned_refusal(findings.signature.status, unsigned_hops(data), "it")
    if refusal is None or not signature_required(config, require_signature):
        return
    code, why = refusal
    error = SwarmError(
        code,
        f"{path}: not acknowledged: {why}",
        details={"missing_fields": [], "validation_errors": [why]},
        hint="ask the sender to hand off again with --sign; to acknowledge it anyway, pass "
        + switched_off("require_signature"),
        recoverable=False,
    )
    raise spell_error(error, surface_spelling(surface, "ack"))
