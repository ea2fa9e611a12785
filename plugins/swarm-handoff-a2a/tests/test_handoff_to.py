"""`handoff TARGET --to URL` and the receiving side's `ack`, through the core's transport hook (issue 29, point 2).

The sender and the receiver are the `hosts` fixture's two config folders sharing one skills
folder; the receiver listens on a free loopback port in this process (`receiver`). The commands
run through the CLI as a user types them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

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


def _only_there(hosts: dict[str, Any], receiver: Any, v3_skill: Any, name: str, front: str) -> str:
    """A receiver whose own project has `name` (with frontmatter `front` under handoff:), which the sender lacks."""
    elsewhere = hosts["root"] / "elsewhere"
    folder = elsewhere / ".claude" / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: The {name} skill, on the other machine.\ncategories: [review, research]\n"
        "handoff:\n  schema_version: '3.0'\n  handoff_trigger: '--payload {payload_path} --deep'\n"
        f"{front}---\n# {name}\n",
        encoding="utf-8",
    )
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(hosts["root"] / "receiver-config")}
    url: str = receiver(context=make_context(elsewhere, env=env)).url
    return url


def test_handoff_to_a_target_only_the_receiving_host_has_is_built_from_its_card_and_taken_in(
    hosts, receiver, swarm_cli, v3_skill
):
    url = _only_there(hosts, receiver, v3_skill, "far-review", "  accepts_from: [alpha]\n")
    assert swarm_cli("discover", "--format", "json").json()["workflows"]  # the sender has skills, not this one
    assert "far-review" not in [w["skill"] for w in swarm_cli("discover", "--format", "json").json()["workflows"]]
    result = handoff(swarm_cli, hosts, "far-review", url)
    assert result.exit_code == 0, result.stdout + result.stderr
    data = result.json()
    assert (data["remote"]["state"], data["remote"]["delivered"]) == ("working", True)
    (local,) = written(hosts)
    target = json.loads(local.read_text(encoding="utf-8"))["handoff"]["target"]
    # what the card says of the remote skill: its invocation (trigger) and its first category
    invocation = "/far-review --payload {payload_path} --deep"
    assert target == {"skill": "far-review", "invocation": invocation, "category": "review"}
    (received,) = hosts["inbox"].rglob("handoffs/*.json")
    assert received.read_bytes() == local.read_bytes()


def test_handoff_to_a_remote_target_that_does_not_take_this_source_is_refused_before_anything_is_written(
    hosts, receiver, swarm_cli, v3_skill
):
    url = _only_there(hosts, receiver, v3_skill, "far-review", "  accepts_from: [someone-else]\n")
    result = handoff(swarm_cli, hosts, "far-review", url, "--override-accepts-from")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "SOURCE_NOT_ACCEPTED"
    assert url in error["hint"]  # the receiving host decides; an override here would be refused there
    assert written(hosts) == []
    assert not hosts["inbox"].exists() or list(hosts["inbox"].rglob("*.json")) == []


def test_handoff_to_a_remote_target_lacking_a_required_field_is_refused_here(hosts, receiver, swarm_cli, v3_skill):
    front = "  accepts_from: ['*']\n  requires: [context.known_gaps]\n"
    url = _only_there(hosts, receiver, v3_skill, "far-review", front)
    result = handoff(swarm_cli, hosts, "far-review", url)
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "VALIDATION_FAILED"
    assert error["details"]["missing_fields"] == ["context.known_gaps"]
    assert list(hosts["inbox"].rglob("handoffs/*.json")) == []  # nothing was sent


def test_a_target_both_hosts_have_is_built_from_the_remote_card(hosts, receiver, swarm_cli, v3_skill):
    url = _only_there(hosts, receiver, v3_skill, "beta", "  accepts_from: ['*']\n")  # the sender's beta differs
    result = handoff(swarm_cli, hosts, "beta", url)
    assert result.exit_code == 0, result.stdout + result.stderr
    (local,) = written(hosts)
    target = json.loads(local.read_text(encoding="utf-8"))["handoff"]["target"]
    assert target["invocation"] == "/beta --payload {payload_path} --deep"  # the receiver's trigger, not the sender's
    assert target["category"] == "review"


def card_requests(monkeypatch: Any) -> list[str]:
    """Every agent-card request this process makes, sync (the card cache) or async (the sender), as a host sees them."""
    import httpx

    seen: list[str] = []
    real_sync, real_async = httpx.Client.send, httpx.AsyncClient.send

    def sync_send(self: httpx.Client, request: httpx.Request, **kwargs: Any) -> httpx.Response:
        if request.url.path.endswith("agent-card.json"):
            seen.append(str(request.url))
        return real_sync(self, request, **kwargs)

    async def async_send(self: httpx.AsyncClient, request: httpx.Request, **kwargs: Any) -> httpx.Response:
        if request.url.path.endswith("agent-card.json"):
            seen.append(str(request.url))
        return await real_async(self, request, **kwargs)

    monkeypatch.setattr(httpx.Client, "send", sync_send)
    monkeypatch.setattr(httpx.AsyncClient, "send", async_send)
    return seen


@pytest.mark.parametrize("cache", ["on", "off"])
def test_handoff_to_reads_the_hosts_card_once(hosts, receiver, swarm_cli, monkeypatch, cache):
    """The card the target is checked against is the card the payload is sent with: one request per hand-off."""
    if cache == "off":
        monkeypatch.setenv("SWARM_HANDOFF_NO_CACHE", "1")
    url = receiver().url
    seen = card_requests(monkeypatch)
    result = handoff(swarm_cli, hosts, "beta", url)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.json()["remote"]["state"] == "working"
    assert len(seen) == 1, seen


def test_a_bad_expires_in_with_an_unreachable_host_is_a_usage_error_and_asks_no_host(hosts, swarm_cli, monkeypatch):
    """The cheap checks run first: a typo in --expires-in is said at once, not after the retries to a dead host."""
    import socket

    monkeypatch.setenv("SWARM_HANDOFF_A2A_ATTEMPTS", "1")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/"
    seen = card_requests(monkeypatch)
    result = handoff(swarm_cli, hosts, "beta", url, "--expires-in", "soon")
    assert result.exit_code == 2, result.stdout
    error = result.json()["error"]
    assert error["code"] == "USAGE"
    assert "--expires-in" in error["message"]
    assert seen == []  # no request left this machine
    assert written(hosts) == []
