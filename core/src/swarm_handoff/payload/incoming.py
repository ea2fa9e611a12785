"""Take in a payload that arrived from another machine: every check of `handoff --from`, then a session.

A transport (the A2A plugin, `swarm-handoff-a2a`) hands over the payload's exact text and a session
root; this module decides everything else. The text is bounded before it is parsed, then read by
`received.load_received` exactly as `handoff --from` reads a received file (limits, schema,
integrity hash, the signature when a key is configured or required), and the hand-off is checked
as one this host would make: the target must be a skill here that accepts hand-offs, the payload
must carry every path its `requires` names (VALIDATION_FAILED, as `handoff` says), its
`accepts_from` must name the source (the sender's override is not honoured: the receiver's policy
is the receiver's), and the chain must pass the loop rules (`continuation.check_loop_rules`, the
approval a long chain needs read from the payload's `user_approved`). One difference from a local
`--from`: an expired payload is refused (`RECEIVED_PAYLOAD_EXPIRED`), because a hand-off that
arrives late was not delivered in time and the sender can send a fresh one.

Accepted, the payload is written under the session root in a folder and file the receiver names
(the payload never names a path here) and recorded in the history once: the same payload (the same
`payload_hash`) delivered again writes nothing new and is reported as `already` (a damaged file under
its name is written whole; another payload under it is refused, `_copy_of`). File and row are
decided together under the session folder's lock: a history that cannot record it refuses it with
the history's own code (HISTORY_BUSY, ...), a write that fails with VALIDATION_FAILED (a folder
held past the lock's wait: SESSION_BUSY), and neither leaves a row without its file or a new file
without its row. Refused, nothing is written: the text waits in a private `.incoming` folder while
it is checked, and is removed. What a receiver killed mid-write leaves is `leftovers.py`'s.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import hashlib
import os
import re
import sqlite3
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from swarm_handoff import history, jsonio, safefs
from swarm_handoff.discovery import discover, make_context
from swarm_handoff.errors import ErrorCode, LoadError, Problem, SwarmError
from swarm_handoff.payload import continuation
from swarm_handoff.payload.canonical import check_integrity
from swarm_handoff.payload.handoff_checks import SAFE_NAME, not_found
from swarm_handoff.payload.handoff_write import SESSION_BUSY, own_folder
from swarm_handoff.payload.leftovers import INBOX, SESSION_PREFIX
from swarm_handoff.payload.received import load_received, unsafe_source
from swarm_handoff.payload.received_record import RECEIVED_EXPIRED, refuse, section
from swarm_handoff.payload.targeting import check_source, requirements, requirements_error
from swarm_handoff.payload.unsigned import signature_required
from swarm_handoff.payload.v2 import utc_now
from swarm_handoff.plugins import PluginHost, get_host
from swarm_handoff.records import DiscoveryContext
from swarm_handoff.textfile import MAX_BYTES

_HEX = re.compile(r"[0-9a-f]{8,64}\Z")


@attrs.frozen(kw_only=True)
class Incoming:
    """A payload from another machine that passed every check, and where this host put it."""

    path: Path
    session: Path
    payload_hash: str
    source: str
    target: str
    trace_id: str | None
    history_id: int
    already: bool  # the same payload was taken in before: nothing new was written or recorded
    warnings: tuple[Problem, ...] = ()
    payload: dict[str, Any] = attrs.field(factory=dict, repr=False)

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {
            "payload_path": str(self.path),
            "session": str(self.session),
            "payload_hash": self.payload_hash,
            "source": self.source,
            "target": self.target,
            "trace_id": self.trace_id,
            "history_id": self.history_id,
            "already": self.already,
            "warnings": [w.to_data() for w in self.warnings],
        }


# The hint of every refusal a sender can mend by waiting: a payload is one hand-off however often it comes.
SEND_AGAIN = "send it again {when}: a payload sent twice is one hand-off"


def renamed(value: Any, places: Sequence[tuple[str, str]]) -> Any:
    """`value` (text, or lists and dicts of it) naming each local place by what a sender is told instead.

    The one walker for what leaves the host: the receiver's private copy here, its folders in the
    a2a receiver. `places` go longest first, so a folder inside another is renamed before it.
    """
    if isinstance(value, str):
        for place, name in places:
            value = value.replace(place, name)
        return value
    if isinstance(value, list):
        return [renamed(v, places) for v in value]
    if isinstance(value, dict):
        return {k: renamed(v, places) for k, v in value.items()}
    return value


def _clean(value: Any, quarantine: Path) -> Any:
    """`value` saying "<received payload>" wherever it names the receiver's private copy."""
    return renamed(value, ((str(quarantine), "<received payload>"),))


