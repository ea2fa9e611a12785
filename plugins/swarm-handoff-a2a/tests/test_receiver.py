"""The receiving host against the SDK's own client: card, accepted, duplicate, refused (issue 29, points 1 and 6)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import GetTaskRequest, SendMessageRequest, Task, TaskState
from google.protobuf.json_format import MessageToDict

from swarm_handoff.api import SwarmError, open_history
from swarm_handoff.testing import reseal
from swarm_handoff_a2a.extension import EXTENSION_URI, payload_message


def stock_send(url: str, message: Any) -> Task:
    """Send with the SDK's client as any A2A agent would (no swarm-handoff code on this side)."""

    async def go() -> Task:
        async with httpx.AsyncClient(timeout=60) as http:
            card = await A2ACardResolver(http, url).get_agent_card()
            client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
            async for response in client.send_message(SendMessageRequest(message=message)):
                return response.task
        raise AssertionError("no task")

    return asyncio.run(go())


def message_for(text: str, target: str = "beta") -> Any:
    try:
        stated = json.loads(text)["handoff"]["meta"]["payload_hash"]
    except (ValueError, TypeError, KeyError):
        stated = "sha256:unknown"
    return payload_message(text, stated, target)


def files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def received_rows(hosts):
    with open_history(hosts["receiver_context"].config_dir) as history:
        return history.list()


def said_to_sender(task: Task) -> str:
    """Everything a refused or accepted task tells the sender: its status message's text and data parts."""
    parts = task.status.message.parts
    return "\n".join(
        [p.text for p in parts if p.text] + [json.dumps(MessageToDict(p.data)) for p in parts if p.HasField("data")]
    )


def local_places(hosts: dict[str, Any]) -> tuple[str, ...]:
    """What a sender on another host must never learn: the receiver's folders, home and temp dir, its user."""
    import os
    import tempfile

    return (
        str(hosts["root"]),
        str(hosts["root"].resolve()),
        str(Path.home()),
        tempfile.gettempdir(),
        f"uid {os.getuid()}",
        f"uid {os.getuid() + 4242}",
    )


def sender_error(task: Task) -> dict[str, Any]:
    from swarm_handoff_a2a.extension import ERROR_MEDIA_TYPE

    (error,) = [MessageToDict(p.data) for p in task.status.message.parts if p.media_type == ERROR_MEDIA_TYPE]
    return error


def test_the_card_lists_the_accepting_skills_and_declares_the_extension(hosts, receiver):
    url = receiver().url
    card = httpx.get(url.rstrip("/") + "/.well-known/agent-card.json").json()
    skills = {s["id"]: s for s in card["skills"]}
    assert set(skills) == {"alpha", "beta", "picky"}
    assert skills["beta"]["tags"] == ["research"]
    assert skills["beta"]["description"] == "The beta skill."
    assert skills["beta"]["examples"] == ["Review the market entry plan"]
    assert [e["uri"] for e in card["capabilities"]["extensions"]] == [EXTENSION_URI]
    assert card["supportedInterfaces"][0]["url"] == url


def test_a_stock_client_hands_off_and_the_task_is_working_with_the_payload_written_and_recorded(
    hosts, receiver, payload
):
    url = receiver().url
    text = payload().read_text(encoding="utf-8")
    task = stock_send(url, message_for(text))
    assert task.status.state == TaskState.TASK_STATE_WORKING
    written = list(files_under(hosts["inbox"]))
    assert len(written) == 1
    assert written[0].read_text(encoding="utf-8") == text
    assert [r.status for r in received_rows(hosts)] == ["received"]
    # the same payload again is the same task, and nothing new is written or recorded
    again = stock_send(url, message_for(text))
    assert again.id == task.id
    assert files_under(hosts["inbox"]) == written
    assert len(received_rows(hosts)) == 1


def tamper(text: str) -> str:
    data = json.loads(text)
    data["handoff"]["context"]["synthesis_summary"] = "Something else entirely."
    return json.dumps(data, indent=2)


def resealed(text: str, change: Any) -> str:
    """A well-formed payload someone else wrote: changed, then sealed again (its hash matches)."""
    data = json.loads(text)
    change(data["handoff"])
    for key in ("payload_hash", "payload_size_bytes"):
        data["handoff"]["meta"].pop(key, None)
    return json.dumps(reseal(data), indent=2)


def expire(text: str) -> str:
    def change(handoff: dict[str, Any]) -> None:
        handoff["timestamp"], handoff["expires_at"] = "2020-01-01T00:00:00Z", "2020-01-01T01:00:00Z"
        for event in handoff["tracing"]["events"]:
            event["timestamp"] = "2020-01-01T00:00:00Z"

    return resealed(text, change)


