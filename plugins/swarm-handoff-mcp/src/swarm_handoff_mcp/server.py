"""The MCP server: the tools, resources and prompts on the SDK's low-level `Server`.

Imported only when `swarm-handoff mcp` starts, so the SDK and pydantic never weigh on the CLI.
Each tool body is the core's own (blocking) Python API, run in a worker thread so that one
slow scan never stalls the protocol and concurrent calls really run side by side; the hand-off
writes are exclusive, so parallel hand-offs keep the guarantees the CLI gives parallel processes.
"""

from __future__ import annotations

import contextlib
import json
import sys
import traceback
from collections.abc import AsyncIterator, Callable
from typing import Any, BinaryIO, cast

import anyio
import anyio.to_thread
import mcp_types as types
from anyio import from_thread
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from swarm_handoff.api import Document, PluginHost, SwarmError, get_host, render
from swarm_handoff_mcp import prompts, resources
from swarm_handoff_mcp.calls import handoff_names
from swarm_handoff_mcp.config import DEFAULT_ELICIT_TIMEOUT
from swarm_handoff_mcp.tools import Call, ToolSpec, check_arguments, installed_scopes, tool_specs

Context = ServerRequestContext[Any, Any]
MAX_TEXT_RENDERING = 8000
MCP_TOOL_FAILED = "MCP_TOOL_FAILED"
# Worker threads for tool calls: enough for a swarm's parallel hand-offs, bounded all the same.
MAX_PARALLEL_CALLS = 16


def document_data(document: Document, host: PluginHost) -> dict[str, Any]:
    """The document exactly as `--format json` prints it (rendered, then parsed back)."""
    data = json.loads(render(document, "json", host))
    return data if isinstance(data, dict) else {"result": data}


def text_rendering(document: Document, host: PluginHost) -> str:
    """The CLI's text rendering, shortened: the structured content carries the whole document."""
    text = render(document, "text", host)
    if len(text) > MAX_TEXT_RENDERING:
        text = text[:MAX_TEXT_RENDERING] + "\n... (shortened: the structured content has everything)\n"
    return text


def error_result(error: SwarmError, host: PluginHost) -> types.CallToolResult:
    """A tool error (`isError`) carrying the project's structured error, never a traceback."""
    document = error.to_document()
    try:
        data = document_data(document, host)
    except SwarmError:
        data = document.to_data()
    text = f"error: {error}"
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=data, is_error=True
    )


def unexpected(exc: BaseException, tool: str) -> SwarmError:
    """Turn a bug (ours or a plugin's) into a coded error; the traceback goes to stderr only.

    A folder another process kept locked past the wait, or a working folder removed, is no bug: the
    core's `situation_error` gives it the code the CLI gives it (FOLDER_BUSY, CWD_UNAVAILABLE).
    """
    from swarm_handoff.api import situation_error

    known = situation_error(exc)
    if known is not None:
        return known
    traceback.print_exception(exc)
    return SwarmError(
        MCP_TOOL_FAILED,
        f"{tool}: unexpected {type(exc).__name__}: {exc}"[:1000],
        hint="this is a bug: the server's stderr has the traceback; please report it",
        recoverable=False,
    )


