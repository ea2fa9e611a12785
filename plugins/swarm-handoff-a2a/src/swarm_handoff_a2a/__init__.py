"""swarm-handoff plugin package swarm_handoff_a2a: hand-offs between machines over A2A.

`serve` runs a receiving host (an A2A server whose agent card lists the skills that accept a
hand-off here), `send` hands a payload to one, `remote_skills` reads a host's card and
`remote_status` a hand-off's remote task; `ack_task` moves a received hand-off's task to
COMPLETED or FAILED. See docs/a2a.md.
"""

from __future__ import annotations

from swarm_handoff_a2a.extension import EXTENSION_URI, PAYLOAD_MEDIA_TYPE

__all__ = ["EXTENSION_URI", "PAYLOAD_MEDIA_TYPE"]
