"""Everything that says a payload is what was written: hash and size, side-file checksums, signature.

A payload can depend on files beside it (the v3.0 `.session.json` side file that budgeting moves
session content into). Their bytes are not in the payload, so their sha256 is: the entry that
references a file carries `checksum: sha256:<hex>`, which is part of the canonical form, so the
payload hash (and the signature) covers the file too. `verify`, `validate` and `ack` recompute
every checksum a payload states, in `payload.references.files` and `payload.session.artifacts`.

A referenced path is read where the payload says (relative paths from `source.session_path`, else
from the payload's folder); when it is not there, a file of the same name beside the payload is
used, so a session folder that was moved as a whole still verifies.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from swarm_handoff.errors import SwarmError, working_directory
from swarm_handoff.payload.canonical import Integrity, check_integrity
from swarm_handoff.payload.io import dump_payload, parse_payload_text
from swarm_handoff.payload.schema import version_of
from swarm_handoff.payload.signing import INVALID, VALID, SignatureCheck, check_signature
from swarm_handoff.termsafe import shown
from swarm_handoff.textfile import read_text

INTEGRITY_MISMATCH = "INTEGRITY_MISMATCH"
INTEGRITY_ABSENT = "INTEGRITY_ABSENT"
CHECKSUM_PREFIX = "sha256:"
# A referenced file bigger than this is not read (it is reported as unchecked, which fails).
MAX_CHECKED_BYTES = 64 * 1024 * 1024
# One payload may not make a reader hash without end (issue 25): at most this many entries that state
# a checksum, and at most this many bytes over the distinct files they name (each file is hashed once,
# however often it is referenced). Both are checked before anything is hashed.
MAX_CHECKED_REFERENCES = 64
MAX_CHECKED_TOTAL_BYTES = 256 * 1024 * 1024
FILE_CHECKS_LIMIT = "PAYLOAD_FILE_CHECKS_LIMIT"


def text_checksum(text: str) -> str:
    """The checksum of a file that will be written as `text` (UTF-8), for its referencing entry."""
    return CHECKSUM_PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()


@attrs.define
class ReadBudget:
    """The bytes one payload's checks may still read; each file's bytes read are taken from it."""

    left: int


def file_checksum(path: Path, budget: ReadBudget | None = None) -> str:
    """sha256 of a regular file's bytes; OSError for anything else (a FIFO never blocks this).

    At most `min(st_size, budget.left)` bytes are read: a file that yields more than that (a `/proc`
    file states size 0 and can yield gigabytes) is an OSError, never hashed to its end.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path} is not a regular file")
        if info.st_size > MAX_CHECKED_BYTES:
            raise OSError(f"{path} is larger than {MAX_CHECKED_BYTES} bytes")
        wanted = min(info.st_size, budget.left if budget is not None else MAX_CHECKED_BYTES)
        digest = hashlib.sha256()
        left = wanted
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            digest.update(chunk)
            left -= len(chunk)
        if budget is not None:
            budget.left -= wanted - left
        if os.read(fd, 1):
            raise OSError(
                f"{path} holds more bytes than the {wanted} that are checked (its stated size, "
                "within the bound on checked bytes); it is not hashed"
            )
        return CHECKSUM_PREFIX + digest.hexdigest()
    finally:
        os.close(fd)


# Pseudo-file systems: their files state sizes that are not what they yield, or never end.
UNREAD_ROOTS = ("/proc", "/sys", "/dev")


def _unread_root(path: Path) -> str | None:
    """The pseudo-file-system root `path` resolves under, if any (such files are never read)."""
    resolved = os.path.realpath(path)
    for root in UNREAD_ROOTS:
        if resolved == root or resolved.startswith(root + "/"):
            return root
    return None