def loop(text: str) -> str:
    return resealed(text, lambda handoff: handoff["meta"].update(handoff_chain=["beta", "alpha"]))


def oversize(text: str) -> str:
    return " " * (4 * 1024 * 1024 + 1) + text  # over the payload limit, under the request limit


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (tamper, "RECEIVED_PAYLOAD_TAMPERED"),
        (expire, "RECEIVED_PAYLOAD_EXPIRED"),
        (loop, "RECEIVED_PAYLOAD_INVALID"),
        (oversize, "INVALID_PAYLOAD"),
        (lambda t: "[" * 200 + "]" * 200, "INVALID_PAYLOAD"),
        (lambda t: "{not json", "INVALID_PAYLOAD"),
        (lambda t: resealed(t, lambda handoff: handoff["target"].update(skill="gamma")), "TARGET_NOT_FOUND"),
    ],
    ids=["tampered", "expired", "looping", "oversized", "too-deep", "not-json", "unknown-target"],
)
def test_a_refused_payload_is_rejected_with_its_code_and_nothing_is_written(hosts, receiver, payload, change, code):
    url = receiver(max_request_bytes=6 * 1024 * 1024).url
    text = change(payload().read_text(encoding="utf-8"))
    task = stock_send(url, message_for(text))
    assert task.status.state == TaskState.TASK_STATE_REJECTED
    errors = [MessageToDict(p.data) for p in task.status.message.parts if p.HasField("data")]
    assert errors[0]["code"] == code
    assert errors[0]["hint"]
    shown = said_to_sender(task)
    for private in (*local_places(hosts), ".incoming"):  # the sender is on another host
        assert private not in shown
    assert files_under(hosts["inbox"]) == []
    assert received_rows(hosts) == []


def test_a_message_without_a_payload_is_rejected(hosts, receiver):
    from a2a.types import Message, Part, Role

    url = receiver().url
    task = stock_send(url, Message(message_id="m1", role=Role.ROLE_USER, parts=[Part(text="hello")]))
    assert task.status.state == TaskState.TASK_STATE_REJECTED
    assert "A2A_NOT_A_HANDOFF" in task.status.message.parts[0].text


def test_an_unsigned_payload_is_rejected_when_the_receiver_requires_a_signature(hosts, receiver, payload):
    url = receiver(require_signature=True).url
    task = stock_send(url, message_for(payload().read_text(encoding="utf-8")))
    assert task.status.state == TaskState.TASK_STATE_REJECTED
    assert "RECEIVED_PAYLOAD_UNSIGNED" in task.status.message.parts[0].text
    assert not [p for p in local_places(hosts) if p in said_to_sender(task)]
    assert files_under(hosts["inbox"]) == []


def test_a_source_the_skill_does_not_accept_is_rejected(hosts, receiver, payload):
    url = receiver().url
    # picky accepts only someone-else; alpha's payload for it is built with the sender's override
    text = payload("picky", override_accepts_from=True).read_text(encoding="utf-8")
    task = stock_send(url, message_for(text, "picky"))
    assert task.status.state == TaskState.TASK_STATE_REJECTED
    assert "SOURCE_NOT_ACCEPTED" in task.status.message.parts[0].text
    assert not [p for p in local_places(hosts) if p in said_to_sender(task)]
    assert files_under(hosts["inbox"]) == []


