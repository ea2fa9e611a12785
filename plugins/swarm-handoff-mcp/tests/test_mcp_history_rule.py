"""`history` with a trace and a skill is refused by one rule, spelt by each surface."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from swarm_handoff.api import MCP, SwarmError, spell_error, surface_spelling
from swarm_handoff_mcp.calls import history_tool
from swarm_handoff_mcp.tools import Call, check_arguments, tool_specs

TRACE = "0af7651916cd43dd8448eb211c80319c"


def test_trace_with_skill_is_the_clis_refusal_in_the_tools_spelling(
    swarm_host: Any, swarm_cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    spec = next(s for s in tool_specs() if s.name == "history")
    with pytest.raises(SwarmError) as caught:
        history_tool(Call(check_arguments(spec, {"trace": TRACE, "skill": "reader"}), swarm_host))
    refusal = spell_error(caught.value, surface_spelling(MCP, "history"))  # as the server spells it
    result = swarm_cli("history", "--trace", TRACE, "--skill", "reader", "-f", "json")
    assert result.exit_code == 2, result.stdout
    cli = result.json()["error"]
    assert cli["code"] == refusal.code == "USAGE"
    assert cli["message"] == "--trace and --skill cannot be combined"
    assert refusal.message == "trace and skill cannot be combined"
    assert refusal.hint == cli["hint"] == "pass one of them"
