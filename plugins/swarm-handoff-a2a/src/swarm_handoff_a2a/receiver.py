"""The receiving host: an A2A server (the SDK's JSON-RPC binding and SQL task store) that takes in hand-offs.

Its agent card (`card.py`) lists one `AgentSkill` per skill that accepts a hand-off here and
declares the swarm-handoff extension (`extension.py`); every request passes the guard (`guard.py`:
rate, the token of `auth.py`, size) before the SDK reads it. A message carrying a payload becomes a task whose id is
derived from the payload's text, so the same payload delivered again is the same task (claimed first,
`claims.py`, so receivers sharing a task store check it once). The payload
is checked by the core's `accept_incoming` (every check of `handoff --from`): accepted, it is
written under the session root and recorded, and the task is WORKING until `ack_task` completes or
fails it; refused, the task is REJECTED with swarm-handoff's error (code, message, hint) in its
status message, and nothing is written. The sender is on another host: no refusal or answer names
the receiver's folders or user (`told.py`); its operator reads those on its stderr. See
docs/a2a.md and the threat model in docs/security.md.
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import time
import traceback
from pathlib import Path
from typing import Any

import attrs
from a2a.server.agent_execution import AgentExecutor, RequestContext, SimpleRequestContextBuilder
from a2a.server.context import ServerCallContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import DatabaseTaskStore, TaskUpdater
from a2a.types import AgentCard, Message, Part, Role, SendMessageRequest, Task, TaskState, TaskStatus
from a2a.utils.errors import TaskNotCancelableError

from swarm_handoff.api import (
    SEND_AGAIN,
    DiscoveryContext,
    ErrorCode,
    PluginHost,
    SwarmError,
    UsageError,
    accept_incoming,
    clear_leftovers,
    discover,
    get_host,
    make_context,
    own_session_root,
)
from swarm_handoff_a2a import tracing
from swarm_handoff_a2a.auth import Auth
from swarm_handoff_a2a.card import agent_card, is_loopback
from swarm_handoff_a2a.claims import ClaimError, TaskClaims, claims_folder, own_claims
from swarm_handoff_a2a.extension import (
    EXTENSION_URI,
    PAYLOAD_MEDIA_TYPE,
    carried_payload,
    data_value,
    task_id_for,
)
from swarm_handoff_a2a.guard import Guard
from swarm_handoff_a2a.ids import TASK_STORE_ENV, store_file
from swarm_handoff_a2a.told import Places, error_message, local_places, tell_operator, warnings_for_sender

ACCEPTED_MEDIA_TYPE = "application/vnd.swarm-handoff.accepted+json"
NOT_A_HANDOFF = "A2A_NOT_A_HANDOFF"  # a message without a payload under the extension
A2A_AUTH_REQUIRED = "A2A_AUTH_REQUIRED"  # binding beyond loopback without an authentication scheme
DEFAULT_PORT = 8470
MAX_REQUEST_BYTES = 5 * 1024 * 1024  # a 4 MiB payload (the core's limit) plus the JSON-RPC envelope
STORE_OWNER = "swarm-handoff"  # one task space per host: the same payload from any client is one task


def _slim(message: Message) -> Message:
    """The request message as the task keeps it: without the payload's text (the session has it)."""
    kept = Message()
    kept.CopyFrom(message)
    del kept.parts[:]
    kept.parts.extend(p for p in message.parts if p.media_type != PAYLOAD_MEDIA_TYPE)
    return kept


