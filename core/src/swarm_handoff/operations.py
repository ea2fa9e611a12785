"""Operations as data: each command declared once, every surface generated from the declaration.

An `Operation` names a command (`discover`, `workflow step`), says what it is for, lists its
parameters (`Param`) and names the function that runs it and returns a `Document`. The command line
(`cli/operations_cli.py`), the MCP tools' input schemas and argument checks (swarm-handoff-mcp),
the `-h` pages with their examples and shell completion are all derived from these records, so
adding an option to a command on every surface is an edit to the one table (`operation_table/`).

A parameter has one neutral name (`accepts_from`); each surface spells it its own way
(`--accepts-from` on the command line, `accepts_from` over MCP), and `spelling` says how.
Nothing here imports typer or the MCP SDK: the records are plain data.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from swarm_handoff.components import Document

__all__ = [
    "CLI",
    "MCP",
    "Group",
    "Operation",
    "OperationResult",
    "Param",
    "resolve",
]

# The surfaces a parameter can appear on.
CLI = "cli"
MCP = "mcp"
BOTH = frozenset({CLI, MCP})
CLI_ONLY = frozenset({CLI})
MCP_ONLY = frozenset({MCP})


@attrs.frozen
class Param:
    """One input of an operation: its neutral name, type, help and how each surface offers it.

    `type` is the value's Python type (str, int, bool, `Path`, an `Enum`); `repeatable` makes it a
    list; `argument` makes it positional on the command line. `flags` is the command line's spelling
    (default `--` and the name with dashes); `tool_name` the MCP argument's (default the name).
    `complete` names what shell completion offers: "skill", "scorer", "workflow" or "format".
    `choices` (a tuple, or "module:attribute" naming one) are what the MCP schema enumerates and
    completion offers; the command line keeps its own check (its message stays the command's).
    `tool_type` gives the MCP argument a shape the command line has no type for: "object" (key:
    value), "list" (a list of texts where the command line takes one comma-separated text),
    "text-or-object" (a synthesis given inline or as a path), "text-or-list" (one path or several).
    `tool_schema` holds JSON-schema fields the MCP argument adds (a bound a client needs).
    `path` marks a file or folder: the MCP server makes it absolute before the body sees it.
    `minimum` and `maximum` bound a number on every surface (the command line's range, the MCP schema).
    """

    name: str
    type: Any = str
    help: str | Callable[[], str] = ""
    default: Any = None
    required: bool = False
    repeatable: bool = False
    argument: bool = False
    flags: tuple[str, ...] = ()
    choices: tuple[str, ...] | str | None = None
    minimum: int | None = None
    maximum: int | None = None
    complete: str | None = None
    surfaces: frozenset[str] = BOTH
    tool_name: str | None = None
    tool_help: str | None = None
    tool_schema: Mapping[str, Any] | None = None
    tool_required: bool | None = None
    tool_type: str | None = None
    path: bool = False

    def help_text(self) -> str:
        """The help line (computed now when it names things declared at run time, such as scopes)."""
        return self.help if isinstance(self.help, str) else self.help()

    def choice_values(self) -> tuple[str, ...] | None:
        """The allowed values, imported now when the table names where they are declared."""
        if isinstance(self.choices, str):
            return tuple(resolve(self.choices))
        return self.choices

    @property
    def tool_is_required(self) -> bool:
        """Whether the MCP tool requires the argument (its own rule where declared, else the command line's)."""
        return self.required if self.tool_required is None else self.tool_required

    def tool_help_text(self) -> str:
        """The MCP argument's description: its own where declared, else the help line."""
        return self.tool_help if self.tool_help is not None else self.help_text()

    @property
    def cli_flags(self) -> tuple[str, ...]:
        """The command line's spelling: `--accepts-from` (and a short form or `--no-` pair where declared)."""
        return self.flags or ("--" + self.name.replace("_", "-"),)

    @property
    def cli_spelling(self) -> str:
        """How a message names this input on the command line: its argument name or first long flag."""
        if self.argument:
            return self.name.upper()
        first = self.cli_flags[0].split("/")[0]
        return next((f for f in self.cli_flags if f.startswith("--")), first).split("/")[0]

    @property
    def mcp_spelling(self) -> str:
        """How the MCP tool names this input: its JSON property."""
        return self.tool_name or self.name


@attrs.frozen
class OperationResult:
    """What a run gives the surface beyond its document: an exit status and lines for the user."""

    document: Document
    status: int = 0
    notes: tuple[str, ...] = ()


Runner = Callable[..., "Document | OperationResult"]


def _tool_name(operation: Operation) -> str | None:
    """The MCP tool an operation offered over MCP is, by default: its name, a space as `_`."""
    return operation.name.replace(" ", "_") if operation.mcp else None


@attrs.frozen
class Operation:
    """One command, declared once.

    `run` is "module:function" (or the function itself); the function takes the plugin host and the
    parameters by neutral name, and returns a `Document` (or an `OperationResult` when the run also
    has an exit status or notes). Named as text, it is imported only when the command runs, so
    listing operations costs nothing.
    `mcp=True` offers it over MCP as a tool of its own name (`workflow step` as `workflow_step`);
    `tool` is that name (a plugin may still give one itself; None: not offered). `tool_summary` is
    the tool's description where it is worded for an agent rather than for a terminal.
    `takes_format` passes the chosen `--format` to the body (a step carries it into its commands);
    `cli_invoke` ("module:function", called with the operation and the parsed values) wraps the
    command line's run where it must do more around it (a sandbox, stdout kept for a payload).
    """

    name: str
    summary: str
    params: tuple[Param, ...]
    run: str | Runner
    examples: tuple[str, ...] = ()
    docs: str = ""
    mcp: bool = False
    tool: str | None = attrs.field(default=attrs.Factory(_tool_name, takes_self=True))
    tool_summary: str | None = None
    formatted: bool = True
    epilog: str | None = None
    takes_format: bool = False
    cli_invoke: str | None = None

    @property
    def group(self) -> str:
        """The command group (`workflow` for `workflow step`); "" for a top-level command."""
        return self.name.rpartition(" ")[0]

    @property
    def command(self) -> str:
        """The command's own word (`step` for `workflow step`)."""
        return self.name.rpartition(" ")[2]

    def on(self, surface: str) -> tuple[Param, ...]:
        """The parameters offered on `surface`, in declared order."""
        return tuple(p for p in self.params if surface in p.surfaces)

    def param(self, name: str) -> Param:
        """The parameter of neutral name `name`."""
        return next(p for p in self.params if p.name == name)

    def runner(self) -> Runner:
        """The function that runs the operation (imported now, on first use)."""
        return self.run if callable(self.run) else resolve(self.run)


@attrs.frozen
class Group:
    """A command group (`workflow`, `session`): its help line and its examples."""

    name: str
    summary: str
    examples: tuple[str, ...] = ()
    docs: str = ""


def resolve(reference: str) -> Any:
    """Import "module:attribute", the form operations name their functions in (import on use)."""
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)


def spelling_table(operations: Sequence[Operation], surface: str) -> dict[str, str]:
    """Each neutral name as `surface` spells it, over `operations` (the first declaration wins)."""
    table: dict[str, str] = {}
    for operation in operations:
        for param in operation.params:
            if surface in param.surfaces:
                table.setdefault(param.name, param.cli_spelling if surface == CLI else param.mcp_spelling)
    return table


def find(operations: Sequence[Operation], name: str) -> Operation | None:
    """The operation called `name` (`workflow step`), or None."""
    return next((op for op in operations if op.name == name), None)


def by_tool(operations: Sequence[Operation]) -> Mapping[str, Operation]:
    """The operations offered over MCP, by tool name, in table order."""
    return {op.tool: op for op in operations if op.tool}
