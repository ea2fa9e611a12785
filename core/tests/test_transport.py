"""`handoff TARGET --to URL` and `ack` through the transport hook (issue 29.2), with a transport of the test's own.

The core knows no network: a plugin registers a `Transport` under a URL scheme
(`swarm_handoff_transports`). These tests register an in-memory one for `memory://` and check what
the core does around it: refuse `--to` when no plugin takes the scheme (nothing written), check the
target against the remote skills first (did-you-mean, nothing written), write the payload locally
as today and then send it, report the remote task, and let the transport follow an `ack`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from swarm_handoff.api import RemoteDelivery, RemoteSkill, hookimpl
from swarm_handoff.components import Transport
from swarm_handoff.records import SkillRecord

SYNTHESIS = "original_prompt: Plan it.\nproblem_type: decision\nsynthesis_summary: Plan.\n"
RECORDS = (
    SkillRecord(
        name="deep",
        scope="global",
        source="test",
        categories=("analysis",),
        accepts_from=("*",),
        protocol_version="3.0",
    ),
)


class MemoryTransport:
    """A transport to a pretend host: its skills are fixed, what it is sent is kept."""

    def __init__(self, skills: Sequence[str] = ("deep",), state: str = "working") -> None:
        self.remote = tuple(RemoteSkill(id=s, name=s, description=f"The {s} skill.") for s in skills)
        self.state = state
        self.sent: list[tuple[Path, str, str]] = []
        self.acks: list[tuple[Path, str]] = []
        self.asked: list[str] = []  # each time the host is asked for its skills (over the network, for a real one)

    def skills(self, url: str) -> Sequence[RemoteSkill]:
        self.asked.append(url)
        return self.remote

    def send(self, payload: Path, url: str, target: str) -> RemoteDelivery:
        self.sent.append((payload, url, target))
        return RemoteDelivery(url=url, target=target, task_id="task-1", state=self.state, delivered=True)

    def acknowledged(self, payload: Path, status: str) -> str | None:
        self.acks.append((payload, status))
        return f"remote task task-1: {status}" if "carried" in payload.name else None


@pytest.fixture
def world(handoff_world: Any) -> Any:
    return handoff_world(RECORDS, SYNTHESIS)


@pytest.fixture
def memory(register_plugin: Any) -> MemoryTransport:
    transport = MemoryTransport()

    class Plugin:
        @hookimpl
        def swarm_handoff_transports(self, register: Any) -> None:
            register("memory", lambda: transport, summary="an in-memory host")

    register_plugin(Plugin(), "memory-transport")
    return transport


def handoff(swarm_cli: Any, world: Any, *extra: str) -> Any:
    return swarm_cli(
        "handoff", "deep", "--synthesis", str(world["synthesis"]), "--source", "planner",
        "--session", str(world["session"]), *extra,
    )  # fmt: skip


def payloads(world: Any) -> list[Path]:
    return sorted((world["session"] / "handoffs").glob("*")) if (world["session"] / "handoffs").exists() else []


def test_to_without_a_transport_for_the_scheme_is_refused_naming_the_plugin_and_nothing_is_written(
    swarm_cli: Any, world: Any
) -> None:
    result = handoff(swarm_cli, world, "--to", "http://127.0.0.1:8470/", "-f", "json")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "TRANSPORT_MISSING"
    assert "http" in error["message"]
    assert "swarm-handoff-a2a" in error["hint"]
    assert payloads(world) == []


def test_to_that_is_not_a_url_is_a_usage_error(swarm_cli: Any, world: Any, memory: MemoryTransport) -> None:
    result = handoff(swarm_cli, world, "--to", "not a url", "-f", "json")
    assert result.exit_code == 2
    assert result.json()["error"]["code"] == "USAGE"
    assert "--to" in result.json()["error"]["message"]
    assert memory.sent == []


def test_to_writes_the_payload_locally_then_sends_it_and_reports_the_remote_task(
    swarm_cli: Any, world: Any, memory: MemoryTransport
) -> None:
    result = handoff(swarm_cli, world, "--to", "memory://far-away", "-f", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    data = result.json()
    (written,) = payloads(world)
    assert data["payload_path"] == str(written)
    assert memory.sent == [(written, "memory://far-away", "deep")]
    assert data["remote"] == {
        "url": "memory://far-away",
        "target": "deep",
        "task_id": "task-1",
        "state": "working",
        "delivered": True,
        "attempts": 1,
        "error": None,
    }
    assert "sent to memory://far-away: working (task task-1)" in result.stderr
    text = handoff(swarm_cli, world, "--to", "memory://far-away")
    assert text.exit_code == 0, text.stderr
    assert text.stdout.startswith("handed off to deep: ")
    assert "sent to memory://far-away: working (task task-1)" in text.stderr


def test_a_target_the_remote_host_lacks_is_refused_with_the_closest_names_before_anything_is_written(
    swarm_cli: Any, world: Any, memory: MemoryTransport
) -> None:
    memory.remote = (RemoteSkill(id="deeper", name="deeper"),)
    result = handoff(swarm_cli, world, "--to", "memory://far-away", "-f", "json")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "TARGET_NOT_FOUND"
    assert error["hint"] == "did you mean: deeper?"
    assert error["details"]["closest"] == ["deeper"]
    assert error["details"]["remote"] == "memory://far-away"
    assert payloads(world) == []
    assert memory.sent == []


def test_a_refused_or_undelivered_send_keeps_the_local_payload_and_exits_1(
    swarm_cli: Any, world: Any, memory: MemoryTransport
) -> None:
    memory.state = "rejected"
    result = handoff(swarm_cli, world, "--to", "memory://far-away", "-f", "json")
    assert result.exit_code == 1
    assert result.json()["remote"]["state"] == "rejected"
    assert len(payloads(world)) == 1


def test_without_to_the_hand_off_never_asks_a_transport(swarm_cli: Any, world: Any, memory: MemoryTransport) -> None:
    result = handoff(swarm_cli, world, "-f", "json")
    assert result.exit_code == 0, result.stderr
    assert "remote" not in result.json()
    assert memory.sent == []


def test_ack_tells_each_transport_and_prints_only_what_one_says(
    swarm_cli: Any, world: Any, memory: MemoryTransport
) -> None:
    made = handoff(swarm_cli, world, "-f", "json")
    local = Path(made.json()["payload_path"])
    plain = swarm_cli("ack", str(local), "--status", "success")
    assert plain.exit_code == 0, plain.stderr
    assert plain.stderr == ""
    assert memory.acks == [(local.resolve(), "success")]
    carried = local.with_name("carried-" + local.name)
    carried.write_bytes(local.read_bytes())
    told = swarm_cli("ack", str(carried), "--status", "failure")
    assert told.exit_code == 0, told.stderr
    assert told.stdout.startswith("acknowledged:")
    assert "remote task" not in told.stdout  # the document is the ack's own; the transport's line is a note
    assert "remote task task-1: failure" in told.stderr


def test_a_transport_that_fails_on_ack_is_a_warning_and_the_ack_stays_recorded(
    swarm_cli: Any, world: Any, memory: MemoryTransport
) -> None:
    def broken(payload: Path, status: str) -> str | None:
        raise RuntimeError("the task store is gone")

    memory.acknowledged = broken  # type: ignore[method-assign]
    made = handoff(swarm_cli, world, "-f", "json")
    told = swarm_cli("ack", made.json()["payload_path"], "--status", "success", "-f", "json")
    assert told.exit_code == 0, told.stderr
    assert told.json()["handoff"]["status"] == "success"
    assert "TRANSPORT_FAILED" in told.stderr
    assert "the task store is gone" in told.stderr


def test_the_in_memory_transport_meets_the_protocol() -> None:
    assert isinstance(MemoryTransport(), Transport)


def test_discover_remote_lists_the_hosts_skills_from_its_transport(
    swarm_cli: Any, world: Any, memory: MemoryTransport
) -> None:
    memory.remote = (
        RemoteSkill(id="far-review", name="Far review", description="Reviews from afar.", tags=("review",)),
        RemoteSkill(id="deep", description="The deep skill, there."),
    )
    found = swarm_cli("discover", "--remote", "memory://far-away", "-f", "json")
    assert found.exit_code == 0, found.stderr
    data = found.json()
    assert data["url"] == "memory://far-away"
    assert [s["id"] for s in data["skills"]] == ["far-review", "deep"]
    assert data["skills"][0]["tags"] == ["review"]
    text = swarm_cli("discover", "--remote", "memory://far-away")
    assert text.stdout.splitlines()[0] == "2 skill(s) accept a hand-off at memory://far-away"
    assert "  far-review  Reviews from afar. [review]" in text.stdout


def test_discover_remote_without_a_transport_is_refused(swarm_cli: Any, world: Any) -> None:
    found = swarm_cli("discover", "--remote", "http://127.0.0.1:1/", "-f", "json")
    assert found.exit_code == 1
    assert found.json()["error"]["code"] == "TRANSPORT_MISSING"


def test_discover_remote_with_a_local_filter_is_a_usage_error(
    swarm_cli: Any, world: Any, memory: MemoryTransport
) -> None:
    found = swarm_cli("discover", "--remote", "memory://far-away", "--category", "review", "-f", "json")
    assert found.exit_code == 2
    assert "--remote" in found.json()["error"]["message"]


def test_rank_remote_ranks_the_hosts_skills_beside_the_local_ones_marked_with_their_url(
    swarm_cli: Any, world: Any, memory: MemoryTransport
) -> None:
    memory.remote = (RemoteSkill(id="far-analysis", description="Analysis from afar.", tags=("analysis",)),)
    local = swarm_cli("rank", "--synthesis", str(world["synthesis"]), "-f", "json")
    ranked = swarm_cli("rank", "--synthesis", str(world["synthesis"]), "--remote", "memory://far-away", "-f", "json")
    assert ranked.exit_code == 0, ranked.stderr
    entries = {e["skill"]: e for e in ranked.json()["workflows"]}
    assert set(entries) == {"deep", "far-analysis"}
    assert entries["far-analysis"]["remote"] == "memory://far-away"
    assert "remote" not in entries["deep"]
    assert [sorted(e) for e in local.json()["workflows"]] == [sorted(entries["deep"])]  # as it was without --remote
    text = swarm_cli("rank", "--synthesis", str(world["synthesis"]), "--remote", "memory://far-away")
    assert "remote: memory://far-away" in text.stdout


def test_to_builds_the_payload_for_the_remote_cards_skill_even_when_one_here_has_the_name(
    swarm_cli: Any, world: Any, memory: MemoryTransport
) -> None:
    memory.remote = (
        RemoteSkill(
            id="deep", tags=("review",), trigger="--from-card {payload_path}", requires=("context.known_gaps",)
        ),
    )
    refused = handoff(swarm_cli, world, "--to", "memory://far-away", "-f", "json")
    assert refused.exit_code == 1  # the card's `requires`, not the local record's (which has none)
    assert refused.json()["error"]["details"]["missing_fields"] == ["context.known_gaps"]
    assert memory.sent == []
    memory.remote = (RemoteSkill(id="deep", tags=("review",), trigger="--from-card {payload_path}"),)
    result = handoff(swarm_cli, world, "--to", "memory://far-away", "-f", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    target = json.loads(Path(result.json()["payload_path"]).read_text(encoding="utf-8"))["handoff"]["target"]
    assert target == {"skill": "deep", "invocation": "/deep --from-card {payload_path}", "category": "review"}


def test_to_a_remote_target_refuses_what_only_this_machine_could_do(
    swarm_cli: Any, world: Any, memory: MemoryTransport
) -> None:
    schema = handoff(swarm_cli, world, "--to", "memory://far-away", "--schema", "2.0", "-f", "json")
    assert schema.exit_code == 2
    assert "v3.0" in schema.json()["error"]["message"]
    health = handoff(swarm_cli, world, "--to", "memory://far-away", "--health-check", "-f", "json")
    assert health.exit_code == 2
    assert "runs there" in health.json()["error"]["message"]
    assert payloads(world) == []
    assert memory.sent == []


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (("--expires-in", "soon"), "--expires-in"),
        (("--chain", "planner,bad\u0007name"), "control character"),
        (("--request", "plan it"), "give one"),  # beside --synthesis: two ways to give the context
        (("--problem-type", "decision"), "--problem-type goes with --request"),
    ],
)
def test_to_checks_the_options_before_it_asks_the_remote_host(
    swarm_cli: Any, world: Any, memory: MemoryTransport, extra: tuple[str, ...], words: str
) -> None:
    """A bad option is a USAGE error at once: the host (unreachable, or slow) is never asked first."""
    result = handoff(swarm_cli, world, "--to", "memory://host", *extra, "-f", "json")
    assert result.exit_code == 2, result.stdout
    error = result.json()["error"]
    assert error["code"] == "USAGE"
    assert words in error["message"]
    assert memory.asked == []
    assert memory.sent == []
