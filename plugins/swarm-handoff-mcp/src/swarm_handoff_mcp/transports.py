"""How the MCP server is reached: stdio (stdin guarded against over-deep lines, signals) or streamable HTTP.

Imported only when `swarm-handoff mcp` starts, like `server`. Over stdio, fd 0 belongs to the
protocol alone and every line is measured before the SDK parses it (`depth.py`); Ctrl-C and
SIGTERM end the server cleanly. Over HTTP, a token, when given, is required on every request.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any, BinaryIO, cast

import anyio
import mcp_types as types

from swarm_handoff.api import PluginHost
from swarm_handoff_mcp.config import DEFAULT_ELICIT_TIMEOUT
from swarm_handoff_mcp.depth import MAX_MESSAGE_DEPTH, json_depth, too_deep_answer
from swarm_handoff_mcp.server import SwarmServer


class DepthGuard:
    """The stdin lines for the SDK, minus those nested too deep, which are answered here (`depth.py`)."""

    def __init__(self, lines: Any) -> None:
        self.lines = lines
        self.write: Any = None  # the SDK's write stream, once `stdio_server` yields it
        self.ready = anyio.Event()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._filtered()

    async def _filtered(self) -> AsyncIterator[str]:
        from mcp.shared.message import SessionMessage

        async for line in self.lines:
            depth = json_depth(line)
            if depth <= MAX_MESSAGE_DEPTH:
                yield line
                continue
            print(f"swarm-handoff mcp: a message nested {depth} levels deep was not read", file=sys.stderr)
            answer = too_deep_answer(line, depth)
            if answer is not None:
                await self.ready.wait()
                await self.write.send(SessionMessage(types.JSONRPCError.model_validate(answer)))


def _claim_stdin() -> tuple[BinaryIO, Callable[[], None]]:
    """fd 0 for the protocol alone, as the SDK claims it: a private duplicate is read, fd 0 is the null device.

    Handlers and their children then read EOF, never the client's messages. When descriptors
    cannot be duplicated, stdin is read in place.
    """
    import os

    try:
        private = os.dup(0)
        if private <= 2:  # pragma: no cover - fds 0-2 are open in a served process
            os.close(private)
            raise OSError("the duplicate of fd 0 landed in the standard range")
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
    except OSError:
        return sys.stdin.buffer, lambda: None

    def restore() -> None:
        with contextlib.suppress(OSError):
            os.dup2(private, 0)
            os.close(private)

    return os.fdopen(private, "rb", closefd=False), restore


async def serve_stdio(host: PluginHost | None = None, elicit_timeout: float = DEFAULT_ELICIT_TIMEOUT) -> int:
    """Serve over stdin/stdout until EOF (status 0) or SIGINT/SIGTERM (status 130/143)."""
    import io

    from mcp.server.stdio import stdio_server

    stopped: list[int] = []
    binary, restore_stdin = _claim_stdin()
    guard = DepthGuard(anyio.wrap_file(io.TextIOWrapper(binary, encoding="utf-8", errors="replace")))
    try:
        # stdout is the SDK's to claim (fd 1 then points at stderr); stdin is read through the guard
        async with stdio_server(stdin=cast(Any, guard)) as (read_stream, write_stream):
            guard.write = write_stream
            guard.ready.set()
            # built inside: from here on fd 1 is the protocol's, and a plugin's stray print lands on stderr
            server = SwarmServer(host, elicit_timeout=elicit_timeout).build()
            async with anyio.create_task_group() as group:
                if sys.platform != "win32":
                    group.start_soon(_stop_on_signal, group.cancel_scope, stopped)
                await server.run(read_stream, write_stream, server.create_initialization_options())
                group.cancel_scope.cancel()  # EOF: the client is gone; stop watching for signals
    finally:
        restore_stdin()
    return 128 + stopped[0] if stopped else 0


# After a signal, the SDK's stdin reader may sit in a blocking read until the client writes or
# closes the pipe; a client that does neither must not keep a Ctrl-C'd server alive.
SIGNAL_GRACE_SECONDS = 3.0


async def _stop_on_signal(scope: anyio.CancelScope, stopped: list[int]) -> None:
    """Turn Ctrl-C/SIGTERM into a clean stop (no KeyboardInterrupt traceback, on every Python)."""
    import os
    import signal
    import threading

    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for signum in signals:
            stopped.append(int(signum))
            print(f"swarm-handoff mcp: stopped by signal {int(signum)}", file=sys.stderr, flush=True)
            timer = threading.Timer(SIGNAL_GRACE_SECONDS, os._exit, args=(128 + int(signum),))
            timer.daemon = True
            timer.start()
            scope.cancel()
            return


async def serve_http(
    host_name: str,
    port: int,
    token: str | None,
    *,
    allow_remote: bool,
    elicit_timeout: float = DEFAULT_ELICIT_TIMEOUT,
) -> None:
    """Serve streamable HTTP at http://HOST:PORT/mcp; a token, when given, is required on every request."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    server = SwarmServer(elicit_timeout=elicit_timeout).build()
    security = None
    if allow_remote:  # DNS-rebinding protection only knows loopback names; the token guards instead
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app: Any = server.streamable_http_app(host=host_name, transport_security=security)
    if token is not None:
        app = _require_token(app, token)
    config = uvicorn.Config(app, host=host_name, port=port, log_level="warning")
    await uvicorn.Server(config).serve()


def _require_token(app: Any, token: str) -> Any:
    """ASGI wrapper: refuse every HTTP request without `Authorization: Bearer <token>` (compared in constant time)."""
    import hmac

    expected = f"Bearer {token}".encode()

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, expected):
                headers = [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")]
                await send({"type": "http.response.start", "status": 401, "headers": headers})
                await send({"type": "http.response.body", "body": b"missing or wrong bearer token\n"})
                return
        await app(scope, receive, send)

    return guarded
