"""The bodies of the `session` group (`new`, `close`, `gc`, `resume`), over session_life.py and session_gc.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import attrs

from swarm_handoff.components import Document
from swarm_handoff.plugins import PluginHost
from swarm_handoff.session_life import close_session, new_session, parse_duration, write_checkpoint


@attrs.frozen
class SessionDocument:
    """What `session new` and `session resume` print: the folder (and, on resume, the checkpoint)."""

    kind: ClassVar[str] = "session"
    session: str
    checkpoint: str | None = None

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {"session": self.session, "checkpoint": self.checkpoint}


def new_operation(host: PluginHost, *, root: Path | None) -> Document:
    """`session new`: make a session folder in the temporary folder."""

    return SessionDocument(str(new_session(root)))


def close_operation(host: PluginHost, *, folder: Path, force: bool) -> Document:
    """`session close`: refused while a hand-off from it is not acknowledged (unless `force`)."""
    from swarm_handoff.discovery import config_dir

    return close_session(folder, config_dir(), force=force)


def gc_operation(host: PluginHost, *, older_than: str, dry_run: bool, root: Path | None) -> Document:
    """`session gc`: remove the closed or expired session folders this tool made."""
    from swarm_handoff.session_gc import collect

    return collect(root, older_than=parse_duration(older_than), dry_run=dry_run)


def resume_operation(host: PluginHost, *, folder: Path) -> Document:
    """`session resume`: mark the session resumed, so its discovery cache is rebuilt on next use."""

    return SessionDocument(str(folder), str(write_checkpoint(folder)))
