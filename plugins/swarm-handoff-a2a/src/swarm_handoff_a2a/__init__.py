"""swarm-handoff plugin package swarm_handoff_a2a: hand-offs between machines over A2A.

`serve` runs a receiving host (an A2A server whose agent card lists the skills that accept a
hand-off here), `send` hands a payload to one, `remote_skills` reads a host's card and
`remote_status` a hand-off's remote task; `ack_task` moves a received hand-off's task to
COMPLETED or FAILED. See docs/a2a.md.

Importing the package costs nothing: every CLI run loads the plugin to add the `a2a` commands, so
the A2A SDK (which `extension` imports) is imported only when a name of it is used.
"""

from __future__ import annotations

from typing import Any

__all__ = ["EXTENSION_URI", "PAYLOAD_MEDIA_TYPE"]


def __getattr__(name: str) -> Any:
    """`EXTENSION_URI` and `PAYLOAD_MEDIA_TYPE`, from `extension`, imported on first use."""
    if name in __all__:
        from swarm_handoff_a2a import extension

        return getattr(extension, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
