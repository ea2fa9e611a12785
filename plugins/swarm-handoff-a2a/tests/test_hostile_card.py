"""A card is another host's say-so: a hostile one (endless, deep, slow) is refused with a code, never a traceback."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

CHUNK = b" " * 65_536


@pytest.fixture
def hostile() -> Iterator[Callable[..., dict[str, Any]]]:
    """Return `serve(body=b"", endless=False, dribble=False)`: a host whose card is `body`, then spaces without end
    (`endless`) or one space every 50 ms (`dribble`); what it saw, and its URL."""
    servers: list[ThreadingHTTPServer] = []

    def serve(
        body: bytes | Callable[[str], bytes] = b"", *, endless: bool = False, dribble: bool = False
    ) -> dict[str, Any]:
        # `done`: the card's answer ended; `replied`: the answer to a message (POST) ended. Two events,
        # because the card is read first: waiting on one event for both raced with the reply.
        seen: dict[str, Any] = {"written": 0, "done": threading.Event(), "replied": threading.Event()}

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # a JSON-RPC reply that never ends
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                try:
                    self.wfile.write(b'{"jsonrpc": "2.0", "id": 1, "result": ')
                    for _ in range(6000 if dribble else 0):  # a byte at a time, for minutes
                        self.wfile.write(b" ")
                        self.wfile.flush()
                        time.sleep(0.05)
                    while seen["written"] < 256 * 1024 * 1024:
                        self.wfile.write(CHUNK)
                        seen["written"] += len(CHUNK)
                except OSError:
                    seen["hung_up"] = True
                finally:
                    seen["replied"].set()

            def do_GET(self) -> None:
                card = body(seen["url"]) if callable(body) else body
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if not endless and not dribble:
                    self.send_header("Content-Length", str(len(card)))
                self.end_headers()
                try:
                    self.wfile.write(card)
                    if not callable(body):
                        seen["written"] += len(card)
                    for _ in range(6000 if dribble else 0):  # a byte at a time, for minutes
                        self.wfile.write(b" ")
                        self.wfile.flush()
                        time.sleep(0.05)
                    while endless and seen["written"] < 256 * 1024 * 1024:  # the client stops it long before
                        self.wfile.write(CHUNK)
                        seen["written"] += len(CHUNK)
                except OSError:  # the client hung up: what this test wants
                    seen["hung_up"] = True
                finally:
                    seen["done"].set()

            def log_message(self, *args: Any) -> None:
                return

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        seen["url"] = f"http://127.0.0.1:{server.server_address[1]}"
        return seen

    try:
        yield serve
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


def test_an_endless_card_is_cut_at_its_bound_not_read_to_the_end(hostile, swarm_cli, monkeypatch):
    monkeypatch.setenv("SWARM_HANDOFF_A2A_ATTEMPTS", "1")
    host = hostile(b'{"name": "x", "skills": [', endless=True)
    found = swarm_cli("discover", "--remote", host["url"], "-f", "json")
    assert found.exit_code == 1
    assert found.json()["error"]["code"] == "A2A_REMOTE_ERROR"
    assert "1048576" in found.json()["error"]["message"]
    host["done"].wait(120)  # only a safety net: the host ends as soon as the sender hangs up
    assert host.get("hung_up")  # the sender stopped reading; it never took in the 256 MiB offered


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 200_000,  # deeper than Python's JSON reader can go
        b'{"name": "x", "capabilities": {"extensions": [{"uri": "u", "params": '
        + b'{"a": ' * 500
        + b"{}"
        + b"}" * 500
        + b"}]}}",  # deeper than the card's reader (protobuf) takes
    ],
    ids=["json-depth", "struct-depth"],
)
def test_a_deeply_nested_card_is_refused_with_a_code(hostile, swarm_cli, monkeypatch, body):
    monkeypatch.setenv("SWARM_HANDOFF_A2A_ATTEMPTS", "1")
    host = hostile(body)
    for args in (("discover", "--remote", host["url"]), ("a2a", "skills", host["url"])):
        found = swarm_cli(*args, "-f", "json")
        assert found.exit_code == 1, found.stdout
        assert found.json()["error"]["code"] == "A2A_REMOTE_ERROR", args


def test_a_card_that_arrives_a_byte_at_a_time_is_refused_at_the_bound(hostile, swarm_cli, monkeypatch):
    from swarm_handoff_a2a import bounded

    monkeypatch.setenv("SWARM_HANDOFF_A2A_ATTEMPTS", "1")
    monkeypatch.setattr(bounded, "CARD_READ_S", 0.5)  # product bound, made small; no time is asserted here
    host = hostile(b'{"name": "x", ', dribble=True)
    found = swarm_cli("discover", "--remote", host["url"], "-f", "json")
    assert found.exit_code == 1
    assert found.json()["error"]["code"] == "A2A_REMOTE_ERROR"
    assert "took more than 0.5 s" in found.json()["error"]["message"]


def _card_with(text: str) -> bytes:
    import json

    skill = {"id": "evil", "name": text, "description": text, "tags": [text], "examples": [text]}
    extension = {"uri": "urn:swarm-handoff:a2a:handoff-payload:v1", "params": {}}
    card = {"name": text, "description": text, "version": "1", "skills": [skill]}
    return json.dumps({**card, "capabilities": {"extensions": [extension]}}).encode()


def test_a_cards_text_reaches_the_terminal_with_its_control_characters_escaped(hostile, swarm_cli, monkeypatch):
    monkeypatch.setenv("SWARM_HANDOFF_A2A_ATTEMPTS", "1")
    host = hostile(_card_with("x\u001b]0;owned\u0007\u001b[2J\rcleared\u009b31m"))
    for args in (("discover", "--remote", host["url"]), ("a2a", "skills", host["url"])):
        found = swarm_cli(*args)
        assert found.exit_code == 0, found.stdout
        assert "evil" in found.stdout
        for raw in ("\u001b", "\u0007", "\r", "\u009b"):
            assert raw not in found.stdout + found.stderr, (args, raw)


def test_a_cards_skill_ids_in_a_refusal_and_a_ranking_are_escaped(hostile, hosts, swarm_cli, monkeypatch):
    import json

    monkeypatch.setenv("SWARM_HANDOFF_A2A_ATTEMPTS", "1")
    evil = "ev\u001b[2Jil"
    card = json.loads(_card_with("plain"))
    card["skills"][0]["id"] = evil
    host = hostile(json.dumps(card).encode())
    session, synthesis = str(hosts["session"]), str(hosts["synthesis"])
    refused = swarm_cli("handoff", "evil", "--to", host["url"], "--session", session, "--synthesis", synthesis)
    ranked = swarm_cli("rank", "--synthesis", synthesis, "--remote", host["url"], "--top", "10")
    assert refused.exit_code != 0
    for found in (refused, ranked):
        assert "\u001b" not in found.stdout + found.stderr, found.stdout + found.stderr


def test_a_card_skill_id_that_is_a_path_writes_nothing_outside_the_session(hostile, hosts, swarm_cli, monkeypatch):
    import json

    monkeypatch.setenv("SWARM_HANDOFF_A2A_ATTEMPTS", "1")
    card = json.loads(_card_with("plain"))
    card["skills"][0]["id"] = "../../escaped"
    host = hostile(json.dumps(card).encode())
    session, synthesis = hosts["session"], str(hosts["synthesis"])
    before = {p for p in hosts["root"].rglob("*") if not p.is_relative_to(session)}
    found = swarm_cli(
        "handoff",
        "../../escaped",
        "--to",
        host["url"],
        "--session",
        str(session),
        "--synthesis",
        synthesis,
        "--source",
        "alpha",
        "-f",
        "json",
    )
    assert found.exit_code != 0
    assert found.json()["error"]["code"] == "UNSAFE_NAME", found.stdout
    after = {p for p in hosts["root"].rglob("*") if not p.is_relative_to(session)}
    assert {p for p in after - before if "escaped" in p.name} == set()


def test_a_card_listing_more_skills_than_the_bound_is_refused(hostile, swarm_cli, monkeypatch):
    import json

    from swarm_handoff_a2a.bounded import MAX_CARD_SKILLS

    monkeypatch.setenv("SWARM_HANDOFF_A2A_ATTEMPTS", "1")
    card = json.loads(_card_with("plain"))
    card["skills"] = [{"id": f"s{n}", "name": "s", "description": "", "tags": []} for n in range(MAX_CARD_SKILLS + 1)]
    host = hostile(json.dumps(card).encode())
    found = swarm_cli("discover", "--remote", host["url"], "-f", "json")
    assert found.exit_code == 1
    assert found.json()["error"]["code"] == "A2A_REMOTE_ERROR"
    assert f"more than {MAX_CARD_SKILLS} skills" in found.json()["error"]["message"]


def hostile_card(url: str) -> bytes:
    """A card that takes our payloads for `beta`: what a hostile host shows to be sent to."""
    import json

    from swarm_handoff_a2a.extension import EXTENSION_URI

    skill = {"id": "beta", "name": "beta", "description": "", "tags": []}
    interface = {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    return json.dumps(
        {
            "name": "hostile",
            "description": "",
            "version": "1",
            "supportedInterfaces": [interface],
            "capabilities": {"extensions": [{"uri": EXTENSION_URI}]},
            "skills": [skill],
        }
    ).encode()


def test_a_reply_to_a_send_that_arrives_a_byte_at_a_time_is_cut_at_the_bound(hostile, payload, monkeypatch):
    from swarm_handoff_a2a import bounded, sender

    monkeypatch.setattr(bounded, "REPLY_READ_S", 0.5)  # product bound, made small; no time is asserted here
    host = hostile(hostile_card, dribble=True)
    result = sender.send(payload(), host["url"], retry=sender.Retry(attempts=1), record=False)
    assert not result.delivered
    assert result.error is not None
    assert "took more than 0.5 s" in str(result.error["message"]), result.error


def test_an_endless_reply_to_a_send_is_cut_at_its_bound(hostile, payload):
    """The host's answer to the message is bounded as its card is: a sender never reads an endless reply."""
    from swarm_handoff_a2a.sender import Retry, send

    host = hostile(hostile_card)
    result = send(payload(), host["url"], retry=Retry(attempts=1), record=False)
    assert not result.delivered
    assert result.error is not None
    assert "bytes" in str(result.error["message"]), result.error
    host["replied"].wait(120)  # only a safety net: the host ends as soon as the sender hangs up
    assert host.get("hung_up")


def test_a_card_that_is_not_json_is_a_failed_send_not_a_traceback(hostile, payload):
    """A host that answers its card's address with a web page: the send says so, it does not crash."""
    from swarm_handoff_a2a.sender import Retry, send

    host = hostile(b"<html>not an agent card</html>")
    result = send(payload(), host["url"], retry=Retry(attempts=1), record=False)
    assert not result.delivered
    assert result.error is not None
    assert "agent card cannot be read" in str(result.error["message"]), result.error