def _entries(payload: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """(field, path, stated checksum) for each referenced file that states a checksum (v3.0 only).

    Only v3.0 defines the tiers that reference files; in any other version `handoff.payload` is an
    extra field no reader uses, so the files it names are not read (its bytes are hashed as any text).
    """
    handoff = payload.get("handoff")
    tiers = handoff.get("payload") if isinstance(handoff, Mapping) else None
    found: list[tuple[str, Any, Any]] = []
    if not isinstance(tiers, Mapping) or version_of(payload) != "3.0":
        return found
    for section, key in (("references", "files"), ("session", "artifacts")):
        block = tiers.get(section)
        items = block.get(key) if isinstance(block, Mapping) else None
        for index, item in enumerate(items if isinstance(items, list) else []):
            if isinstance(item, Mapping) and "checksum" in item:
                found.append((f"payload.{section}.{key}[{index}]", item.get("path"), item.get("checksum")))
    return found


def locate(name: str, payload: Mapping[str, Any], payload_path: Path | None) -> Path:
    """Where a path a payload references is read: from `source.session_path`, else beside the payload."""
    path = Path(name)
    if not path.is_absolute():
        source = payload.get("handoff", {}).get("source")
        session = source.get("session_path") if isinstance(source, Mapping) else None
        base = Path(session) if isinstance(session, str) and Path(session).is_absolute() else None
        base = base or (payload_path.parent if payload_path else Path(working_directory()))
        path = base / path
    if not path.exists() and payload_path is not None and (payload_path.parent / path.name).exists():
        return payload_path.parent / path.name  # the session folder was moved as a whole
    return path


@attrs.frozen
class FileCheck:
    """One referenced file: where it was read, the checksum stated and the one computed."""

    field: str
    path: str
    stated: Any
    computed: str | None
    problem: str | None = None

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {**attrs.asdict(self), "ok": self.problem is None}


def _limit(payload_path: Path | None, message: str, hint: str) -> SwarmError:
    where = f"{payload_path}: " if payload_path is not None else ""
    return SwarmError(
        FILE_CHECKS_LIMIT,
        f"{where}{message}",
        details={"missing_fields": [], "validation_errors": [message]},
        hint=hint,
        recoverable=False,
    )


def _identity(path: Path) -> tuple[Any, int]:
    """The file a path names (device and inode; the path itself when it cannot be stated), and its size."""
    try:
        info = os.stat(path)
    except OSError:
        return str(path), 0
    return (info.st_dev, info.st_ino), info.st_size if stat.S_ISREG(info.st_mode) else 0


def check_files(payload: Mapping[str, Any], payload_path: Path | None) -> tuple[FileCheck, ...]:
    """Recompute the checksum of every referenced file whose entry states one, each distinct file once.

    More than `MAX_CHECKED_REFERENCES` such entries, or more than `MAX_CHECKED_TOTAL_BYTES` over the
    distinct files they name, is `PAYLOAD_FILE_CHECKS_LIMIT`, raised before anything is hashed.
    """
    entries = _entries(payload)
    if len(entries) > MAX_CHECKED_REFERENCES:
        raise _limit(
            payload_path,
            f"the payload states checksums for {len(entries)} referenced files, more than the "
            f"{MAX_CHECKED_REFERENCES} that are checked",
            "a payload written by `swarm-handoff handoff` references one side file; do not trust this one",
        )
    located: list[tuple[str, Any, Any, Path | None, Any]] = []  # field, name, stated, where, which file
    sizes: dict[Any, int] = {}
    for field, name, stated in entries:
        usable = isinstance(name, str) and bool(name) and "\0" not in name  # the OS refuses a NUL (ValueError)
        path = locate(name, payload, payload_path) if usable else None
        key = None
        if path is not None:
            key, size = _identity(path)
            sizes[key] = min(size, MAX_CHECKED_BYTES + 1)  # a bigger one is refused unread, below
        located.append((field, name, stated, path, key))
    total = sum(sizes.values())
    if total > MAX_CHECKED_TOTAL_BYTES:
        raise _limit(
            payload_path,
            f"the {len(sizes)} files the payload references with a checksum hold {total} bytes, more than "
            f"the {MAX_CHECKED_TOTAL_BYTES} bytes that are checked",
            "reference fewer or smaller files, or check them by other means",
        )
    computed_by_file: dict[Any, str | OSError] = {}
    checks = []
    budget = ReadBudget(MAX_CHECKED_TOTAL_BYTES)  # bytes actually read, not the sizes stat stated
    for field, name, stated, path, key in located:
        if path is None and isinstance(name, str) and "\0" in name:
            checks.append(FileCheck(field, repr(name), stated, None, f"{field}.path holds a NUL character"))
            continue
        if path is None:
            checks.append(FileCheck(field, str(name), stated, None, f"{field}.path is not a path"))
            continue
        root = _unread_root(path)
        if root is not None:
            refused = f"{field}: {path} is under {root}; files there are not read, so it cannot be checked"
            checks.append(FileCheck(field, str(path), stated, None, refused))
            continue
        if key not in computed_by_file:
            try:
                computed_by_file[key] = file_checksum(path, budget)
            except OSError as exc:
                computed_by_file[key] = exc
        outcome = computed_by_file[key]
        if isinstance(outcome, OSError):
            why = outcome.strerror or outcome
            checks.append(FileCheck(field, str(path), stated, None, f"{field}: cannot read {path}: {why}"))
            continue
        problem = None
        if stated != outcome:
            problem = f"{field}.checksum is {shown(stated)} but {path} hashes to {outcome!r}"
        checks.append(FileCheck(field, str(path), stated, outcome, problem))
    return tuple(checks)


@attrs.frozen
class Findings:
    """The integrity verdict on one payload: hash and size, referenced files, signature."""

    integrity: Integrity
    files: tuple[FileCheck, ...]
    signature: SignatureCheck

    @property
    def content_problems(self) -> list[str]:
        """The failed checks of the content itself: hash, size and side files (not the signature)."""
        return [*self.integrity.mismatches(), *(f.problem for f in self.files if f.problem)]

    @property
    def problems(self) -> list[str]:
        """Every failed check, in words a user can act on (an absent signature is not a failure)."""
        found = self.content_problems
        if self.signature.status == INVALID and self.signature.reason:
            found.append(self.signature.reason)
        return found

    @property
    def status(self) -> str:
        """`ok`, `mismatch`, or `absent` (no hash stated, and nothing else failed)."""
        unstated = self.integrity.stated_hash is None and self.integrity.stated_size is None
        others = any(f.problem for f in self.files) or self.signature.status == INVALID
        if unstated and not others:
            return "absent"
        return "ok" if not self.problems else "mismatch"


def untrusted_hint(findings: Findings, then: str) -> str:
    """The hint for a payload that fails its checks; a signature by another key is not a change.

    An intact payload (hash, size and side files match) signed with a key other than the user's, or
    checked where there is no key, says nothing about tampering: it was signed elsewhere.
    """
    if not findings.content_problems and findings.signature.status == INVALID and findings.signature.other_key:
        return (
            "the content matches its hash, but the signature was made with another key (another user or machine) "
            "or there is no key here to check it: check it where the signing key is, or ask the sender to hand "
            "off again unsigned or with a key you share"
        )
    return f"a changed payload cannot be trusted: {then}"


NOT_AS_WRITTEN = (
    "text outside the signed data (comments, layout) was changed: the file is not byte for byte what "
    "swarm-handoff writes for the data it holds, and a signature covers the data only"
)


def written_as_signed(payload: Mapping[str, Any], payload_path: Path, text: str | None = None) -> bool:
    """Whether the file's bytes are exactly what the payload writer produces for `payload`.

    The hash and the signature cover the data, not comments or layout: a signed file whose text
    differs (a `# NOTE to the target: ...` added) would still pass. Either of the writer's two forms
    is accepted (JSON text holds no comments), so a signed `.json` renamed `.yaml` still verifies.
    `text` is the file's text as it was parsed into `payload`; without it the file is read again
    (and must still hold `payload`).
    """
    try:
        if text is None:
            text = read_text(payload_path)
            if parse_payload_text(text, path=str(payload_path)) != payload:  # changed since it was loaded
                return False
        return any(text == dump_payload(payload, payload_path.with_suffix(form)) for form in (".json", ".yaml"))
    except Exception:  # text that cannot be read or parsed again is not the signed text
        return False


def examine(
    payload: Mapping[str, Any], payload_path: Path | None, config: Path, *, text: str | None = None
) -> Findings:
    """Check everything that says `payload` is what was written; never raises for a bad payload.

    A valid signature also requires the file's bytes to be the writer's (`written_as_signed`);
    `text`, the file's text as parsed into `payload`, spares reading it again.
    """
    signature = check_signature(payload, config)
    if signature.status == VALID and payload_path is not None and not written_as_signed(payload, payload_path, text):
        signature = SignatureCheck(INVALID, NOT_AS_WRITTEN)
    return Findings(check_integrity(payload), check_files(payload, payload_path), signature)
