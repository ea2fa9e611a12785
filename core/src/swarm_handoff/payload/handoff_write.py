"""A hand-off's last step: write the checked payload under a name of its own, record it, say where it went.

`write_payload` writes the payload and its side files (never replacing a file, never through a
symlinked folder), records the hand-off in the history (`handoff_run.record_handoff`) and returns
the `handoff` document, `HandoffResult`. A failure to write goes through the run's safety net
(`HandoffRun.fail`), which keeps the payload elsewhere and names it in the error.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
from pathlib import Path
from typing import Any, ClassVar

import attrs

from swarm_handoff import safefs
from swarm_handoff.errors import ErrorCode, Problem, SwarmError, folder_busy_hint
from swarm_handoff.payload.build3 import v3_path
from swarm_handoff.payload.canonical import check_integrity
from swarm_handoff.payload.handoff_checks import session_warnings, substitute
from swarm_handoff.payload.handoff_run import HandoffRun, record_handoff
from swarm_handoff.payload.health import HealthResult
from swarm_handoff.payload.io import dump_payload, write_new
from swarm_handoff.payload.v2 import FILE_NAME
from swarm_handoff.records import SkillRecord


@attrs.frozen(kw_only=True)
class HandoffResult:
    """The `handoff` document: where the payload went and the command that hands it over."""

    kind: ClassVar[str] = "handoff"
    target: str
    version: str
    payload_path: str
    invocation: str
    payload_hash: str
    payload_size_bytes: int
    dropped: tuple[str, ...] = ()
    kept_earlier: str | None = None
    side_files: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    warnings: tuple[Problem, ...] = ()
    health_check: HealthResult | None = None
    history_id: int | None = None
    trace_id: str | None = None  # v3.0: the chain's id, for `history --trace`

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {
            "target": self.target,
            "version": self.version,
            "payload_path": self.payload_path,
            "invocation": self.invocation,
            "payload_hash": self.payload_hash,
            "payload_size_bytes": self.payload_size_bytes,
            "dropped": list(self.dropped),
            "kept_earlier": self.kept_earlier,
            "side_files": list(self.side_files),
            "notes": list(self.notes),
            "warnings": [w.to_data() for w in self.warnings],
            "health_check": self.health_check.to_data() if self.health_check else None,
            "history_id": self.history_id,
            "trace_id": self.trace_id,
        }


SESSION_BUSY = "SESSION_BUSY"  # another process held the session folder's lock past the wait


def write_payload(
    run: HandoffRun,
    record: SkillRecord,
    warnings: tuple[Problem, ...],
    notes: list[str],
    side_files: tuple[tuple[Path, Any], ...],
    health: HealthResult | None,
    dropped: tuple[str, ...] = (),
) -> HandoffResult:
    """Write the checked payload and its side files under names of their own, record it, say where it went."""
    payload = run.payload
    handoff = payload["handoff"]
    warnings = (*warnings, *session_warnings(run.session))
    try:
        if run.version == "2.0":
            wanted = run.session / FILE_NAME
        else:
            moment = dt.datetime.strptime(handoff["timestamp"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc)
            wanted = v3_path(run.session, handoff["source"]["skill"], record.name, moment)
            own_folder(wanted.parent)
        for side_path, content in side_files:
            own_folder(side_path.parent)
            if not safefs.create_new(side_path, dump_payload(content, side_path).encode("utf-8")):
                raise FileExistsError(errno.EEXIST, "a file of that name is already there", str(side_path))
        # Each run gets a name of its own (`handoff-payload.yaml`, then `handoff-payload-2.yaml`, ...):
        # a path once reported is never moved or replaced, so the invocation printed stays true.
        path = write_new(wanted, dump_payload(payload, wanted))
    except safefs.FolderBusy as busy:
        run.busy[Path(busy.folder)] = busy.why
        raise run.fail(
            SwarmError(
                SESSION_BUSY,
                f"the session folder {run.session} is {busy.why}; the payload was not written there",
                details={"session": str(run.session), "holder_pids": list(busy.holders), "waited_s": busy.waited},
                hint=folder_busy_hint(),
            )
        ) from None
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        raise run.fail(
            SwarmError(
                ErrorCode.VALIDATION_FAILED,
                f"cannot write the payload into {run.session}: {exc.strerror or exc}{where}",
                details={"missing_fields": [], "validation_errors": [str(exc)]},
                hint="check the session folder's permissions and free space",
            )
        ) from None
    history_id, history_warnings = record_handoff(run, path)
    integrity = check_integrity(payload)
    return HandoffResult(
        target=record.name,
        version=run.version,
        payload_path=str(path),
        invocation=substitute(record, path),
        payload_hash=integrity.computed_hash,
        payload_size_bytes=integrity.computed_size,
        dropped=dropped,
        kept_earlier=None,  # nothing is moved aside any more; kept in the document for its readers
        side_files=tuple(str(p) for p, _ in side_files),
        notes=tuple(notes),
        warnings=(*warnings, *history_warnings),
        health_check=health,
        history_id=history_id,
        trace_id=handoff.get("trace_id"),
    )


def own_folder(folder: Path) -> None:
    """Make a folder the tool owns inside the session; refuse one that is a symlink (it could lead anywhere)."""
    with contextlib.suppress(FileExistsError):
        folder.mkdir()
    if folder.is_symlink() or not folder.is_dir():
        why = "not a folder of its own (a symlink or a file is in its place)"
        raise NotADirectoryError(errno.ENOTDIR, why, str(folder))
