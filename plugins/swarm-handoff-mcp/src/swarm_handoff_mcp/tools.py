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

from swarm_handoff.api import Document, Operation, PluginHost
from swarm_handoff_mcp import calls
from swarm_handoff_mcp.arguments import MAX_LIST as MAX_LIST
from swarm_handoff_mcp.arguments import MAX_SYNTHESIS_BYTES as MAX_SYNTHESIS_BYTES
from swarm_handoff_mcp.arguments import MAX_TEXT as MAX_TEXT
from swarm_handoff_mcp.arguments import MAX_TOP as MAX_TOP
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


def tool_operations() -> tuple[Operation, ...]:
    """The operations offered as tools: those of the core's table with a body here, in the bodies' order."""
    from swarm_handoff.api import CORE_OPERATIONS

    order = list(calls.BODIES)
    offered = [op for op in CORE_OPERATIONS if op.tool in calls.BODIES]
    return tuple(sorted(offered, key=lambda op: order.index(str(op.tool))))


def tool_specs(scopes: Sequence[str] | None = None) -> tuple[ToolSpec, ...]:
    """The tools, in the order an agent uses them; `scopes` (default: those declared so far) bound `discover`.

    Each name, description and argument schema is derived from the operation's declaration in the
    core's operations table; the body is the one `calls.BODIES` names for the tool.
    """
    if scopes is None:
        from swarm_handoff.api import Scope

        scopes = [s.value for s in Scope]
    operations = tool_operations()
    paths = path_arguments(operations)
    return tuple(
        ToolSpec(
            str(op.tool),
            op.tool_summary or op.summary,
            operation_schema(op, scopes),
            calls.BODIES[str(op.tool)],
            paths=paths,
        )
        for op in operations
    )


# Arguments naming files or folders, from the table's `Param.path`: a client does not know the
# server's working folder, so relative paths are resolved once and every document carries absolute ones.
PATH_ARGUMENTS = path_arguments(tool_operations())
