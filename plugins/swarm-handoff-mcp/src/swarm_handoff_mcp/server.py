"""The MCP server: the tools, resources and prompts on the SDK's low-level `Server`.

Imported only when `swarm-handoff mcp` starts, so the SDK and pydantic never weigh on the CLI.
Each tool body is the core's own (blocking) Python API, run with the rendering of its answer in a
worker thread so that one slow scan never stalls the protocol and concurrent calls run side by
side (their waits overlap; their Python work shares one interpreter lock); the hand-off
writes are exclusive, so parallel hand-offs keep the guarantees the CLI gives parallel processes.
"""

from __future__ import annotations

import contextlib
import json
import sys
import traceback
from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from anyio import from_thread
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from swarm_handoff.api import Document, Operation, PluginHost, SwarmError, get_host, render
from swarm_handoff_mcp import __version__, prompts, resources
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
        self.tools: dict[str, ToolSpec] = {
            spec.name: spec for spec in tool_specs(installed_scopes(self.host), operations=_operations(self.host))
        }
        self.sessions = resources.SessionIndex()
        self.limiter = anyio.CapacityLimiter(MAX_PARALLEL_CALLS)
        for failure in self.host.failures:  # a broken plugin is reported, and the server lives on
            print(f"warning: {failure.describe()}", file=sys.stderr)

    def build(self) -> Server[Any]:
        """The SDK server with every handler wired."""
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
                data, text = await anyio.to_thread.run_sync(self._answer, spec, call, limiter=self.limiter)
            except SwarmError as error:
                if unanswered:
                    error.details.setdefault("elicitation", unanswered[0])
                raise
            if spec.name == "handoff":
                self.sessions.add(args["session"])
        except SwarmError as error:
            return error_result(_name_override(error, params.name), self.host)
        except Exception as exc:  # a plugin's bug must not end the server or reach the client raw
            return error_result(unexpected(exc, params.name), self.host)
        content = [types.TextContent(type="text", text=text)]
        if self.host.failures:  # as the CLI warns on stderr: a broken plugin is never silent
            warnings = "".join(f"warning: {failure.describe()}\n" for failure in self.host.failures)
            content.append(types.TextContent(type="text", text=warnings))
        return types.CallToolResult(content=list(content), structured_content=data)

    def _answer(self, spec: ToolSpec, call: Call) -> tuple[dict[str, Any], str]:
        """Run the tool and render its document (JSON and text), all in the worker thread: never on the loop."""
        document = spec.run(call)
        return document_data(document, self.host), text_rendering(document, self.host)

    def _confirm(self, ctx: Context, unanswered: list[str]) -> Callable[[str], bool] | None:
        """Ask the user through elicitation when the client can answer; else no one can confirm.

        A question not answered within `elicit_timeout` seconds counts as declined (no hand-off without
        consent, and the worker thread is freed); `unanswered` collects that, for `details.elicitation`.
        """
        caps = ctx.session.client_capabilities
        if caps is None or caps.elicitation is None or not ctx.session.can_send_request:
            return None
        timeout = self.elicit_timeout

        async def ask(message: str) -> bool:
            with anyio.move_on_after(timeout):
                result = await ctx.session.elicit_form(
                    message,
                    {"type": "object", "properties": {"confirm": {"type": "boolean", "title": "Hand off anyway?"}}},
                    related_request_id=ctx.request_id,
                )
                return result.action == "accept" and bool((result.content or {}).get("confirm"))
            unanswered.append(f"no answer within {timeout:g} s: treated as declined")  # only a timeout gets here
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


def _operations(host: PluginHost) -> tuple[Operation, ...]:
    """The core's operations table and the plugins' (`swarm_handoff_operations`): every tool offered."""
    from swarm_handoff.api import CORE_OPERATIONS

    return (*CORE_OPERATIONS, *host.operations().operations)


def _spell(error: SwarmError, tool: str) -> None:
    """Say the inputs a refusal names (by neutral name) as this tool's arguments, from the operations table."""
    from swarm_handoff.api import CORE_OPERATIONS, MCP, spell_error, surface_spelling

    operation = next((op.name for op in CORE_OPERATIONS if op.tool == tool), None)
    spell_error(error, surface_spelling(MCP, operation))


def _name_override(error: SwarmError, tool: str) -> SwarmError:
    """Add `details.override_argument`: the tool argument that lifts the refusal, for clients that read it.

    The core names the override in neutral terms (`details.override`) and already spells its hint
    with this tool's arguments (`calls.handoff_names`); only the loop question reads differently
    here, since a client may be asked through elicitation rather than at a terminal.
    """
    _spell(error, tool)
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
