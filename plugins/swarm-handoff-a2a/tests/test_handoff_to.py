"""`handoff TARGET --to URL` and the receiving side's `ack`, through the core's transport hook (issue 29, point 2).

The sender and the receiver are the `hosts` fixture's two config folders sharing one skills
folder; the receiver listens on a free loopback port in this process (`receiver`). The commands
run through the CLI as a user types them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from swarm_handoff.api import make_context, open_history
from swarm_handoff_a2a.sender import remote_status


def handoff(swarm_cli: Any, hosts: dict[str, Any], target: str, url: str, *extra: str) -> Any:
    return swarm_cli(
        "handoff", target, "--synthesis", str(hosts["synthesis"]), "--source", "alpha",
        "--session", str(hosts["session"]), "--to", url, "-f", "json", *extra,
    )  # fmt: skip


def written(hosts: dict[str, Any]) -> list[Path]:
    folder = hosts["session"] / "handoffs"
    return sorted(folder.glob("*.json")) if folder.exists() else []


def test_handoff_to_writes_here_sends_there_and_records_the_remote_task(hosts, receiver, swarm_cli):
    url = receiver().url
    result = handoff(swarm_cli, hosts, "beta", url)
    assert result.exit_code == 0, result.stdout + result.stderr
    data = result.json()
    (local,) = written(hosts)
    assert data["payload_path"] == str(local)
    remote = data["remote"]
    assert (remote["url"], remote["target"], remote["state"], remote["delivered"]) == (url, "beta", "working", True)
    assert f"sent to {url}: working (task {remote['task_id']})" in result.stderr
    (received,) = hosts["inbox"].rglob("handoffs/*.json")
    assert received.read_bytes() == local.read_bytes()  # the same payload on both ends: verify works on both
    with open_history(hosts["sender_config"]) as history:
        (row,) = history.remote(data["payload_hash"])
        assert [h.payload_hash for h in history.list()] == [data["payload_hash"]]
    assert (row["task_id"], row["state"]) == (remote["task_id"], "working")
    with open_history(hosts["root"] / "receiver-config") as history:
        assert [h.payload_hash for h in history.list()] == [data["payload_hash"]]


def test_handoff_to_a_target_the_host_lacks_says_the_closest_and_writes_nothing(hosts, receiver, swarm_cli, v3_skill):
    elsewhere = hosts["root"] / "elsewhere"
    v3_skill(elsewhere / ".claude" / "skills", "betas")
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(hosts["root"] / "elsewhere-config")}
    url = receiver(context=make_context(elsewhere, env=env)).url
    result = handoff(swarm_cli, hosts, "beta", url)
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "TARGET_NOT_FOUND"
    assert error["hint"] == "did you mean: betas?"
    assert written(hosts) == []


def test_handoff_to_a_host_that_is_down_is_refused_before_anything_is_written(hosts, swarm_cli, monkeypatch):
    import socket

    monkeypatch.setenv("SWARM_HANDOFF_A2A_ATTEMPTS", "2")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = handoff(swarm_cli, hosts, "beta", f"http://127.0.0.1:{port}/")
    assert result.exit_code == 1
    assert result.json()["error"]["code"] == "A2A_UNREACHABLE"
    assert written(hosts) == []


def test_the_receivers_ack_moves_the_a2a_task_and_a_local_ack_stays_as_it_was(hosts, receiver, swarm_cli):
    running = receiver()
    sent = handoff(swarm_cli, hosts, "beta", running.url)
    assert sent.exit_code == 0, sent.stderr
    task_id = sent.json()["remote"]["task_id"]
    (received,) = hosts["inbox"].rglob("handoffs/*.json")
    receiving = {"CLAUDE_CONFIG_DIR": str(hosts["root"] / "receiver-config")}
    acked = swarm_cli("ack", str(received), "--status", "success", env=receiving)
    assert acked.exit_code == 0, acked.stderr
    assert acked.stdout.startswith("acknowledged:")
    assert f"A2A task {task_id}: completed" in acked.stderr
    assert remote_status(running.url, task_id) == "completed"
    # the sender's own copy is a local payload on the sender's host: its ack says nothing of A2A
    local = Path(sent.json()["payload_path"])
    plain = swarm_cli("ack", str(local), "--status", "success")
    assert plain.exit_code == 0, plain.stderr
    assert plain.stderr == ""


def test_a_failure_ack_on_the_receiver_fails_the_task(hosts, receiver, swarm_cli):
    running = receiver()
    sent = handoff(swarm_cli, hosts, "beta", running.url)
    (received,) = hosts["inbox"].rglob("handoffs/*.json")
    receiving = {"CLAUDE_CONFIG_DIR": str(hosts["root"] / "receiver-config")}
    acked = swarm_cli("ack", str(received), "--status", "failure", env=receiving)
    assert acked.exit_code == 0, acked.stderr
    assert remote_status(running.url, sent.json()["remote"]["task_id"]) == "failed"
    # a different final outcome afterwards is recorded locally, and the task is left as it was (a warning)
    again = swarm_cli("ack", str(received), "--status", "success", env=receiving)
    assert again.exit_code == 0, again.stderr
    assert "TRANSPORT_FAILED" in again.stderr
    assert "A2A_TASK_FINAL" in again.stderr