def _scrub(error: SwarmError, quarantine: Path) -> SwarmError:
    """Say "the received payload" where an error names the receiver's private copy: the sender sees it."""
    error.message = _clean(error.message, quarantine)
    error.hint = _clean(error.hint, quarantine)
    error.details = _clean(error.details, quarantine)
    return error


def _scrubbed(warnings: tuple[Problem, ...], quarantine: Path) -> tuple[Problem, ...]:
    """The payload's warnings (unsigned) as the sender sees them: the private copy, gone by then, never named."""
    return tuple(
        attrs.evolve(
            w, message=_clean(w.message, quarantine), path=_clean(w.path, quarantine), hint=_clean(w.hint, quarantine)
        )
        for w in warnings
    )


def _too_large(size: int) -> SwarmError:
    return SwarmError(
        ErrorCode.INVALID_PAYLOAD,
        f"the received payload is {size} bytes, larger than {MAX_BYTES} bytes",
        details={"missing_fields": [], "validation_errors": [f"larger than {MAX_BYTES} bytes"]},
        hint="hand off a smaller payload (move large context into the session's files)",
        recoverable=False,
    )


def accept_incoming(
    text: str,
    session_root: Path,
    *,
    host: PluginHost | None = None,
    context: DiscoveryContext | None = None,
    now: dt.datetime | None = None,
    require_signature: bool | None = None,
) -> Incoming:
    """Check a payload received from elsewhere as `handoff --from` would; write and record it, or refuse it.

    `require_signature` None: required whenever this host has a signing key (as `handoff --from`).
    Raises the coded `SwarmError` of the first check that fails; nothing is then left on disk.
    """
    data = text.encode("utf-8")
    if len(data) > MAX_BYTES:  # before anything is parsed or written
        raise _too_large(len(data))
    context = context or make_context()
    host = host or get_host()
    moment = now or utc_now()
    writer = f"{os.getpid()}-{safefs.machine_identity()}"
    try:  # a full disk, a root gone read-only or replaced: the sender is told so, never the receiver's folders
        root = own_session_root(session_root)
        inbox = root / INBOX
        quarantine = inbox / f"{writer}-{hashlib.sha256(data).hexdigest()[:16]}-{os.urandom(4).hex()}.json"
        with contextlib.suppress(FileExistsError):
            inbox.mkdir(mode=0o700)
        if not safefs.create_new(quarantine, data, durable=False):
            raise FileExistsError(errno.EEXIST, "a quarantine name drawn twice")
    except OSError as exc:
        raise not_written("write the payload", exc.strerror or type(exc).__name__) from None
    try:
        try:
            received = load_received(
                quarantine,
                host,
                context.config_dir,
                moment,
                require_signature=signature_required(context.config_dir, require_signature),
                option="require_signature",
            )
            expired = next((w for w in received.warnings if w.code == RECEIVED_EXPIRED), None)
            if expired is not None:
                stated_expiry = section(received.payload, "handoff").get("expires_at")
                raise refuse(
                    RECEIVED_EXPIRED,
                    quarantine,
                    f"it expired at {stated_expiry or 'its timestamp + 1 h'} (checked at {moment:%Y-%m-%dT%H:%M:%SZ})",
                    "ask the sender to hand off again: a payload received after its expires_at is not taken in",
                )
            handoff = received.payload["handoff"]
            meta = section(handoff, "meta")
            source = str(section(handoff, "source").get("skill", ""))
            target = received.skill
            for name in (source, target):
                if not _safe(name):
                    raise unsafe_source(received, name)
            found = discover(context, host)
            record = found.named(target)
            if record is None:
                raise not_found(target, [r.name for r in found.workflows], list(found.ineligible))
            check_source(record, source, override=False)
            missing, _notes = requirements(record, received.payload)
            if missing:  # the receiver's `requires`, as `handoff` checks its own target's
                raise requirements_error(record, missing, received.version)
            reason = meta.get("handoff_reason")
            approved = meta.get("user_approved") is True
            continuation.check_loop_rules(
                received.chain, target, source, reason if isinstance(reason, str) else "", lambda _q: approved
            )
        except SwarmError as error:
            raise _scrub(error, quarantine) from None
        stated = str(meta.get("payload_hash", ""))
        warnings = _scrubbed(received.warnings, quarantine)
        return _take_in(root, data, received.payload, stated, source, target, context, warnings)
    finally:  # a copy that cannot be removed (a root gone read-only) is the next start's (`clear_leftovers`)
        with contextlib.suppress(OSError):
            quarantine.unlink()


