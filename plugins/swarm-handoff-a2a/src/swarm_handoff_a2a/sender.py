"""The sending host: hand a payload to a receiving host over A2A with the SDK's client.

`send` reads the host's agent card, checks that the target is one of its skills (did-you-mean
otherwise) and that it declares the swarm-handoff extension (a host that does not is refused
clearly: it could not check the payload, and a plain data part would be work handed to something
that never verified it), then sends the payload's exact text. Connection failures (and 429/503
answers) are retried with exponential backoff up to a bound; a retry is the same message, whose
task id the receiver derives from the payload's text, so it never makes a second task. The
outcome (remote task id and state, or why it was not delivered) is recorded in the local history
(`remote_tasks`, keyed by payload hash and URL). `remote_skills` lists a host's accepting skills
from its card; `remote_status` asks for a hand-off's task state and records it. Every host is read
through `bounded.py` (the card and every answer bounded), and a card's skills are read as the card
cache reads them (`cardcache.skills_of`).
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs
import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.client.errors import A2AClientError, AgentCardResolutionError
from a2a.types import AgentCard, GetTaskRequest, SendMessageRequest, Task, TaskState
from google.protobuf.json_format import MessageToDict

from swarm_handoff.api import (
    LoadError,
    SwarmError,
    close_names,
    did_you_mean,
    make_context,
    open_history,
    read_text,
)
from swarm_handoff_a2a import tracing
from swarm_handoff_a2a.auth import Credentials
from swarm_handoff_a2a.bounded import (
    A2A_REMOTE_ERROR,
    A2A_UNREACHABLE,
    BoundedTransport,
    CardRefused,
    read_card,
    retryable,
    tls_verification,
)
from swarm_handoff_a2a.cardcache import RemoteSkills, skills_of
from swarm_handoff_a2a.extension import (
    ERROR_MEDIA_TYPE,
    EXTENSION_URI,
    declares_extension,
    payload_message,
    task_id_for,
)

A2A_NO_EXTENSION = "A2A_NO_EXTENSION"  # the remote host does not declare the swarm-handoff extension
A2A_NOT_A_PAYLOAD = "A2A_NOT_A_PAYLOAD"  # what was given to send is not a sealed payload
TARGET_NOT_ON_REMOTE = "TARGET_NOT_FOUND"  # the same code as a local hand-off to an unknown skill


@attrs.frozen(kw_only=True)
class Retry:
    """How connection failures are retried: `attempts` in all, waits doubling from `first` up to `longest` seconds."""

    attempts: int = 6
    first: float = 0.2
    longest: float = 5.0

    def waits(self) -> Iterable[float]:
        """The waits between attempts, with a little jitter so many senders do not retry in step."""
        wait = self.first
        for _ in range(max(0, self.attempts - 1)):
            yield wait * (0.8 + 0.4 * random.random())
            wait = min(self.longest, wait * 2)


@attrs.frozen(kw_only=True)
class SendResult:
    """One hand-off sent (or not): where, its remote task and state, and the refusal when there was one."""

    url: str
    target: str
    payload_hash: str
    task_id: str | None
    state: str  # submitted, working, completed, failed, rejected, ... or "undelivered"
    delivered: bool
    attempts: int
    error: dict[str, Any] | None = None
    warnings: tuple[str, ...] = ()

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return attrs.asdict(self)


def _state(value: int) -> str:
    return str(TaskState.Name(value)).removeprefix("TASK_STATE_").lower()


def _payload_text(payload_or_path: str | Path | Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The payload's exact text and its data: a path is read with the core's limits; a mapping is dumped as JSON."""
    if isinstance(payload_or_path, Mapping):
        text = json.dumps(payload_or_path, indent=2, ensure_ascii=False) + "\n"
    else:
        try:
            text = read_text(Path(payload_or_path))
        except LoadError as exc:  # missing, a folder, too large, not UTF-8: say which file, not a traceback
            raise SwarmError(
                A2A_NOT_A_PAYLOAD,
                f"cannot read the payload {payload_or_path}: {exc}",
                hint="give the payload file `swarm-handoff handoff` wrote (its payload_path)",
            ) from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise SwarmError(
            A2A_NOT_A_PAYLOAD,
            f"{payload_or_path if not isinstance(payload_or_path, Mapping) else 'the payload'} is not JSON: {exc}",
            hint="send a v3.0 payload written by `swarm-handoff handoff` (a .json file)",
        ) from None
    handoff = data.get("handoff") if isinstance(data, dict) else None
    meta = handoff.get("meta") if isinstance(handoff, dict) else None
    if not isinstance(meta, dict) or not isinstance(meta.get("payload_hash"), str):
        raise SwarmError(
            A2A_NOT_A_PAYLOAD,
            "what was given is not a sealed hand-off payload (no handoff.meta.payload_hash)",
            hint="send a payload written by `swarm-handoff handoff`, which seals every payload",
        )
    return text, data