def test_a_request_over_the_limit_is_refused_before_it_is_parsed(hosts, receiver):
    url = receiver(max_request_bytes=10_000).url
    response = httpx.post(url, content=b"{" + b" " * 20_000, headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "A2A_REQUEST_TOO_LARGE"


def stock_get(url: str, task_id: str) -> Task:
    async def go() -> Task:
        async with httpx.AsyncClient(timeout=60) as http:
            card = await A2ACardResolver(http, url).get_agent_card()
            client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
            return await client.get_task(GetTaskRequest(id=task_id))

    return asyncio.run(go())


@pytest.mark.parametrize(("status", "state"), [("success", "completed"), ("failure", "failed")])
def test_the_receiving_agents_ack_completes_or_fails_the_task(hosts, receiver, payload, status, state):
    from swarm_handoff_a2a.ack import A2A_TASK_FINAL, ack_task

    running = receiver()
    task = stock_send(running.url, message_for(payload().read_text(encoding="utf-8")))
    (written,) = files_under(hosts["inbox"])
    assert ack_task("processed", payload_path=written, store_url=running.store_url) == "working"
    assert ack_task(status, payload_path=written, store_url=running.store_url) == state
    assert stock_get(running.url, task.id).status.state == getattr(TaskState, f"TASK_STATE_{state.upper()}")
    assert ack_task(status, task_id=task.id, store_url=running.store_url) == state  # the same ack again: no change
    other = "failure" if status == "success" else "success"
    with pytest.raises(Exception) as caught:
        ack_task(other, task_id=task.id, store_url=running.store_url)
    assert getattr(caught.value, "code", None) == A2A_TASK_FINAL


def test_a_history_that_cannot_record_rejects_and_the_same_payload_sent_again_is_taken_in(
    hosts, receiver, payload, monkeypatch
):
    """Accepted means recorded: a busy history rejects (HISTORY_BUSY); a retry is checked again, not refused again."""
    import sqlite3

    with open_history(hosts["receiver_context"].config_dir) as history:
        database = history.path
    url = receiver().url
    text = payload().read_text(encoding="utf-8")
    monkeypatch.setenv("SWARM_HANDOFF_HISTORY_TIMEOUT", "0.05")
    holder = sqlite3.connect(str(database), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process holds the receiver's history
    try:
        task = stock_send(url, message_for(text))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert task.status.state == TaskState.TASK_STATE_REJECTED
    errors = [MessageToDict(p.data) for p in task.status.message.parts if p.HasField("data")]
    assert errors[0]["code"] == "HISTORY_BUSY"
    assert files_under(hosts["inbox"]) == []
    again = stock_send(url, message_for(text))
    assert again.id == task.id
    assert again.status.state == TaskState.TASK_STATE_WORKING
    assert len(files_under(hosts["inbox"])) == 1
    assert [r.status for r in received_rows(hosts)] == ["received"]


def test_the_messages_own_target_and_hash_are_bounded_before_they_label_a_span():
    """They are the sender's say-so (the checked payload decides); a huge one must not reach a trace exporter."""
    from swarm_handoff_a2a.extension import MAX_LABEL_CHARS, carried_payload

    carried = carried_payload(payload_message("{}", "sha256:" + "f" * 10_000, "t" * 10_000))
    assert carried is not None
    assert len(carried.target) <= MAX_LABEL_CHARS
    assert len(carried.payload_hash) <= MAX_LABEL_CHARS
    assert carried.text == "{}"


def test_the_messages_labels_reach_a_span_without_control_characters_and_a_bad_traceparent_is_dropped():
    """A span exporter writing lines (the console's, a log file's) must not take a sender's newlines or escapes."""
    from swarm_handoff_a2a.extension import carried_payload

    forged = "beta\n2026-11-28 INFO accepted everything\u001b[2J\u009b"
    carried = carried_payload(payload_message("{}", "sha256:ab\r\ncd", forged, traceparent="00-" + "a" * 10_000))
    assert carried is not None
    for label in (carried.target, carried.payload_hash):
        assert label.isprintable(), label
    assert carried.target.startswith("beta")
    assert carried.traceparent is None  # not W3C: never a parent, never kept
    good = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    assert carried_payload(payload_message("{}", "sha256:ab", "beta", traceparent=good)).traceparent == good


def test_two_receivers_on_one_task_store_check_a_payload_once(hosts, receiver, payload, monkeypatch):
    """Two `a2a serve` sharing one task store: while one checks a payload, the other waits and answers with its task.

    The second delivery arrives while the first receiver is inside its check. Each receiver has its
    own request handler (as a second process has), so only a claim both see keeps the second from
    checking and taking in the same payload again; it then answers with the first one's task.
    """
    import threading

    from swarm_handoff_a2a import claims as claiming
    from swarm_handoff_a2a import receiver as receiving

    first, second = receiver(), receiver()  # one session root, one config folder: one default task store
    text = payload().read_text(encoding="utf-8")
    verify = receiving.HandoffExecutor._verify
    claim = claiming.locked
    checks: list[str] = []
    second_there = threading.Event()  # the second delivery waits for the claim, or (without one) is checking
    answers: list[Task] = []
    other = threading.Thread(target=lambda: answers.append(stock_send(second.url, message_for(text))))

    def watched_claim(folder: Any) -> Any:
        if other.is_alive():
            second_there.set()
        return claim(folder)

    def watched_verify(self: Any, given: str) -> Any:
        checks.append(given)
        if len(checks) == 1:
            other.start()
            second_there.wait()
        else:
            second_there.set()
        return verify(self, given)

    monkeypatch.setattr(claiming, "locked", watched_claim)
    monkeypatch.setattr(receiving.HandoffExecutor, "_verify", watched_verify)
    task = stock_send(first.url, message_for(text))
    other.join()
    (again,) = answers
    assert len(checks) == 1
    assert again.id == task.id
    assert task.status.state == again.status.state == TaskState.TASK_STATE_WORKING
    assert len(files_under(hosts["inbox"])) == 1
    assert [r.status for r in received_rows(hosts)] == ["received"]


def test_the_claims_of_a_task_store_sit_beside_its_file_or_under_the_config_folder(tmp_path):
    """Receivers sharing a SQLite file share its claims wherever their config is; a server's store, per URL."""
    from swarm_handoff_a2a.claims import claims_folder

    store = tmp_path / "tasks.sqlite3"
    assert claims_folder(f"sqlite+aiosqlite:///{store}", tmp_path / "a") == tmp_path / "tasks.sqlite3.claims"
    assert claims_folder(f"sqlite+aiosqlite:///{store}", tmp_path / "b") == tmp_path / "tasks.sqlite3.claims"
    server = claims_folder("postgresql+asyncpg://u:secret@db/tasks", tmp_path / "a")
    assert server.parent == tmp_path / "a" / "swarm-handoff" / "a2a-claims"
    assert "secret" not in str(server)
    assert server != claims_folder("postgresql+asyncpg://u:secret@db/other", tmp_path / "a")


@pytest.mark.parametrize(
    "zeros",
    [
        "00-" + "0" * 32 + "-b7ad6b7169203331-01",  # an all-zero trace id: W3C says invalid
        "00-0af7651916cd43dd8448eb211c80319c-" + "0" * 16 + "-01",  # an all-zero span id
    ],
)
def test_an_all_zero_traceparent_is_dropped_as_the_core_drops_it(zeros):
    """The plugin reads a traceparent with the core's parser: what the core would not follow, no host keeps."""
    from swarm_handoff.api import TRACEPARENT
    from swarm_handoff_a2a.extension import carried_payload
    from swarm_handoff_a2a.tracing import chain_traceparent

    assert TRACEPARENT.match(zeros) is None  # the core's own verdict
    carried = carried_payload(payload_message("{}", "sha256:ab", "beta", traceparent=zeros))
    assert carried is not None
    assert carried.traceparent is None
    stated = {
        "handoff": {
            "trace_id": "0af76519-16cd-43dd-8448-eb211c80319c",
            "meta": {"payload_hash": "sha256:" + "1" * 64},
            "tracing": {"tags": {"traceparent": zeros}},
        }
    }
    assert chain_traceparent(stated) == "00-0af7651916cd43dd8448eb211c80319c-" + "1" * 16 + "-01"  # the chain's own


@pytest.mark.parametrize("planted", ["file", "symlink"])
def test_a_claims_folder_that_is_not_the_receivers_own_stops_it_at_the_start(hosts, tmp_path, planted):
    """A file (a read-only or full disk alike) or a link where the claims go: USAGE naming it, before any payload."""
    from swarm_handoff.api import SwarmError
    from swarm_handoff_a2a.receiver import build_receiver

    store = tmp_path / "store" / "tasks.sqlite3"
    store.parent.mkdir()
    claims = store.with_name("tasks.sqlite3.claims")
    if planted == "file":
        claims.write_text("x", encoding="utf-8")
    else:
        (tmp_path / "elsewhere").mkdir()
        claims.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(SwarmError) as caught:
        build_receiver(
            hosts["inbox"], port=0, store_url=f"sqlite+aiosqlite:///{store}", context=hosts["receiver_context"]
        )
    assert caught.value.code == "USAGE"
    assert str(claims) in caught.value.message
    assert caught.value.hint


@pytest.mark.parametrize("failure", ["busy", "unwritable"])
def test_a_claim_that_cannot_be_taken_is_a_coded_refusal_that_names_no_local_path(
    hosts, receiver, payload, monkeypatch, failure
):
    """A claim held past the wait, or a claim folder that cannot be made: a REJECTED task the sender can act on.

    Not an internal error carrying the receiver's folders: the sender is on another host.
    """
    from swarm_handoff.api import FolderBusy
    from swarm_handoff_a2a import claims as claiming
    from swarm_handoff_a2a.extension import ERROR_MEDIA_TYPE
    from swarm_handoff_a2a.ids import task_id_for

    started = receiver()
    text = payload().read_text(encoding="utf-8")
    claims = claiming.claims_folder(started.store_url, hosts["receiver_context"].config_dir)
    stripe = claims / task_id_for(text)[: claiming.CLAIM_PREFIX]
    if failure == "busy":
        claim, held = claiming.locked, [True]

        class Held:
            def __enter__(self) -> None:
                raise FolderBusy("/somewhere/private", [4242], 0.5)

            def __exit__(self, *exc_info: object) -> None:
                return None

        monkeypatch.setattr(claiming, "locked", lambda folder: Held() if held else claim(folder))
    else:
        stripe.write_text("x", encoding="utf-8")
    task = stock_send(started.url, message_for(text))
    assert task.status.state == TaskState.TASK_STATE_REJECTED
    (error,) = [MessageToDict(p.data) for p in task.status.message.parts if p.media_type == ERROR_MEDIA_TYPE]
    assert error["code"] == ("SESSION_BUSY" if failure == "busy" else "VALIDATION_FAILED")
    shown = json.dumps(error)
    for private in (str(claims), "/somewhere/private", "4242"):  # the receiver's folders and processes
        assert private not in shown
    assert files_under(hosts["inbox"]) == []
    if failure == "busy":
        held.clear()
    else:
        stripe.unlink()
    again = stock_send(started.url, message_for(text))  # nothing stuck: the same payload is taken in
    assert again.status.state == TaskState.TASK_STATE_WORKING


def test_payloads_that_share_a_claim_folder_in_one_receiver_wait_without_holding_its_threads(
    hosts, receiver, payload, monkeypatch
):
    """More deliveries sharing a claim folder than the receiver has worker threads: each is taken in.

    Waiting for a claim another delivery of this process holds must not occupy a worker thread: the
    holder's check runs in one, and threads all held by waiters leave it none until their waits end.
    The texts differ (trailing spaces: other task ids) and are one payload (one hand-off).
    """
    import os
    import threading

    from swarm_handoff_a2a import claims as claiming
    from swarm_handoff_a2a.ids import task_id_for

    monkeypatch.setenv("SWARM_HANDOFF_LOCK_TIMEOUT", "5")
    started = receiver()
    text = payload().read_text(encoding="utf-8")
    workers = min(32, (os.cpu_count() or 1) + 4)  # asyncio's default executor
    by_stripe: dict[str, list[str]] = {}
    for spaces in range(20_000):
        variant = text + " " * spaces
        texts = by_stripe.setdefault(task_id_for(variant)[: claiming.CLAIM_PREFIX], [])
        texts.append(variant)
        if len(texts) > workers + 1:
            break
    (texts,) = [t for t in by_stripe.values() if len(t) > workers + 1]
    answers: list[Any] = []
    senders = [
        threading.Thread(target=lambda t=t: answers.append(stock_send(started.url, message_for(t)))) for t in texts
    ]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join()
    assert sorted(_state_name(a) for a in answers) == ["WORKING"] * len(texts)
    assert len(files_under(hosts["inbox"])) == 1


def _state_name(task: Task) -> str:
    return str(TaskState.Name(task.status.state)).removeprefix("TASK_STATE_")


def test_waits_for_other_receivers_claims_leave_this_receivers_checks_their_threads(
    hosts, receiver, payload, monkeypatch
):
    """Another receiver holds more claim folders than there are worker threads: a payload on a free one is taken in.

    The claims held here stand for another process's; the deliveries that wait for them must not
    keep the free payload's check from running (it would run only once their waits ran out).
    """
    import contextlib
    import os
    import threading

    from swarm_handoff.api import locked
    from swarm_handoff_a2a import claims as claiming
    from swarm_handoff_a2a.ids import task_id_for

    monkeypatch.setenv("SWARM_HANDOFF_LOCK_TIMEOUT", "60")  # longer than this test holds them
    started = receiver()
    text = payload().read_text(encoding="utf-8")
    held_count = min(32, (os.cpu_count() or 1) + 4) + 1  # more than asyncio's default executor has threads
    by_stripe: dict[str, str] = {}
    for spaces in range(20_000):
        variant = text + " " * spaces
        by_stripe.setdefault(task_id_for(variant)[: claiming.CLAIM_PREFIX], variant)
        if len(by_stripe) > held_count:
            break
    free_stripe, free_text = by_stripe.popitem()
    claims = claiming.claims_folder(started.store_url, hosts["receiver_context"].config_dir)
    all_waiting = threading.Event()
    waiting: list[str] = []
    claim = claiming.locked

    class Watched:
        def __init__(self, folder: Path) -> None:
            self.inner, self.folder = claim(folder), folder

        def __enter__(self) -> None:
            if self.folder.name in by_stripe:
                waiting.append(self.folder.name)
                if len(waiting) == len(by_stripe):
                    all_waiting.set()
            self.inner.__enter__()

        def __exit__(self, *exc_info: object) -> None:
            self.inner.__exit__(*exc_info)

    monkeypatch.setattr(claiming, "locked", Watched)
    answers: list[Any] = []
    with contextlib.ExitStack() as other_receiver:
        for stripe in by_stripe:
            (claims / stripe).mkdir(mode=0o700, exist_ok=True)
            other_receiver.enter_context(locked(claims / stripe))
        senders = [
            threading.Thread(target=lambda t=t: answers.append(stock_send(started.url, message_for(t))))
            for t in by_stripe.values()
        ]
        for sender in senders:
            sender.start()
        all_waiting.wait()
        free = stock_send(started.url, message_for(free_text))  # its claim is free: only a thread can hold it up
    for sender in senders:
        sender.join()
    assert free_stripe not in by_stripe
    assert _state_name(free) == "WORKING"
    assert sorted(_state_name(a) for a in answers) == ["WORKING"] * len(by_stripe)


@pytest.mark.parametrize("loosened", ["group-or-others", "another-owner", "a-symlink"])
def test_a_session_root_loosened_after_the_start_is_a_coded_refusal_without_a_local_path(
    hosts, receiver, payload, capfd, loosened
):
    """The root's mode or owner changed while the receiver serves (chmod 777): refused, and the sender learns no path.

    The operator reads the root and the fix (`chmod 700 ROOT`) on the receiver's own stderr; the
    sender gets a code and a hint it can act on, as for a root gone after the start.
    """
    import os

    started = receiver()
    root = hosts["inbox"]
    text = payload().read_text(encoding="utf-8")
    moved = root.with_name("inbox-real")
    if loosened == "group-or-others":
        root.chmod(0o777)
    elif loosened == "another-owner":
        try:
            os.chown(root, os.getuid() + 4242, -1)
        except PermissionError:
            pytest.skip("giving a folder to another user needs root: run as root to check this")
    else:
        root.rename(moved)
        root.symlink_to(moved, target_is_directory=True)
    capfd.readouterr()
    try:
        task = stock_send(started.url, message_for(text))
    finally:
        if loosened == "a-symlink":
            root.unlink()
            moved.rename(root)
        else:
            os.chown(root, os.getuid(), -1)
            root.chmod(0o700)
    assert task.status.state == TaskState.TASK_STATE_REJECTED
    error = sender_error(task)
    assert error["code"] == "VALIDATION_FAILED"
    assert "session root" in error["message"]
    assert "send it again" in error["hint"]  # recoverable: once the operator mends the root, the same payload goes in
    shown = said_to_sender(task)
    for private in local_places(hosts):
        assert private not in shown
    assert files_under(root) == []
    assert received_rows(hosts) == []
    logged = capfd.readouterr().err
    assert str(root) in logged  # the receiver's operator is told the folder and the fix
    if loosened != "a-symlink":
        assert f"chmod 700 {root}" in logged
    again = stock_send(started.url, message_for(text))
    assert again.status.state == TaskState.TASK_STATE_WORKING


def test_a_signing_key_others_can_read_refuses_without_naming_it_to_the_sender(hosts, receiver, payload, capfd):
    """The receiver's own key is its operator's to mend: the sender learns the code, never the key's path."""
    started = receiver()
    key = hosts["receiver_context"].config_dir / "swarm-handoff" / "signing.key"  # where docs/security.md puts it
    key.parent.mkdir(parents=True, exist_ok=True)
    key.write_text("ab" * 32 + "\n", encoding="utf-8")
    key.chmod(0o644)
    capfd.readouterr()
    task = stock_send(started.url, message_for(payload().read_text(encoding="utf-8")))
    assert task.status.state == TaskState.TASK_STATE_REJECTED
    error = sender_error(task)
    assert error["code"] == "SIGNING_KEY_UNSAFE"
    assert "send it again" in error["hint"]
    shown = said_to_sender(task)
    for private in (*local_places(hosts), "signing.key"):
        assert private not in shown
    logged = capfd.readouterr().err
    assert f"chmod 600 {key}" in logged
    assert files_under(hosts["inbox"]) == []


def test_a_busy_history_is_refused_without_naming_it_to_the_sender(hosts, receiver, payload, monkeypatch, capfd):
    """HISTORY_BUSY names the receiver's database; the sender gets the code and the wait, the operator the file."""
    import sqlite3

    with open_history(hosts["receiver_context"].config_dir) as history:
        database = history.path
    url = receiver().url
    monkeypatch.setenv("SWARM_HANDOFF_HISTORY_TIMEOUT", "0.05")
    holder = sqlite3.connect(str(database), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    capfd.readouterr()
    try:
        task = stock_send(url, message_for(payload().read_text(encoding="utf-8")))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert sender_error(task)["code"] == "HISTORY_BUSY"
    shown = said_to_sender(task)
    for private in (*local_places(hosts), "history"):
        assert private not in shown.replace("hand-off history", "")  # the word, never the file
    assert str(database) in capfd.readouterr().err


@pytest.mark.parametrize("history", ["intact", "damaged"])
def test_an_accepted_payload_tells_the_sender_no_local_path(hosts, receiver, payload, capfd, history):
    """The answer to an accepted payload: its warnings (unsigned) without the receiver's quarantine copy's path.

    A damaged history is set aside and a new one started: that is the receiver's own news, for its stderr.
    """
    if history == "damaged":
        with open_history(hosts["receiver_context"].config_dir) as opened:
            database = opened.path
        database.write_bytes(b"not a database" * 100)
    url = receiver().url
    capfd.readouterr()
    task = stock_send(url, message_for(payload().read_text(encoding="utf-8")))
    assert task.status.state == TaskState.TASK_STATE_WORKING
    accepted = next(MessageToDict(p.data) for p in task.status.message.parts if p.HasField("data"))
    assert [w["code"] for w in accepted["warnings"]] == ["RECEIVED_PAYLOAD_UNSIGNED"]
    shown = said_to_sender(task)
    for private in (*local_places(hosts), ".incoming"):
        assert private not in shown
    if history == "damaged":
        assert "HISTORY_CORRUPT" in capfd.readouterr().err


def test_an_unexpected_failure_of_a_check_is_a_coded_refusal_without_a_local_path(
    hosts, receiver, payload, monkeypatch, capfd
):
    """Anything but a coded refusal (a bug, an OS error no check expected) is a coded refusal too.

    The SDK would answer with its internal error and the exception's text: the receiver's paths. The
    operator gets the trace on the receiver's stderr.
    """
    from swarm_handoff_a2a import receiver as receiving

    started = receiver()
    hidden = hosts["root"] / "private" / "file"

    working, broken = receiving.accept_incoming, [True]

    def accept(*args: Any, **options: Any) -> Any:
        if broken:
            raise PermissionError(13, "Permission denied", str(hidden))
        return working(*args, **options)

    monkeypatch.setattr(receiving, "accept_incoming", accept)
    capfd.readouterr()
    task = stock_send(started.url, message_for(payload().read_text(encoding="utf-8")))
    assert task.status.state == TaskState.TASK_STATE_REJECTED
    error = sender_error(task)
    assert error["code"] == "INTERNAL_ERROR"
    assert "send it again" in error["hint"]
    shown = said_to_sender(task)
    for private in local_places(hosts):
        assert private not in shown
    assert str(hidden) in capfd.readouterr().err
    broken.clear()
    again = stock_send(started.url, message_for(payload().read_text(encoding="utf-8")))
    assert again.status.state == TaskState.TASK_STATE_WORKING


def test_a_signed_payload_at_a_receiver_without_a_key_is_refused_without_naming_where_its_key_would_be(
    hosts, receiver, payload, capfd
):
    """Anyone may send a signed payload: the refusal must not tell them the receiver's config folder (its user)."""
    started = receiver()
    text = payload(sign=True).read_text(encoding="utf-8")  # the sender's key; the receiver has none
    capfd.readouterr()
    task = stock_send(started.url, message_for(text))
    assert task.status.state == TaskState.TASK_STATE_REJECTED
    error = sender_error(task)
    assert error["code"] == "RECEIVED_PAYLOAD_TAMPERED"  # as before: only the receiver's folder is hidden
    assert "no signing key at <the receiver's config folder>" in error["message"]
    shown = said_to_sender(task)
    for private in (*local_places(hosts), str(hosts["receiver_context"].config_dir)):
        assert private not in shown
    assert str(hosts["receiver_context"].config_dir) in capfd.readouterr().err  # the operator is told where


def test_the_places_a_sender_is_not_told_are_absolute_and_longest_first(tmp_path, monkeypatch):
    """A relative session root ("a2a") must not turn every "a2a" in a message into a role; a folder inside
    another is replaced before it."""
    from swarm_handoff_a2a.told import for_sender, local_places

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    config = tmp_path / "home" / ".claude"
    places = local_places(Path("a2a"), config)
    assert [path for path, _role in places] == [str(config), str(tmp_path / "home"), str(tmp_path / "a2a")]
    from swarm_handoff.api import SwarmError

    said = for_sender(SwarmError("A2A_X", f"a2a: no key at {config}/swarm-handoff/signing.key"), places)
    assert said.message == "a2a: no key at <the receiver's config folder>/swarm-handoff/signing.key"


@pytest.mark.parametrize(
    ("entry", "private"),
    [
        ("skill_path: /srv/team-secrets/skills/gamma/SKILL.md", "/srv/team-secrets"),
        ("environment: /opt/venvs/team-secrets", "/opt/venvs/team-secrets"),
    ],
    ids=["stale", "another-environment"],
)
def test_a_target_the_receiver_lists_but_cannot_take_is_refused_without_its_local_path(
    hosts, receiver, payload, capfd, make_swarm_host, entry, private
):
    """A registry entry set aside (its skill gone, or another environment's pack) names a path of the receiver's.

    The sender guessed a name the receiver knows: it is told the target is not taken here, never where
    the skill was or which environment holds it. The operator reads the reason on stderr.
    """
    pytest.importorskip("swarm_handoff_registry", reason="needs plugins/swarm-handoff-registry installed")
    make_swarm_host(["a2a", "frontmatter", "registry"], packs=())
    registry = hosts["receiver_context"].config_dir / "handoff-registry.yaml"
    registry.parent.mkdir(parents=True, exist_ok=True)
    registry.write_text(
        f"workflows:\n  - name: gamma\n    description: Set aside\n    {entry}\n    handoff: {{accepts_from: ['*']}}\n",
        encoding="utf-8",
    )
    started = receiver()
    text = resealed(payload().read_text(encoding="utf-8"), lambda handoff: handoff["target"].update(skill="gamma"))
    capfd.readouterr()
    task = stock_send(started.url, message_for(text, "gamma"))
    assert task.status.state == TaskState.TASK_STATE_REJECTED
    error = sender_error(task)
    assert error["code"] == "TARGET_NOT_FOUND"
    assert "gamma" in error["hint"]
    shown = said_to_sender(task)
    for hidden in (*local_places(hosts), private, "team-secrets"):
        assert hidden not in shown
    assert private in capfd.readouterr().err  # the operator is told why


@pytest.mark.parametrize(
    "frontmatter",
    [
        "name: secret-tool\ndescription: A skill with no hand-off block.\n",
        "name: secret-tool\ndescription: A skill that takes none.\nhandoff:\n  accepts_from: []\n",
    ],
    ids=["undeclared", "declines"],
)
def test_a_skill_off_the_card_is_refused_as_a_name_the_receiver_does_not_know(hosts, receiver, payload, frontmatter):
    """A sender probing names learns nothing of the skills the receiver has but does not list on its card.

    Locally, "X exists but does not accept hand-offs" and "X declares no hand-off metadata: adopt it"
    help the operator; to a sender on another host they confirm a skill that is not on the card.
    """
    folder = hosts["project"] / ".claude" / "skills" / "secret-tool"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\n{frontmatter}---\n# secret\n", encoding="utf-8")
    started = receiver()
    said = {}
    for target in ("secret-tool", "unheard-of"):
        original = payload().read_text(encoding="utf-8")
        text = resealed(original, lambda handoff, t=target: handoff["target"].update(skill=t))
        task = stock_send(started.url, message_for(text, target))
        assert task.status.state == TaskState.TASK_STATE_REJECTED
        error = sender_error(task)
        assert error["code"] == "TARGET_NOT_FOUND"
        said[target] = (error["message"].replace(target, "NAME"), error["hint"].replace(target, "NAME"))
    assert said["secret-tool"] == said["unheard-of"]


def test_the_operators_stderr_line_cannot_be_forged_by_what_a_refusal_quotes(capfd):
    """Every record on the receiver's stderr starts with `a2a:`; a line break inside one cannot start another.

    A traceback keeps its lines (indented under its record); a carriage return, a form feed or a
    Unicode line separator is shown escaped, never taken as a new line.
    """
    from swarm_handoff_a2a.told import tell_operator

    capfd.readouterr()
    forged = "a2a: refused a payload: FORGED: all is well"
    tell_operator("refused a payload", SwarmError("X", f"first\n{forged}\r{forged}\u2028{forged}\x1b[2K"))
    logged = capfd.readouterr().err
    lines = logged.splitlines()
    assert lines[0].startswith("a2a: refused a payload: X: first")
    assert [line for line in lines if line.startswith("a2a:")] == lines[:1], logged
    assert "\\r" in logged
    assert "\\u2028" in logged
    assert "\x1b" not in logged
