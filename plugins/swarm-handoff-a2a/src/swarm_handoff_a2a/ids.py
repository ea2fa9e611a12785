"""What names a hand-off over A2A, without the A2A SDK: the extension's URI, a payload's task id, the task store.

Kept apart from `extension.py` (which builds SDK messages) and `receiver.py` so that `ack` on any
host can tell whether a payload came over A2A without paying for the SDK.
"""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path

EXTENSION_URI = "urn:swarm-handoff:a2a:handoff-payload:v1"
TASK_STORE_ENV = "SWARM_HANDOFF_A2A_TASK_STORE"  # the task store's URL when it is not the default SQLite file


def store_file(config: Path) -> Path:
    """The default task store's SQLite file: `{config}/swarm-handoff/a2a-tasks.sqlite3`."""
    return Path(config) / "swarm-handoff" / "a2a-tasks.sqlite3"


def task_id_for(text: str) -> str:
    """The task id of a payload: the same text always names the same task (a retry is never a second one)."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{EXTENSION_URI}#{digest}"))