def _safe(name: str) -> bool:
    return bool(SAFE_NAME.match(name))


NOT_OWN_FOLDER = "is not a folder of its own (a symlink or a file is in its place)"


def private_folder_fault(folder: Path) -> str | None:
    """Why `folder`, made (0700) when absent, is not this user's alone, else None; OSError when it cannot be made.

    Whoever else may write a receiver's folder could plant what the receiver then takes as its own
    (a session folder, the very file a payload's hash names, a claim).
    """
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    found = folder.lstat()
    if not stat.S_ISDIR(found.st_mode):
        return NOT_OWN_FOLDER
    if hasattr(os, "getuid") and found.st_uid != os.getuid():
        return f"belongs to uid {found.st_uid}"
    if os.name == "posix" and found.st_mode & 0o022:
        return f"may be written by group or others (mode {found.st_mode & 0o7777:o})"
    return None


def own_session_root(session_root: Path) -> Path:
    """The session root, made when absent (private), checked before a receiver starts and before each write.

    A symlink, a file, a folder another user owns or one group or others may write is refused (USAGE).
    """
    root = Path(session_root).expanduser()
    why = private_folder_fault(root)
    if why == NOT_OWN_FOLDER:
        raise SwarmError(
            ErrorCode.USAGE, f"the session root {root} {why}", hint="give a real folder as the session root"
        )
    if why is not None:
        raise SwarmError(
            ErrorCode.USAGE,
            f"the session root {root} {why}: a receiver writes only into a folder of its own",
            hint=f"chmod 700 {root} (as its owner), or give a folder of your own as the session root",
        )
    return root.resolve()


def _session_name(trace_id: Any, payload_hash: str) -> str:
    """The receiver's session folder for a chain: its trace id when it is plain hex, else the payload's hash."""
    if isinstance(trace_id, str) and _HEX.match(trace_id):
        return f"{SESSION_PREFIX}{trace_id}"
    return f"{SESSION_PREFIX}{payload_hash.removeprefix('sha256:')[:16]}"


def busy_refusal(what: str, waited: float) -> SwarmError:
    """A receiver's folder held past the wait, as a sender on another host is told: how long, never who holds it."""
    return SwarmError(
        SESSION_BUSY,
        f"{what} for more than {waited:g} s; nothing was written or recorded",
        details={"waited_s": waited},
        hint=SEND_AGAIN.format(when="shortly"),
        recoverable=True,
    )


