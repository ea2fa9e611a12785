"""The receiving host: an A2A server (the SDK's JSON-RPC binding and SQL task store) that takes in hand-offs.

Its agent card lists one `AgentSkill` per skill that accepts a hand-off here and declares the
swarm-handoff extension (`extension.py`). A message carrying a payload becomes a task whose id is
derived from the payload's text, so the same payload delivered again is the same task. The payload
is checked by the core's `accept_incoming` (every check of `handoff --from`): accepted, it is
written under the session root and recorded, and the task is WORKING until `ack_task` completes or
fails it; refused, the task is REJECTED with swarm-handoff's error (code, message, hint) in its
status message, and nothing is written. See docs/a2a.md and the threat model in docs/security.md.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import os
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from pathlib import Path
from typing import Any

import attrs
from a2a.server.agent_execution import AgentExecutor, RequestContext, SimpleRequestContextBuilder
from a2a.server.context import ServerCallContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import DatabaseTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentExtension,
    AgentInterface,
    AgentSkill,
    APIKeySecurityScheme,
    HTTPAuthSecurityScheme,
    Message,
    Part,
    Role,
    SecurityRequirement,
    SecurityScheme,
    SendMessageRequest,
    StringList,
    Task,
    TaskState,
    TaskStatus,
)
from a2a.utils.errors import TaskNotCancelableError

from swarm_handoff.api import (
    DiscoveryContext,
    PluginHost,
    SkillRecord,
    SwarmError,
    accept_incoming,
    discover,
    get_host,
    make_context,
)
from swarm_handoff_a2a import tracing
from swarm_handoff_a2a.extension import EXTENSION_URI, PAYLOAD_MEDIA_TYPE, carried_payload, data_value, task_id_for

ERROR_MEDIA_TYPE = "application/vnd.swarm-handoff.error+json"
ACCEPTED_MEDIA_TYPE = "application/vnd.swarm-handoff.accepted+json"
NOT_A_HANDOFF = "A2A_NOT_A_HANDOFF"  # a message without a payload under the extension
A2A_AUTH_REQUIRED = "A2A_AUTH_REQUIRED"  # binding beyond loopback without an authentication scheme
A2A_AUTH_SECRET = "A2A_AUTH_SECRET"  # the token's variable or file is missing, empty or unreadable
DEFAULT_PORT = 8470
MAX_REQUEST_BYTES = 5 * 1024 * 1024  # a 4 MiB payload (the core's limit) plus the JSON-RPC envelope
STORE_OWNER = "swarm-handoff"  # one task space per host: the same payload from any client is one task


@attrs.frozen
class Auth:
    """How clients authenticate: a bearer token or an API key (in `header`); the secret never comes from an argument."""

    scheme: str  # "bearer" or "api-key"
    secret: str = attrs.field(repr=False)
    header: str = "X-API-Key"

    @classmethod
    def from_env(cls, scheme: str, variable: str, *, header: str = "X-API-Key") -> Auth:
        """The secret from environment variable `variable`."""
        value = os.environ.get(variable, "").strip()
        if not value:
            raise SwarmError(
                A2A_AUTH_SECRET,
                f"the environment variable {variable} holds no token",
                hint=f"export {variable} with the token clients must present, or give a token file",
            )
        return cls(_scheme(scheme), value, header)

    @classmethod
    def from_file(cls, scheme: str, path: Path, *, header: str = "X-API-Key") -> Auth:
        """The secret from the first line of a file only its owner can read."""
        try:
            info = path.stat()
            value = path.read_text(encoding="utf-8").strip().splitlines()[0].strip() if info.st_size < 4096 else ""
        except (OSError, UnicodeDecodeError, IndexError) as exc:
            raise SwarmError(
                A2A_AUTH_SECRET, f"cannot read the token file {path}: {exc}", hint="check the path"
            ) from None
        if info.st_mode & 0o077:
            raise SwarmError(
                A2A_AUTH_SECRET,
                f"the token file {path} can be read by others (mode {info.st_mode & 0o777:o})",
                hint=f"chmod 600 {path}",
            )
        if not value:
            raise SwarmError(
                A2A_AUTH_SECRET, f"the token file {path} is empty", hint="write the token on its first line"
            )
        return cls(_scheme(scheme), value, header)

    def allows(self, headers: Mapping[str, str]) -> bool:
        """Whether a request's headers (lower-case names) carry the secret, compared in constant time."""
        if self.scheme == "bearer":
            given = headers.get("authorization", "")
            token = given[7:].strip() if given[:7].lower() == "bearer " else ""
        else:
            token = headers.get(self.header.lower(), "").strip()
        return bool(token) and hmac.compare_digest(token.encode("utf-8"), self.secret.encode("utf-8"))

    def card_scheme(self) -> tuple[str, SecurityScheme]:
        """The scheme as the agent card declares it."""
        if self.scheme == "bearer":
            return "bearer", SecurityScheme(
                http_auth_security_scheme=HTTPAuthSecurityScheme(scheme="Bearer", description="swarm-handoff token")
            )
        return "apiKey", SecurityScheme(
            api_key_security_scheme=APIKeySecurityScheme(location="header", name=self.header, description="API key")
        )