class SwarmServer:
    """State that lives as long as the server: the plugin host, the tool table, the sessions seen."""

    def __init__(self, host: PluginHost | None = None, *, elicit_timeout: float = DEFAULT_ELICIT_TIMEOUT) -> None:
        self.host = host or get_host()  # built once, in the main thread, before any call runs
        self.elicit_timeout = elicit_timeout
        # The schemas are built now, from what is installed: a plugin's scopes are in `discover`'s enum.
        self.tools: dict[str, ToolSpec] = {spec.name: spec for spec in tool_specs(installed_scopes(self.host))}
        self.sessions = resources.SessionIndex()
        self.limiter = anyio.CapacityLimiter(MAX_PARALLEL_CALLS)
        for failure in self.host.failures:  # a broken plugin is reported, and the server lives on
            print(f"warning: {failure.describe()}", file=sys.stderr)

    def build(self) -> Server[Any]:
        """The SDK server with every handler wired."""
        from swarm_handoff_mcp import __version__

        return Server(
            "swarm-handoff",
            version=__version__,
            instructions=(
                "swarm-handoff: discover agent skills, rank them for a synthesis (tool `rank`), hand work off "
                "(`handoff`), then `verify` and `ack` the payload. Skills are resources under skill://."
            ),
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
            on_list_resources=self.list_resources,
            on_list_resource_templates=self.list_resource_templates,
            on_read_resource=self.read_resource,
            on_list_prompts=self.list_prompts,
            on_get_prompt=self.get_prompt,
        )

    async def list_tools(self, ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        """Every tool with its JSON schema."""
        return types.ListToolsResult(
            tools=[
                types.Tool(name=spec.name, description=spec.description, input_schema=spec.schema)
                for spec in self.tools.values()
            ]
        )

    async def call_tool(self, ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        """Run one tool in a worker thread; every failure becomes a structured tool error."""
        spec = self.tools.get(params.name)
        try:
            if spec is None:
                raise SwarmError("USAGE", f"unknown tool {params.name!r}", hint=f"use one of: {', '.join(self.tools)}")
            args = check_arguments(spec, params.arguments)
            unanswered: list[str] = []  # the elicitations that timed out, said in the error
            call = Call(args, self.host, confirm=self._confirm(ctx, unanswered), progress=self._progress(ctx))
            try:
                document = await anyio.to_thread.run_sync(spec.run, call, limiter=self.limiter)
            except SwarmError as error:
                if unanswered:
                    error.details.setdefault("elicitation", unanswered[0])
                raise
            if spec.name == "handoff":
                self.sessions.add(args["session"])
            data = document_data(document, self.host)
            text = text_rendering(document, self.host)
        except SwarmError as error:
            return error_result(_name_override(error, params.name), self.host)
        except Exception as exc:  # a plugin's bug must not end the server or reach the client raw
            return error_result(unexpected(exc, params.name), self.host)
        content = [types.TextContent(type="text", text=text)]
        if self.host.failures:  # as the CLI warns on stderr: a broken plugin is never silent
            warnings = "".join(f"warning: {failure.describe()}\n" for failure in self.host.failures)
            content.append(types.TextContent(type="text", text=warnings))
        return types.CallToolResult(content=list(content), structured_content=data)

    def _confirm(self, ctx: Context, unanswered: list[str] | None = None) -> Callable[[str], bool] | None:
        """Ask the user through elicitation when the client can answer; else no one can confirm.

        A question not answered within `elicit_timeout` seconds counts as declined (no hand-off without
        consent, and the worker thread is freed); the refusal says so in `details.elicitation`.
        """
        caps = ctx.session.client_capabilities
        if caps is None or caps.elicitation is None or not ctx.session.can_send_request:
            return None
        timeout = self.elicit_timeout

        async def ask(message: str) -> bool:
            with anyio.move_on_after(timeout) as scope:
                result = await ctx.session.elicit_form(
                    message,
                    {"type": "object", "properties": {"confirm": {"type": "boolean", "title": "Hand off anyway?"}}},
                    related_request_id=ctx.request_id,
                )
                return result.action == "accept" and bool((result.content or {}).get("confirm"))
            if scope.cancelled_caught and unanswered is not None:
                unanswered.append(f"no answer within {timeout:g} s: treated as declined")
            print(f"swarm-handoff mcp: an elicitation got no answer within {timeout:g} s", file=sys.stderr)
            return False

        def confirm(message: str) -> bool:
            return bool(from_thread.run(ask, message))

        return confirm

    def _progress(self, ctx: Context) -> Callable[[str], None]:
        """Progress notifications for the scans (a no-op when the client asked for none)."""
        steps = [0]

        def progress(message: str) -> None:
            steps[0] += 1
            with contextlib.suppress(Exception):  # a client gone mid-call: the call's own result says so
                from_thread.run(ctx.session.report_progress, float(steps[0]), None, message)

        return progress

    async def list_resources(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        """Every discovered skill's SKILL.md, then the payloads of the sessions this server knows."""
        found = await anyio.to_thread.run_sync(resources.list_all, self.host, self.sessions, limiter=self.limiter)
        return types.ListResourcesResult(resources=found)

    async def list_resource_templates(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        """One skill by name, one skill by scope and name, one payload of a session."""
        return types.ListResourceTemplatesResult(resource_templates=resources.templates())

    async def read_resource(self, ctx: Context, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        """A skill's SKILL.md or a session payload; a bad URI is a coded error."""
        uri = str(params.uri)
        try:
            contents = await anyio.to_thread.run_sync(
                resources.read, uri, self.host, self.sessions, limiter=self.limiter
            )
        except SwarmError as error:
            raise resources.protocol_error(error) from None
        return types.ReadResourceResult(contents=[contents])

    async def list_prompts(self, ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
        """`handoff_menu` and `next_step`."""
        return types.ListPromptsResult(prompts=prompts.listing())

    async def get_prompt(self, ctx: Context, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        """Render a prompt with the same documents the tools return."""
        try:
            return await anyio.to_thread.run_sync(
                prompts.get, params.name, dict(params.arguments or {}), self.host, limiter=self.limiter
            )
        except SwarmError as error:
            raise resources.protocol_error(error) from None


def _name_override(error: SwarmError, tool: str) -> SwarmError:
    """Add `details.override_argument`: the tool argument that lifts the refusal, for clients that read it.

    The core names the override in neutral terms (`details.override`) and already spells its hint
    with this tool's arguments (`calls.handoff_names`); only the loop question reads differently
    here, since a client may be asked through elicitation rather than at a terminal.
    """
    override = error.details.get("override")
    if tool != "handoff" or not isinstance(override, str):
        return error
    argument = handoff_names().get(override)
    if argument is None:
        return error
    error.details.setdefault("override_argument", argument)
    if override == "confirm":
        error.hint = (
            f"ask the user; if they agree, call handoff again with {argument}=true "
            "(clients that support elicitation are asked directly)"
        )
    return error


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

        from swarm_handoff_mcp.depth import MAX_MESSAGE_DEPTH, json_depth, too_deep_answer

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