def _take_in(
    root: Path,
    data: bytes,
    payload: dict[str, Any],
    stated: str,
    source: str,
    target: str,
    context: DiscoveryContext,
    warnings: tuple[Problem, ...],
) -> Incoming:
    """Write the checked payload under a name its hash gives (once), and record it in the history once."""
    handoff = payload["handoff"]
    trace_id = handoff.get("trace_id")
    session = root / _session_name(trace_id, stated)
    folder = session / "handoffs"
    path = folder / f"{source}-to-{target}-{stated.removeprefix('sha256:')[:16]}.json"
    try:
        own_folder(session)
        own_folder(folder)
        # File and row are decided together under the folder's lock, so receivers of one payload at
        # once (threads, processes) never see one without the other. The file first (one name per
        # payload_hash, created exclusively and synced: the same payload again finds its first copy),
        # then the record; a history that cannot record refuses the hand-off with its own code and
        # the file this call made is removed, so the sender's retry takes it in whole. Accepted
        # always means written and recorded; a write that fails records nothing.
        with safefs.locked(folder):
            created = safefs.create_new(path, data)
            if not created and _copy_of(path, data, stated) is False:  # a damaged copy: written whole
                safefs.atomic_write(path, data, mode=0o600, durable=True)
                created = True
            try:
                history_id, fresh, problems = _record_once(context, path, payload)
            except BaseException:
                if created:
                    with contextlib.suppress(OSError):
                        path.unlink()
                raise
    except safefs.FolderBusy as busy:
        raise busy_refusal("the receiver's session folder was busy", busy.waited) from None
    except OSError as exc:
        raise not_written("write the payload", exc.strerror or type(exc).__name__) from None
    return Incoming(
        path=path,
        session=session,
        payload_hash=stated,
        source=source,
        target=target,
        trace_id=trace_id if isinstance(trace_id, str) else None,
        history_id=history_id,
        already=not created and not fresh,
        warnings=(*warnings, *problems),
        payload=payload,
    )


def _copy_of(path: Path, data: bytes, stated: str) -> bool:
    """Whether the file already at `path` is this payload (True), or damaged (False); another intact one refuses.

    The name holds 16 digits of the hash, and a file system without hard links may keep half a file
    from a receiver killed mid-write: neither is taken for "already received". A file that is another
    intact payload (the first 16 digits of two hashes agree) is kept as it is, for the row that names it.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            found = handle.read(MAX_BYTES + 1)
    except OSError:
        return False
    if found == data:
        return True
    try:
        held = jsonio.loads(found.decode("utf-8"))
    except (LoadError, UnicodeDecodeError):
        return False
    integrity = check_integrity(held) if isinstance(held, dict) else None
    if integrity is None or not integrity.ok:
        return False
    if integrity.stated_hash == stated:  # the same payload, serialised another way
        return True
    raise SwarmError(
        ErrorCode.VALIDATION_FAILED,
        "the receiver already holds another payload whose payload_hash starts with the same 16 digits; "
        "nothing was written or recorded",
        details={"missing_fields": [], "validation_errors": ["payload_hash prefix taken by another payload"]},
        hint="hand off again: a new payload has a new payload_hash",
        recoverable=False,
    )


def not_written(doing: str, why: str, *, nothing: str = "recorded") -> SwarmError:
    """A receiver that could not write (disk full, permissions), as a sender on another host is told: try again later.

    One refusal for the payload's file and the A2A receiver's claim: `why` is the OS's reason, never a path.
    """
    return SwarmError(
        ErrorCode.VALIDATION_FAILED,
        f"the receiver could not {doing}: {why}; nothing was {nothing}",
        details={"missing_fields": [], "validation_errors": [why]},
        hint=SEND_AGAIN.format(when="once the receiver can write"),
        recoverable=True,
    )


def _record_once(
    context: DiscoveryContext, path: Path, payload: dict[str, Any]
) -> tuple[int, bool, tuple[Problem, ...]]:
    """Record the hand-off as received unless its hash is already there; a history that fails refuses it."""
    try:
        with history.open_history(context.config_dir) as opened:
            found, fresh = opened.record_once(path, payload, status="received")
            return found, fresh, opened.problems
    except (sqlite3.Error, OSError) as exc:
        raise SwarmError(
            history.HISTORY_UNAVAILABLE,
            f"the hand-off could not be recorded in the history: {type(exc).__name__}: {exc}",
            hint=SEND_AGAIN.format(when="once the receiver's history is usable"),
            recoverable=True,
        ) from None
