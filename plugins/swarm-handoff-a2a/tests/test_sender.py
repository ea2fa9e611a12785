"""The sending host: our sender to our receiver and to a stock A2A server built with the SDK (issue 29, 2 and 6)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Task, TaskState, TaskStatus

from swarm_handoff.api import open_history
from swarm_handoff_a2a.auth import Auth
from swarm_handoff_a2a.extension import task_id_for
from swarm_handoff_a2a.receiver import A2A_AUTH_REQUIRED, build_receiver
from swarm_handoff_a2a.sender import Credentials, Retry, remote_skills, remote_status, send


def remote_rows(config):
    with open_history(config) as history:
        return history.remote()


def test_send_delivers_once_and_records_the_remote_task(hosts, receiver, payload):
    url = receiver().url
    path = payload()
    first = send(path, url, "beta")
    assert first.delivered
    assert first.state == "working"
    assert first.error is None
    again = send(path, url)  # a retry of the same payload: the same task
    assert again.task_id == first.task_id
    (row,) = remote_rows(hosts["sender_config"])
    assert (row["url"], row["task_id"], row["state"]) == (url, first.task_id, "working")
    assert row["payload_hash"] == first.payload_hash
    assert remote_status(url, first.task_id) == "working"


def test_a_target_the_host_does_not_have_is_refused_with_the_closest_names(hosts, receiver, payload, v3_skill):
    import os

    from swarm_handoff.api import make_context

    elsewhere = hosts["root"] / "elsewhere"
    v3_skill(elsewhere / ".claude" / "skills", "betas")
    context = make_context(elsewhere, env={**os.environ, "CLAUDE_CONFIG_DIR": str(hosts["root"] / "elsewhere-config")})
    url = receiver(context=context).url
    result = send(payload(), url)
    assert not result.delivered
    assert result.error["code"] == "TARGET_NOT_FOUND"
    assert result.error["hint"] == "did you mean: betas?"


def test_remote_skills_lists_the_card_with_its_caching_headers(hosts, receiver):
    url = receiver().url
    found = remote_skills(url)
    assert {s["id"] for s in found.skills} == {"alpha", "beta", "picky"}
    assert found.extension
    assert found.cache_control == "public, max-age=300"
    assert found.etag


def test_an_unreachable_host_is_retried_up_to_the_bound_and_reported_undelivered(hosts, payload):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = send(payload(), f"http://127.0.0.1:{port}/", retry=Retry(attempts=3, first=0.01, longest=0.02))
    assert not result.delivered
    assert result.attempts == 3
    assert result.error["code"] == "A2A_UNREACHABLE"
    (row,) = remote_rows(hosts["sender_config"])
    assert row["state"] == "undelivered"


def test_binding_beyond_loopback_needs_an_auth_scheme(hosts):
    with pytest.raises(Exception) as caught:
        build_receiver(hosts["inbox"], host="0.0.0.0", port=0, context=hosts["receiver_context"])
    assert getattr(caught.value, "code", None) == A2A_AUTH_REQUIRED


def test_a_bearer_token_from_the_environment_is_declared_and_required(hosts, receiver, payload, monkeypatch):
    monkeypatch.setenv("RECEIVER_TOKEN", "s3cret-token")
    running = receiver(auth=Auth.from_env("bearer", "RECEIVER_TOKEN"))
    card = remote_skills(running.url)  # the card is public
    assert card.skills
    refused = send(payload(), running.url, record=False)
    assert not refused.delivered
    assert "401" in refused.error["message"]
    ok = send(payload(), running.url, credentials=Credentials.from_env("RECEIVER_TOKEN"), record=False)
    assert ok.delivered
    assert ok.state == "working"


def test_a_client_over_its_rate_is_told_to_slow_down(hosts, receiver):
    import httpx

    url = receiver(rate=0.001, burst=2).url
    codes = [httpx.get(url.rstrip("/") + "/.well-known/agent-card.json").status_code for _ in range(3)]
    assert codes == [200, 200, 429]


class _Echo(AgentExecutor):
    """A plain A2A agent: completes every task, knows nothing of swarm-handoff."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        await event_queue.enqueue_event(
            Task(
                id=context.task_id,
                context_id=context.context_id,
                status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED),
            )
        )
        await TaskUpdater(event_queue, str(context.task_id), str(context.context_id)).complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


@pytest.fixture
def stock_server() -> Iterator[str]:
    """An A2A server built with the SDK alone, with a `beta` skill and no swarm-handoff extension."""
    import uvicorn
    from starlette.applications import Starlette

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    card = AgentCard(
        name="stock agent",
        description="An A2A agent that has never heard of swarm-handoff.",
        version="1.0",
        supported_interfaces=[AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")],
        capabilities=AgentCapabilities(streaming=False),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="beta", name="beta", description="Beta.", tags=["research"])],
    )
    handler = DefaultRequestHandler(agent_executor=_Echo(), task_store=InMemoryTaskStore(), agent_card=card)
    app = Starlette(routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, rpc_url="/")])
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive()
        time.sleep(0.01)
    yield url
    server.should_exit = True
    thread.join()
    sock.close()


