"""The ASGI guard in front of the SDK's routes: rate limit, authentication and request size, before parsing.

The SDK reads and parses a request body whole; this guard refuses a flood (429), a client without
the token (401) and a body over the limit (413, by Content-Length and while reading) before a byte
reaches it. The agent card path stays public so a client can learn the scheme it needs.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any

from swarm_handoff_a2a.auth import Auth


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
    body = json.dumps({"error": {"code": code, "message": message}}).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.encode(), v.encode()) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
