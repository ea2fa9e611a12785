"""The MCP tools: each a JSON schema and a call into the same Python API the CLI command uses.

The tools are derived from the core's operations table (`swarm_handoff.api.CORE_OPERATIONS`): an
operation with a `tool` name is offered, its parameters on the MCP surface become the argument
schema (`arguments.py` derives and checks it), and `calls.py` holds the bodies by tool name.
Nothing here imports the MCP SDK, so the tool table can be tested (and documented) without it;
`server.py` turns these into protocol objects. Every tool returns the CLI's document, so the
structured content is what `swarm-handoff <command> --format json` prints. The limits, the
checker and `installed_scopes` are re-exported: callers always found them here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from swarm_handoff.api import CORE_OPERATIONS, Document, Operation, OperationResult, PluginHost, Scope
from swarm_handoff.api import MAX_TOP as MAX_TOP
from swarm_handoff_mcp import calls
from swarm_handoff_mcp.arguments import MAX_LIST as MAX_LIST
from swarm_handoff_mcp.arguments import MAX_SYNTHESIS_BYTES as MAX_SYNTHESIS_BYTES
from swarm_handoff_mcp.arguments import MAX_TEXT as MAX_TEXT
from swarm_handoff_mcp.arguments import check_arguments as check_arguments
from swarm_handoff_mcp.arguments import operation_schema, path_arguments
from swarm_handoff_mcp.calls import installed_scopes as installed_scopes

Confirm = Callable[[str], bool]


@attrs.frozen
class Call:
    """One tool call: its checked arguments, the plugin host and how to ask the user."""

    args: Mapping[str, Any]
    host: PluginHost
    confirm: Confirm | None = None
    progress: Callable[[str], None] = lambda _message: None


@attrs.frozen
class ToolSpec:
    """A tool as the server lists it: a name, what it is for, its argument schema and its body."""

    name: str
    description: str
    schema: dict[str, Any]
    run: Callable[[Call], Document]
    paths: frozenset[str] = frozenset()


def tool_operations(operations: Sequence[Operation] | None = None) -> tuple[Operation, ...]:
    """The operations offered as tools: the core's with a body here (in the bodies' order), then the rest.

    `operations` defaults to the core's table; the server passes the plugins' too
    (`swarm_handoff_operations`), whose tools run through `operation_body`.
    """
    order = list(calls.BODIES)
    offered = [op for op in (CORE_OPERATIONS if operations is None else operations) if op.tool]
    known = sorted((op for op in offered if op.tool in calls.BODIES), key=lambda op: order.index(str(op.tool)))
    return (*known, *(op for op in offered if op.tool not in calls.BODIES))


def operation_body(operation: Operation) -> Callable[[Call], Document]:
    """A tool body for an operation declared without one here: its own function, given the arguments."""

    def run(call: Call) -> Document:
        from pathlib import Path

        values: dict[str, Any] = {}
        for param in operation.params:
            value = call.args.get(param.mcp_spelling, param.default)
            if param.type is Path and isinstance(value, str):
                value = Path(value)
            values[param.name] = value
        result = operation.runner()(call.host, **values)
        return result.document if isinstance(result, OperationResult) else result

    return run


def tool_specs(
    scopes: Sequence[str] | None = None, operations: Sequence[Operation] | None = None
) -> tuple[ToolSpec, ...]:
    """The tools, in the order an agent uses them; `scopes` (default: those declared so far) bound `discover`.

    Each name, description and argument schema is derived from the operation's declaration in the
    operations table (`operations`: default the core's); the body is the one `calls.BODIES` names
    for the tool, or the operation's own function.
    """
    if scopes is None:
        scopes = [s.value for s in Scope]
    offered = tool_operations(operations)
    paths = path_arguments(offered)
    return tuple(
        ToolSpec(
            str(op.tool),
            op.tool_summary or op.summary,
            operation_schema(op, scopes),
            calls.BODIES.get(str(op.tool)) or operation_body(op),
            paths=paths,
        )
        for op in offered
    )


# Arguments naming files or folders, from the table's `Param.path`: a client does not know the
# server's working folder, so relative paths are resolved once and every document carries absolute ones.
PATH_ARGUMENTS = path_arguments(tool_operations())
