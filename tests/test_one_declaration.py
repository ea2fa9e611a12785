"""Adding an option to a command, on every surface, is an edit to one file: the operations table.

A copy of the core's `discover` with one more `Param` (and nothing else changed anywhere) shows the
option on the command line's help, parses it and hands it to the body; the MCP tool's schema lists
the argument, and the argument check refuses a wrong value and passes a right one.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest
import typer
from typer.testing import CliRunner

pytest.importorskip("swarm_handoff_mcp", reason="the MCP half needs the swarm-handoff-mcp plugin")

from swarm_handoff.api import CORE_OPERATIONS, Operation, Param, UsageError
from swarm_handoff.cli.operations_cli import add_operations
from swarm_handoff_mcp.arguments import check_arguments, operation_schema
from swarm_handoff_mcp.tools import ToolSpec

SEEN: dict[str, Any] = {}
LIMIT = Param("limit", int, "List at most N skills.", minimum=1)


def recording_body(host: Any, **values: Any) -> Any:
    """The body the test operation names: it records what it was given and answers with `plugins`."""
    SEEN.update(values)
    return host.report()


def _with_limit() -> Operation:
    discover = next(op for op in CORE_OPERATIONS if op.name == "discover")
    return attrs.evolve(discover, params=(*discover.params, LIMIT), run=f"{__name__}:recording_body")


def test_the_extra_param_is_on_the_command_line() -> None:
    app = typer.Typer(add_completion=False, rich_markup_mode=None)
    app.callback()(lambda: None)  # a group, as the real app is, not a lone command
    add_operations(app, [_with_limit()])
    runner = CliRunner()
    page = runner.invoke(app, ["discover", "--help"]).stdout
    assert "--limit" in page
    assert "List at most N skills." in page
    result = runner.invoke(app, ["discover", "--limit", "3", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert SEEN["limit"] == 3
    assert SEEN["accepts_from"] is None
    refused = runner.invoke(app, ["discover", "--limit", "0"])
    assert refused.exit_code == 2  # click checks the declared minimum


def test_the_extra_param_is_in_the_tool_schema_and_checked() -> None:
    operation = _with_limit()
    schema = operation_schema(operation, ["project"])
    assert schema["properties"]["limit"] == {"type": "integer", "minimum": 1, "description": "List at most N skills."}
    spec = ToolSpec("discover", operation.summary, schema, lambda call: call.host.report())
    assert check_arguments(spec, {"limit": 2}) == {"limit": 2}
    for wrong in ("two", 0):
        with pytest.raises(UsageError, match="limit"):
            check_arguments(spec, {"limit": wrong})