@attrs.define
class HandoffExecutor(AgentExecutor):
    """Checks and takes in the payload a message carries (in a worker thread: the checks read files)."""

    session_root: Path
    context: DiscoveryContext
    host: PluginHost
    require_signature: bool | None = None
    places: Places = ()  # the receiver's folders a refusal must not name to its sender (`local_places`)

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Move the task to WORKING with where the payload went, or to REJECTED with the coded refusal."""
        task_id, context_id = str(context.task_id), str(context.context_id)
        message = context.message
        await event_queue.enqueue_event(
            Task(
                id=task_id,
                context_id=context_id,
                status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED),
                history=[_slim(message)] if message is not None else [],
            )
        )
        updater = TaskUpdater(event_queue, task_id, context_id)
        carried = carried_payload(message)
        if carried is None:
            refusal = SwarmError(
                NOT_A_HANDOFF,
                "the message carries no swarm-handoff payload",
                hint=f"send a data part of media type {PAYLOAD_MEDIA_TYPE} under the extension {EXTENSION_URI}",
            )
            await updater.reject(error_message(refusal, task_id, context_id, self.places))
            return
        attributes = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": carried.target,
            "swarm_handoff.payload_hash": carried.payload_hash,
            "swarm_handoff.task_id": task_id,
        }
        with tracing.span("swarm_handoff.receive", attributes, parent=carried.traceparent) as current:
            try:
                incoming = await asyncio.to_thread(self._verify, carried.text)
            except SwarmError as error:
                tracing.mark_error(current, error.code, error.message)
                await updater.reject(error_message(error, task_id, context_id, self.places))
                return
            except Exception as failure:  # the SDK would answer with its text: the receiver's paths
                tell_operator("failed taking a payload in", "".join(traceback.format_exception(failure)))
                unexpected = SwarmError(
                    ErrorCode.INTERNAL_ERROR,
                    "the receiver failed while taking the payload in; its operator has the details",
                    hint=SEND_AGAIN.format(when="later"),
                )
                tracing.mark_error(current, unexpected.code, unexpected.message)
                await updater.reject(error_message(unexpected, task_id, context_id, self.places))
                return
        accepted = {**incoming.to_data(), "task_id": task_id}
        accepted.pop("session", None)  # the receiver's folders are its own business
        accepted.pop("payload_path", None)
        accepted["warnings"] = warnings_for_sender(incoming.warnings, self.places)
        await updater.start_work(
            Message(
                message_id=f"{task_id}-accepted",
                role=Role.ROLE_AGENT,
                task_id=task_id,
                context_id=context_id,
                parts=[
                    Part(text=f"accepted for {incoming.target}; waiting for its acknowledgment"),
                    Part(data=data_value(accepted), media_type=ACCEPTED_MEDIA_TYPE),
                ],
            )
        )

    def _verify(self, text: str) -> Any:
        with tracing.span("swarm_handoff.verify", {"gen_ai.operation.name": "verify"}) as current:
            try:
                return accept_incoming(
                    text,
                    self.session_root,
                    host=self.host,
                    context=self.context,
                    require_signature=self.require_signature,
                )
            except SwarmError as error:
                tracing.mark_error(current, error.code, error.message)
                raise

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """A hand-off is not cancelled from outside: the receiving agent acks it as failed instead."""
        raise TaskNotCancelableError


class HandoffContextBuilder(SimpleRequestContextBuilder):
    """Gives a message carrying a payload the task id its text names, so a retry finds its task."""

    async def build(
        self,
        context: ServerCallContext,
        params: SendMessageRequest | None = None,
        task_id: str | None = None,
        context_id: str | None = None,
        task: Task | None = None,
    ) -> RequestContext:
        """Build the request context, with the payload's task id when the message names none."""
        if task_id is None and params is not None:
            carried = carried_payload(params.message)
            if carried is not None:
                task_id = task_id_for(carried.text)
        return await super().build(context, params, task_id, context_id, task)


# A task in these states was never accepted (refused, or cut off by a crash: its checker held the
# claim, so one seen under the claim has none): the same payload sent again is checked again, so a
# refusal that has passed (a busy history) does not stick to it.
_CHECKED_AGAIN = (TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_REJECTED)