def test_a_stock_host_without_the_extension_is_refused_clearly_and_nothing_is_sent(hosts, payload, stock_server):
    result = send(payload(), stock_server)
    assert not result.delivered
    assert result.task_id is None
    assert result.error["code"] == "A2A_NO_EXTENSION"
    assert "could not verify" in result.error["message"]
    skills: Any = remote_skills(stock_server)
    assert not skills.extension
    assert [s["id"] for s in skills.skills] == ["beta"]


def test_an_api_key_from_a_private_file_is_declared_and_required(hosts, receiver, payload, tmp_path):
    key_file = tmp_path / "a2a.key"
    key_file.write_text("k3y-from-a-file\n", encoding="utf-8")
    key_file.chmod(0o644)
    with pytest.raises(Exception) as caught:
        Auth.from_file("api-key", key_file)
    assert getattr(caught.value, "code", None) == "A2A_AUTH_SECRET"
    key_file.chmod(0o600)
    running = receiver(auth=Auth.from_file("api-key", key_file))
    import httpx

    card = httpx.get(running.url.rstrip("/") + "/.well-known/agent-card.json").json()
    assert card["securitySchemes"]["apiKey"]["apiKeySecurityScheme"] == {
        "location": "header",
        "name": "X-API-Key",
        "description": "API key",
    }
    assert not send(payload(), running.url, record=False).delivered
    credentials = Credentials.from_file(key_file, scheme="api-key")
    assert send(payload(), running.url, credentials=credentials, record=False).state == "working"


def test_a_signed_payload_is_accepted_with_the_shared_key_and_the_key_never_travels(hosts, receiver, payload):
    import shutil

    from swarm_handoff_a2a.extension import payload_message

    signed = payload(sign=True)
    key = hosts["sender_config"] / "swarm-handoff" / "signing.key"
    receiver_key = hosts["root"] / "receiver-config" / "swarm-handoff" / "signing.key"
    receiver_key.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(key, receiver_key)  # copied once, out of band
    text = signed.read_text(encoding="utf-8")
    wire = payload_message(text, "sha256:x", "beta").SerializeToString()
    assert key.read_bytes().strip() not in wire
    running = receiver(require_signature=True)
    assert send(signed, running.url, record=False).state == "working"
    # a payload signed with another key is refused
    receiver_key.write_bytes(b"0" * 64)
    other = receiver(require_signature=True, store_url=f"sqlite+aiosqlite:///{hosts['root'] / 'other.sqlite3'}")
    refused = send(payload(sign=True), other.url, record=False)
    assert refused.state == "rejected"
    assert refused.error["code"] == "RECEIVED_PAYLOAD_TAMPERED"


def test_the_same_payload_sent_by_five_senders_at_once_is_one_task_one_file_one_record(hosts, receiver, payload):
    from swarm_handoff_a2a.sender import send_many

    url = receiver().url
    path = payload()
    results = send_many([(path, url)] * 5, record=False)
    assert {r.state for r in results} == {"working"}
    assert len({r.task_id for r in results}) == 1
    assert len(list(hosts["inbox"].rglob("*.json"))) == 1
    with open_history(hosts["root"] / "receiver-config") as history:
        assert len(history.list()) == 1


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda path: path.write_text("x" * 5000, encoding="utf-8"), "larger"),
        (lambda path: path.mkdir(), "token file"),
        (lambda path: path.write_bytes(b"\xff\xfe\x00t"), "UTF-"),
        (lambda path: path.write_text("\n\n", encoding="utf-8"), "empty"),
    ],
    ids=["oversized", "a-folder", "not-utf8", "empty"],
)
def test_a_token_file_that_is_not_a_small_text_file_is_refused_by_both_ends(tmp_path, make, says):
    """The receiver's and the sender's token files go through the core's checked reader: coded, naming the file."""
    from swarm_handoff.api import SwarmError

    path = tmp_path / "a2a.token"
    make(path)
    if path.is_file():
        path.chmod(0o600)
    for read in (lambda: Auth.from_file("bearer", path), lambda: Credentials.from_file(path)):
        with pytest.raises(SwarmError) as caught:
            read()
        assert caught.value.code == "A2A_AUTH_SECRET"
        assert str(path) in caught.value.message
        assert says in caught.value.message


def test_a_send_over_plain_http_loads_no_certificate_bundle(hosts, receiver, payload, monkeypatch):
    """Loading the CA bundle cost ~100 ms of every send on loopback, for a connection with no TLS."""
    import ssl

    loaded: list[str] = []
    real = ssl.SSLContext.load_verify_locations

    def counted(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        loaded.append(str(args or kwargs))
        real(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    running = receiver()
    path = payload()
    assert send(path, running.url).state == "working"
    assert remote_status(running.url, task_id_for(path.read_text(encoding="utf-8"))) == "working"
    assert remote_skills(running.url).skills
    assert loaded == []


def test_an_https_url_is_verified_against_the_system_bundle():
    """Only a plain-http URL skips the bundle; TLS is checked as before, and a plain-http client trusts no TLS."""
    import ssl

    from swarm_handoff_a2a.bounded import tls_verification

    assert tls_verification("https://example.org/") is True
    plain = tls_verification("http://127.0.0.1:8470/")
    assert isinstance(plain, ssl.SSLContext)
    assert plain.verify_mode == ssl.CERT_REQUIRED
    assert plain.check_hostname
    assert plain.cert_store_stats()["x509_ca"] == 0  # a redirect to https fails closed
