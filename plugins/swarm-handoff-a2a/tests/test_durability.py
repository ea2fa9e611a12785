"""Durability (issue 29, point 3): a receiver killed with kill -9 and started again keeps every hand-off and task.

The receiver runs in a process of its own; the sender keeps retrying while it is down, up to its
bound, and says which hand-offs were not delivered.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from swarm_handoff.api import open_history
from swarm_handoff_a2a.ack import ack_task
from swarm_handoff_a2a.sender import Retry, remote_status, send, send_many, undelivered

HELPER = Path(__file__).with_name("receiver_process.py")


@attrs.frozen(kw_only=True)
class SignalingRetry(Retry):
    """A retry policy that says when the first attempt has failed (so the test restarts the host after it)."""

    failed: threading.Event = attrs.field(factory=threading.Event, eq=False)

    def waits(self) -> Iterator[float]:
        for wait in super().waits():
            self.failed.set()
            yield wait


class Process:
    """The receiver's process: started, killed with SIGKILL, started again on the same port."""

    def __init__(self, hosts: dict[str, Any]) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.hosts = hosts
        self.env = {**os.environ, "CLAUDE_CONFIG_DIR": str(hosts["root"] / "receiver-config")}
        self.proc: subprocess.Popen[str] | None = None
        self.url = f"http://127.0.0.1:{self.port}/"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(HELPER), str(self.hosts["inbox"]), str(self.port)],
            cwd=self.hosts["project"],
            env=self.env,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()  # READY URL, or "" when it died
        assert line.startswith("READY"), f"the receiver did not start: {line!r}"

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()  # SIGKILL: no shutdown, no flush
        self.proc.wait()


@pytest.fixture
def process(hosts: dict[str, Any]) -> Iterator[Process]:
    running = Process(hosts)
    yield running
    if running.proc is not None and running.proc.poll() is None:
        running.kill()


def receiver_rows(hosts: dict[str, Any]) -> list[Any]:
    with open_history(hosts["root"] / "receiver-config") as history:
        return history.list()


def test_a_receiver_killed_and_restarted_keeps_every_handoff_and_the_sender_retries_until_it_is_back(
    hosts, payload, process
):
    process.start()
    payloads = [payload() for _ in range(4)]
    first = send_many([(p, process.url) for p in payloads[:2]])
    assert [r.state for r in first] == ["working", "working"]
    written = next(
        p
        for p in hosts["inbox"].rglob("*.json")
        if p.read_text(encoding="utf-8") == payloads[0].read_text(encoding="utf-8")
    )
    store = f"sqlite+aiosqlite:///{hosts['root'] / 'receiver-config' / 'swarm-handoff' / 'a2a-tasks.sqlite3'}"
    assert ack_task("success", payload_path=written, store_url=store) == "completed"
    process.kill()

    # while it is down, a sender with a small bound gives up and says which were not delivered
    down = send_many([(p, process.url) for p in payloads[2:]], retry=Retry(attempts=2, first=0.01, longest=0.01))
    assert [r.payload_hash for r in undelivered(down)] == [r.payload_hash for r in down]
    assert {r.error["code"] for r in down} == {"A2A_UNREACHABLE"}

    # a sender with a larger bound keeps trying; the host comes back after its first failure
    retry = SignalingRetry(attempts=200, first=0.02, longest=0.2)
    results: list[Any] = []
    worker = threading.Thread(target=lambda: results.append(send(payloads[2], process.url, retry=retry)))
    worker.start()
    retry.failed.wait()
    process.start()
    worker.join()
    (late,) = results
    assert late.delivered
    assert late.attempts > 1

    again = send_many([(p, process.url) for p in payloads])
    assert undelivered(again) == []
    assert [r.task_id for r in again[:2]] == [r.task_id for r in first]  # the tasks survived the kill
    assert again[2].task_id == late.task_id
    rows = receiver_rows(hosts)
    assert sorted(r.payload_hash for r in rows) == sorted(r.payload_hash for r in again)  # none lost, none twice
    assert len(list(hosts["inbox"].rglob("*.json"))) == 4

    # the ack made before the kill survived it; the others wait for theirs
    assert remote_status(process.url, first[0].task_id) == "completed"
    assert remote_status(process.url, first[1].task_id) == "working"