def _scheme(scheme: str) -> str:
    if scheme not in ("bearer", "api-key"):
        raise SwarmError("USAGE", f"unknown authentication scheme {scheme!r}", hint="use bearer or api-key")
    return scheme


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine only (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def skill_of(record: SkillRecord) -> AgentSkill:
    """One skill as the card lists it: id and name, description, categories as tags, examples when it has some."""
    examples = record.meta.get("examples")
    listed = [e for e in examples if isinstance(e, str)][:10] if isinstance(examples, (list, tuple)) else []
    return AgentSkill(
        id=record.name,
        name=record.declared_name or record.name,
        description=record.description or f"Takes a swarm-handoff payload for {record.name}.",
        tags=list(record.categories),
        examples=listed,
        input_modes=[PAYLOAD_MEDIA_TYPE],
        output_modes=["application/json"],
    )


def agent_card(
    url: str,
    records: tuple[SkillRecord, ...] | list[SkillRecord],
    *,
    name: str = "swarm-handoff receiver",
    description: str = "Takes swarm-handoff payloads for the skills listed, verified before anything is written.",
    auth: Auth | None = None,
) -> AgentCard:
    """The agent card of a receiving host: its skills, its JSON-RPC interface, the extension, its auth scheme."""
    card = AgentCard(
        name=name,
        description=description,
        version="1.0",
        supported_interfaces=[AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")],
        capabilities=AgentCapabilities(
            streaming=False,
            push_notifications=False,
            extensions=[
                AgentExtension(
                    uri=EXTENSION_URI,
                    description="A message may carry a swarm-handoff payload (a data part of media type "
                    f"{PAYLOAD_MEDIA_TYPE}); it is verified here before anything is written.",
                    required=False,
                    params={"payload_versions": ["3.0"], "max_payload_bytes": 4 * 1024 * 1024},
                )
            ],
        ),
        default_input_modes=[PAYLOAD_MEDIA_TYPE, "text/plain"],
        default_output_modes=["application/json", "text/plain"],
        skills=[skill_of(r) for r in records if r.eligible],
    )
    if auth is not None:
        key, scheme = auth.card_scheme()
        card.security_schemes[key].CopyFrom(scheme)
        card.security_requirements.append(SecurityRequirement(schemes={key: StringList(list=[])}))
    return card


def _error_message(error: SwarmError, task_id: str, context_id: str) -> Message:
    data = {"code": error.code, "message": error.message, "hint": error.hint or ""}
    return Message(
        message_id=f"{task_id}-refused",
        role=Role.ROLE_AGENT,
        task_id=task_id,
        context_id=context_id,
        parts=[
            Part(text=f"{error.code}: {error.message}" + (f" (hint: {error.hint})" if error.hint else "")),
            Part(data=data_value(data), media_type=ERROR_MEDIA_TYPE),
        ],
    )


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
            await updater.reject(_error_message(refusal, task_id, context_id))
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
                await updater.reject(_error_message(error, task_id, context_id))
                return
        accepted = {**incoming.to_data(), "task_id": task_id}
        accepted.pop("session", None)  # the receiver's folders are its own business
        accepted.pop("payload_path", None)
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


# A task in these states was never accepted (refused, or cut off by a crash): the same payload sent
# again is checked again, so a refusal that has passed (a busy history) does not stick to it.
_CHECKED_AGAIN = (TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_REJECTED)


class HandoffRequestHandler(DefaultRequestHandler):
    """The SDK's request handler, except that a payload already accepted answers with its task."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    async def on_message_send(self, params: SendMessageRequest, context: ServerCallContext) -> Any:
        """Send, unless this payload's task was accepted: then that task, never a second one."""
        carried = carried_payload(params.message)
        if carried is None or params.message.task_id:
            return await super().on_message_send(params, context)
        task_id = task_id_for(carried.text)
        lock, users = self._locks.get(task_id, (asyncio.Lock(), 0))
        self._locks[task_id] = (lock, users + 1)  # counted, so a waiter's lock is never dropped under it
        try:
            async with lock:
                existing = await self.task_store.get(task_id, context)
                if existing is not None:
                    if existing.status.state not in _CHECKED_AGAIN:
                        return existing
                    await self.task_store.delete(task_id, context)  # the SDK never reopens a final task
                return await super().on_message_send(params, context)
        finally:
            lock, users = self._locks[task_id]
            if users <= 1:
                del self._locks[task_id]
            else:
                self._locks[task_id] = (lock, users - 1)


def task_store(store_url: str) -> DatabaseTaskStore:
    """The SDK's SQL task store at a SQLAlchemy URL (SQLite by default), one task space for the host."""
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(store_url)
    return DatabaseTaskStore(engine, owner_resolver=lambda _context: STORE_OWNER)


def default_store_url(config_dir: Path) -> str:
    """SQLite under the config folder: `{config}/swarm-handoff/a2a-tasks.sqlite3`."""
    path = Path(config_dir) / "swarm-handoff" / "a2a-tasks.sqlite3"
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite+aiosqlite:///{path}"


class _Buckets:
    """A token bucket per client address: `rate` requests a second, bursts of `burst`."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.state: dict[str, tuple[float, float]] = {}

    def take(self, client: str) -> bool:
        now = time.monotonic()
        tokens, then = self.state.get(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) * self.rate)
        if len(self.state) > 10_000:  # bounded: forget the idlest half
            for key in sorted(self.state, key=lambda k: self.state[k][1])[:5_000]:
                del self.state[key]
        if tokens < 1:
            self.state[client] = (tokens, now)
            return False
        self.state[client] = (tokens - 1, now)
        return True


Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class Guard:
    """ASGI guard in front of the SDK's routes: rate limit, authentication, request size before parsing."""

    def __init__(
        self,
        app: Callable[[Scope, Receive, Send], Awaitable[None]],
        *,
        max_bytes: int,
        auth: Auth | None,
        rate: float,
        burst: int,
        public: tuple[str, ...],
    ) -> None:
        self.app, self.max_bytes, self.auth, self.public = app, max_bytes, auth, public
        self.buckets = _Buckets(rate, burst)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse with 429, 401 or 413 before the SDK reads a byte; else pass the buffered body on."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        client = (scope.get("client") or ("?", 0))[0]
        if not self.buckets.take(str(client)):
            await _reply(send, 429, "A2A_RATE_LIMITED", "too many requests from this client", {"retry-after": "1"})
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if self.auth is not None and scope.get("path") not in self.public and not self.auth.allows(headers):
            challenge = "Bearer" if self.auth.scheme == "bearer" else f'ApiKey header="{self.auth.header}"'
            await _reply(
                send, 401, "A2A_UNAUTHENTICATED", "missing or wrong credentials", {"www-authenticate": challenge}
            )
            return
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            await _reply(send, 413, "A2A_REQUEST_TOO_LARGE", f"requests are limited to {self.max_bytes} bytes")
            return
        body = bytearray()
        more = True
        while more:
            event = await receive()
            if event["type"] != "http.request":
                await self.app(scope, receive, send)
                return
            body += event.get("body", b"")
            more = bool(event.get("more_body"))
            if len(body) > self.max_bytes:
                await _reply(send, 413, "A2A_REQUEST_TOO_LARGE", f"requests are limited to {self.max_bytes} bytes")
                return
        replayed = False

        async def replay() -> MutableMapping[str, Any]:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _reply(send: Send, status: int, code: str, message: str, extra: Mapping[str, str] | None = None) -> None:
    import json

    body = json.dumps({"error": {"code": code, "message": message}}).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.encode(), v.encode()) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


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
    """
    from starlette.applications import Starlette

    if not is_loopback(host) and auth is None:
        raise SwarmError(
            A2A_AUTH_REQUIRED,
            f"binding to {host} exposes the receiver beyond this machine, and no authentication scheme is set",
            hint="set a bearer token or API key (from an environment variable or a file), or bind to 127.0.0.1",
        )
    context = context or make_context()
    plugin_host = plugin_host or get_host()
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
    store = task_store(store_url or default_store_url(context.config_dir))
    executor = HandoffExecutor(Path(session_root), context, plugin_host, require_signature)
    handler = HandoffRequestHandler(
        agent_executor=executor,
        task_store=store,
        agent_card=card,
        request_context_builder=HandoffContextBuilder(),
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
    return Receiver(
        host, bound, Path(session_root), store_url or default_store_url(context.config_dir), card, guarded, sock
    )


def serve(host: str = "127.0.0.1", port: int = DEFAULT_PORT, session_root: Path | None = None, **options: Any) -> None:
    """Run a receiving host until interrupted (what `swarm-handoff a2a serve` calls); options: `build_receiver`'s."""
    root = session_root or Path.cwd() / "a2a-sessions"
    build_receiver(root, host=host, port=port, **options).run()