def _error_of(task: Task) -> dict[str, Any] | None:
    """swarm-handoff's structured error in a REJECTED task's status message, else its text."""
    for part in task.status.message.parts:
        if part.media_type == ERROR_MEDIA_TYPE and part.HasField("data"):
            data = MessageToDict(part.data)
            if isinstance(data, dict):
                return data
    texts = [p.text for p in task.status.message.parts if p.text]
    return {"code": A2A_REMOTE_ERROR, "message": " ".join(texts) or "refused", "hint": ""} if texts else None


async def send_async(
    payload_or_path: str | Path | Mapping[str, Any],
    url: str,
    target: str | None = None,
    *,
    credentials: Credentials | None = None,
    retry: Retry = Retry(),
    timeout: float = 30.0,
    config_dir: Path | None = None,
    record: bool = True,
    card: AgentCard | None = None,
) -> SendResult:
    """Send one payload to the receiving host at `url` (see `send`); `card`: the host's card, already read."""
    text, payload = _payload_text(payload_or_path)
    handoff = payload["handoff"]
    stated = str(handoff["meta"]["payload_hash"])
    named = str((handoff.get("target") or {}).get("skill", ""))
    target = target or named
    if named and target != named:
        raise SwarmError(
            "USAGE",
            f"the payload is for {named}, not {target}",
            hint=f"send it to {named}, or build a payload for {target}",
        )
    parent = None if tracing.current_traceparent() else tracing.chain_traceparent(payload)
    attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": target,
        "server.address": url,
        "swarm_handoff.payload_hash": stated,
    }
    with tracing.span("swarm_handoff.send", attributes, parent=parent) as current:
        result = await _deliver(text, stated, url, target, credentials or Credentials(), retry, timeout, card)
        if result.error:
            tracing.mark_error(current, str(result.error.get("code")), str(result.error.get("message")))
    if record:
        _record(result, config_dir)
    return result


async def _deliver(
    text: str,
    stated: str,
    url: str,
    target: str,
    credentials: Credentials,
    retry: Retry,
    timeout: float,
    known: AgentCard | None,
) -> SendResult:
    headers = {**credentials.headers(), "A2A-Extensions": EXTENSION_URI}
    waits = iter(retry.waits())
    attempts = 0
    message = payload_message(text, stated, target, traceparent=tracing.current_traceparent())
    last: BaseException | None = None

    def outcome(task_id: str | None, state: str, error: dict[str, Any] | None) -> SendResult:
        return SendResult(
            url=url,
            target=target,
            payload_hash=stated,
            task_id=task_id,
            state=state,
            delivered=state != "undelivered",
            attempts=attempts,
            error=error,
        )

    bounded = BoundedTransport(tls_verification(url))
    async with httpx.AsyncClient(timeout=timeout, headers=headers, transport=bounded) as http:
        card, checked = known, False
        while True:
            attempts += 1
            try:
                if card is None:
                    card, _headers = await read_card(http, url)
                if not checked:  # a card handed in is checked as one read here is
                    problem = _check_card(card, url, target)
                    if problem is not None:
                        return outcome(None, "undelivered", problem)
                    checked = True
                client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
                async for response in client.send_message(SendMessageRequest(message=message)):
                    if response.HasField("task"):
                        task = response.task
                        rejected = task.status.state == TaskState.TASK_STATE_REJECTED
                        return outcome(task.id, _state(task.status.state), _error_of(task) if rejected else None)
                no_task = {"code": A2A_REMOTE_ERROR, "message": "the host answered with no task", "hint": ""}
                return outcome(None, "undelivered", no_task)
            except (
                httpx.HTTPError,
                A2AClientError,
                AgentCardResolutionError,
                CardRefused,
                OSError,
                asyncio.TimeoutError,
            ) as exc:
                last = exc
                if not retryable(exc):
                    refused = {
                        "code": A2A_REMOTE_ERROR,
                        "message": f"{type(exc).__name__}: {exc}"[:500],
                        "hint": "check the URL and the credentials",
                    }
                    return outcome(None, "undelivered", refused)
            wait = next(waits, None)
            if wait is None:
                break
            await asyncio.sleep(wait)
    unreachable = {
        "code": A2A_UNREACHABLE,
        "message": f"{url} could not be reached in {attempts} attempt(s): {type(last).__name__}: {last}"[:500],
        "hint": "start the receiving host (or check the network) and send again: a payload sent twice is one hand-off",
    }
    return outcome(task_id_for(text), "undelivered", unreachable)


