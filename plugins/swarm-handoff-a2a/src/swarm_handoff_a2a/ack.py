"""The receiving agent's acknowledgment moves the hand-off's A2A task: success COMPLETED, failure FAILED.

`ack_task` is what the local `ack` (and the future `ack --remote` on the receiving host) calls: it
finds the task by the payload file the receiver wrote (the task id is derived from its text, see
`extension.task_id_for`) or by task id, in the same SQL task store the server uses, and saves the
new status there. A second ack with the same outcome changes nothing; a different outcome after a
final one is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import os
from pathlib import Path

from a2a.server.context import ServerCallContext
from a2a.types import Message, Part, Role, TaskState, TaskStatus
from google.protobuf.timestamp_pb2 import Timestamp

from swarm_handoff.api import SwarmError, make_context, read_text
from swarm_handoff_a2a import tracing
from swarm_handoff_a2a.extension import task_id_for
from swarm_handoff_a2a.ids import TASK_STORE_ENV
from swarm_handoff_a2a.receiver import default_store_url, task_store

A2A_TASK_NOT_FOUND = "A2A_TASK_NOT_FOUND"
A2A_TASK_FINAL = "A2A_TASK_FINAL"
STATES = {
    "received": TaskState.TASK_STATE_WORKING,
    "processed": TaskState.TASK_STATE_WORKING,
    "success": TaskState.TASK_STATE_COMPLETED,
    "failure": TaskState.TASK_STATE_FAILED,
}
_FINAL = {
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_REJECTED,
    TaskState.TASK_STATE_CANCELED,
}


def state_name(state: int) -> str:
    """`TASK_STATE_COMPLETED` as `completed`: how the history and the reports spell a state."""
    return str(TaskState.Name(state)).removeprefix("TASK_STATE_").lower()


async def ack_task_async(
    task_id: str, status: str, store_url: str, note: str = "", *, traceparent: str | None = None
) -> str:
    """Move task `task_id` to the state `status` (an ack status) stands for; return the state it is in."""
    if status not in STATES:
        raise SwarmError("USAGE", f"unknown status {status!r}", hint=f"use one of: {', '.join(STATES)}")
    store = task_store(store_url)
    context = ServerCallContext()
    with tracing.span(
        "swarm_handoff.ack",
        {"gen_ai.operation.name": "ack", "swarm_handoff.task_id": task_id, "swarm_handoff.ack_status": status},
        parent=traceparent,
    ):
        try:
            task = await store.get(task_id, context)
            if task is None:
                raise SwarmError(
                    A2A_TASK_NOT_FOUND,
                    f"no A2A task {task_id} in the task store",
                    hint="ack the payload file the receiver wrote, on the receiving host, with its task store",
                )
            wanted = STATES[status]
            if task.status.state in _FINAL:
                if task.status.state == wanted:
                    return state_name(task.status.state)
                raise SwarmError(
                    A2A_TASK_FINAL,
                    f"A2A task {task_id} is already {state_name(task.status.state)}",
                    hint="a final state is not changed; hand off again for a new attempt",
                )
            stamp = Timestamp()
            stamp.FromDatetime(dt.datetime.now(dt.timezone.utc))
            message = Message(
                message_id=f"{task_id}-ack-{status}",
                role=Role.ROLE_AGENT,
                task_id=task_id,
                context_id=task.context_id,
                parts=[Part(text=f"acknowledged: {status}" + (f" ({note})" if note else ""))],
            )
            task.status.CopyFrom(TaskStatus(state=wanted, message=message, timestamp=stamp))
            await store.save(task, context)
            return state_name(wanted)
        finally:
            await store.engine.dispose()


def ack_task(
    status: str,
    *,
    payload_path: Path | None = None,
    task_id: str | None = None,
    store_url: str | None = None,
    note: str = "",
) -> str:
    """Acknowledge a received hand-off's task by its payload file (or task id); return the task's state."""
    parent = None
    if payload_path is not None:
        text = read_text(payload_path)
        task_id = task_id or task_id_for(text)
        with contextlib.suppress(ValueError):
            parent = None if tracing.current_traceparent() else tracing.chain_traceparent(json.loads(text))
    if task_id is None:
        raise SwarmError("USAGE", "give the payload file or the task id", hint="ack the payload the receiver wrote")
    url = store_url or os.environ.get(TASK_STORE_ENV, "").strip() or default_store_url(make_context().config_dir)
    return asyncio.run(ack_task_async(task_id, status, url, note, traceparent=parent))