class HandoffRequestHandler(DefaultRequestHandler):
    """The SDK's request handler, except that a payload already accepted answers with its task.

    `claims` is the folder where receivers sharing the task store claim a payload's task (see
    `claims_folder`): the look at the store and the check that follows hold it, so a second process
    (or a second handler) given the same payload waits, then answers with the first one's task.
    """

    def __init__(self, *args: Any, claims: Path | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._claims = TaskClaims(claims)

    async def aclose(self) -> None:
        """Close as the SDK's handler does, and let the claim-wait threads go."""
        await super().aclose()
        self._claims.close()

    async def on_message_send(self, params: SendMessageRequest, context: ServerCallContext) -> Any:
        """Send, unless this payload's task was accepted: then that task, never a second one."""
        carried = carried_payload(params.message)
        if carried is None or params.message.task_id:
            return await super().on_message_send(params, context)
        task_id = task_id_for(carried.text)
        try:
            async with self._claims.hold(task_id):  # this process's waiters, then every receiver's
                existing = await self.task_store.get(task_id, context)
                if isinstance(existing, Task):  # this store is a plain one: never the versioned StoredTask
                    if existing.status.state not in _CHECKED_AGAIN:
                        return existing
                    await self.task_store.delete(task_id, context)  # the SDK never reopens a final task
                return await super().on_message_send(params, context)
        except ClaimError as unclaimed:  # not stored: the same payload sent again is checked again
            context_id = params.message.context_id or task_id
            refusal = error_message(unclaimed.error, task_id, context_id)
            return Task(
                id=task_id,
                context_id=context_id,
                status=TaskStatus(state=TaskState.TASK_STATE_REJECTED, message=refusal),
            )


def task_store(store_url: str) -> DatabaseTaskStore:
    """The SDK's SQL task store at a SQLAlchemy URL (SQLite by default), one task space for the host."""
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(store_url)
    return DatabaseTaskStore(engine, owner_resolver=lambda _context: STORE_OWNER)


def default_store_url(config_dir: Path) -> str:
    """SQLite under the config folder: `{config}/swarm-handoff/a2a-tasks.sqlite3`, escaped so `?`, `#` stay a path."""
    import sqlalchemy
    from sqlalchemy.engine import URL, make_url

    path = store_file(config_dir)
    url = URL.create("sqlite+aiosqlite", database=str(path)).render_as_string(hide_password=False)
    if make_url(url).database != str(path):  # SQLAlchemy before 2.1 writes `?` and `#` unescaped
        raise UsageError(
            f"the task store {path} cannot be named by a database URL with SQLAlchemy "
            f"{sqlalchemy.__version__}: its path holds ?, # or %, which this version reads as parts of the URL",
            hint=f"set {TASK_STORE_ENV} to a store URL of your own, or install SQLAlchemy 2.1 or newer",
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    return url


@attrs.define
class Receiver:
    """A receiving host, built but not yet listening: `start()` in a thread (tests, bench) or `run()` blocking."""

    host: str
    port: int
    session_root: Path
    store_url: str
    card: AgentCard
    app: Any
    sock: socket.socket
    server: Any = None
    thread: threading.Thread | None = None
    cleared: tuple[Path, ...] = ()  # what a stopped run left under the session root, removed at the start

    @property
    def url(self) -> str:
        """The URL clients use (the card's interface URL)."""
        return str(self.card.supported_interfaces[0].url)

    def run(self) -> None:
        """Serve until interrupted."""
        import uvicorn

        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning", lifespan="on"))
        self.server.run(sockets=[self.sock])

    def start(self) -> str:
        """Serve in a background thread; return the URL once it accepts connections."""
        import uvicorn

        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        while not self.server.started:  # bounded by the thread: a failed start ends it
            if not self.thread.is_alive():
                raise RuntimeError("the A2A receiver did not start")
            time.sleep(0.01)
        return self.url

    def stop(self) -> None:
        """Stop serving and wait for the thread."""
        if self.server is not None:
            self.server.should_exit = True
        if self.thread is not None:
            self.thread.join()
        self.sock.close()


def build_receiver(
    session_root: Path,
    *,
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    store_url: str | None = None,
    auth: Auth | None = None,
    public_url: str | None = None,
    context: DiscoveryContext | None = None,
    plugin_host: PluginHost | None = None,
    require_signature: bool | None = None,
    max_request_bytes: int = MAX_REQUEST_BYTES,
    rate: float = 50.0,
    burst: int = 200,
    card_max_age: int = 300,
) -> Receiver:
    """Build a receiving host: bind the socket, make the card from the skills here, wire the SDK's routes.

    Binding beyond loopback needs `auth`; port 0 picks a free port (the card names the real one).
    `session_root` is made (0700) or checked first (`own_session_root`: USAGE for a root others may
    write), and so is the folder where payloads' tasks are claimed (`own_claims`), before the port
    is taken. What a receiver killed mid-write left under it (its temporaries and quarantine copies,
    older than this start, their writer gone) is removed: `clear_leftovers`.
    """
    from starlette.applications import Starlette

    started = time.time()

    if not is_loopback(host) and auth is None:
        raise SwarmError(
            A2A_AUTH_REQUIRED,
            f"binding to {host} exposes the receiver beyond this machine, and no authentication scheme is set",
            hint="set a bearer token or API key (from an environment variable or a file), or bind to 127.0.0.1",
        )
    own_session_root(Path(session_root))  # a root others may write is refused now, not at every payload
    context = context or make_context()
    plugin_host = plugin_host or get_host()
    store_url = store_url or os.environ.get(TASK_STORE_ENV, "").strip() or default_store_url(context.config_dir)
    claims = own_claims(claims_folder(store_url, context.config_dir))  # checked before the port is taken
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(1024)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    url = public_url or f"http://{shown}:{bound}/"
    records = tuple(discover(context, plugin_host).workflows)
    card = agent_card(url, records, auth=auth)
    store = task_store(store_url)
    places = local_places(Path(session_root), context.config_dir)
    executor = HandoffExecutor(Path(session_root), context, plugin_host, require_signature, places)
    handler = HandoffRequestHandler(
        agent_executor=executor,
        task_store=store,
        agent_card=card,
        request_context_builder=HandoffContextBuilder(),
        claims=claims,
    )
    from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH

    routes = [
        *create_agent_card_routes(card, cache_control=f"public, max-age={card_max_age}"),
        *create_jsonrpc_routes(handler, rpc_url="/"),
    ]

    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(_app: Any) -> Any:
        await store.initialize()
        yield
        await handler.aclose()
        await store.engine.dispose()

    app = Starlette(routes=routes, lifespan=lifespan)
    guarded = Guard(
        app, max_bytes=max_request_bytes, auth=auth, rate=rate, burst=burst, public=(AGENT_CARD_WELL_KNOWN_PATH,)
    )
    cleared = clear_leftovers(Path(session_root), started=started)
    return Receiver(host, bound, Path(session_root), store_url, card, guarded, sock, cleared=cleared)


def serve(host: str = "127.0.0.1", port: int = DEFAULT_PORT, session_root: Path | None = None, **options: Any) -> None:
    """Run a receiving host until interrupted (what `swarm-handoff a2a serve` calls); options: `build_receiver`'s."""
    root = session_root or Path.cwd() / "a2a-sessions"
    build_receiver(root, host=host, port=port, **options).run()