def _check_card(card: AgentCard, url: str, target: str) -> dict[str, Any] | None:
    """Refuse a host that does not take our payloads, or lacks the target skill (with the closest names)."""
    if not declares_extension(card):
        return {
            "code": A2A_NO_EXTENSION,
            "message": f"{url} ({card.name}) does not declare the swarm-handoff extension {EXTENSION_URI}; "
            "it could not verify the payload, so nothing was sent",
            "hint": "run `swarm-handoff a2a serve` on that host, or hand the work over another way",
        }
    skills = [s.id for s in card.skills]
    if target not in skills:
        return {
            "code": TARGET_NOT_ON_REMOTE,
            "message": f"no skill named {target!r} accepts a hand-off at {url}",
            "hint": did_you_mean(target, skills) or f"its skills: {', '.join(skills) or '(none)'}",
            "closest": close_names(target, skills),
        }
    return None


def _record(result: SendResult, config_dir: Path | None) -> None:
    """Write the outcome into the local history's remote tasks; a history that fails does not undo the send."""
    import contextlib
    import sqlite3

    detail = json.dumps(result.error) if result.error else ""
    with (
        contextlib.suppress(SwarmError, sqlite3.Error, OSError),
        open_history(config_dir or make_context().config_dir) as history,
    ):
        history.set_remote(result.payload_hash, result.url, result.state, task_id=result.task_id, detail=detail)


def send(
    payload_or_path: str | Path | Mapping[str, Any],
    url: str,
    target: str | None = None,
    **options: Any,
) -> SendResult:
    """Send one payload to `url` (what `handoff TARGET --to URL` calls); options: `send_async`'s."""
    return asyncio.run(send_async(payload_or_path, url, target, **options))


def send_many(items: Iterable[tuple[str | Path | Mapping[str, Any], str]], **options: Any) -> list[SendResult]:
    """Send several payloads (payload, url) at once; each result says whether it was delivered."""

    async def all_of() -> list[SendResult]:
        return list(await asyncio.gather(*(send_async(p, u, **options) for p, u in items)))

    return asyncio.run(all_of())


def undelivered(results: Iterable[SendResult]) -> list[SendResult]:
    """The hand-offs that did not reach their host: what a sender reports after its bound."""
    return [r for r in results if not r.delivered]


async def remote_skills_async(
    url: str, *, credentials: Credentials | None = None, timeout: float = 30.0
) -> RemoteSkills:
    """A remote host's accepting skills from its card, with the card's caching headers."""
    async with httpx.AsyncClient(
        timeout=timeout, headers=(credentials or Credentials()).headers(), verify=tls_verification(url)
    ) as http:
        card, headers = await read_card(http, url)
    return skills_of(url, card, headers)


def remote_skills(url: str, **options: Any) -> RemoteSkills:
    """What `discover --remote URL` calls: a host's skills that accept a hand-off."""
    return asyncio.run(remote_skills_async(url, **options))


async def remote_status_async(
    url: str,
    task_id: str,
    *,
    payload_hash: str | None = None,
    credentials: Credentials | None = None,
    timeout: float = 30.0,
    config_dir: Path | None = None,
) -> str:
    """A hand-off's remote task state (`history`/`ack --remote` show it); recorded when `payload_hash` is given."""
    async with httpx.AsyncClient(
        timeout=timeout,
        headers=(credentials or Credentials()).headers(),
        transport=BoundedTransport(tls_verification(url)),
    ) as http:
        card, _headers = await read_card(http, url)
        client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
        task = await client.get_task(GetTaskRequest(id=task_id))
    state = _state(task.status.state)
    if payload_hash:
        error = _error_of(task) if task.status.state == TaskState.TASK_STATE_REJECTED else None
        result = SendResult(
            url=url,
            target="",
            payload_hash=payload_hash,
            task_id=task_id,
            state=state,
            delivered=True,
            attempts=1,
            error=error,
        )
        _record(result, config_dir)
    return state


def remote_status(url: str, task_id: str, **options: Any) -> str:
    """What `ack --remote` / `handoff status` calls: the state of a hand-off's task on its host."""
    return asyncio.run(remote_status_async(url, task_id, **options))
