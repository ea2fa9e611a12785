"""The `discover` tool takes the Step 4 queries, as `discover --accepts-from/--schema-version/--input`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from swarm_handoff.api import record_from_frontmatter
from swarm_handoff_mcp.calls import discover_tool
from swarm_handoff_mcp.tools import Call, check_arguments, tool_specs


@pytest.fixture
def host(swarm_host: Any, register_source: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    def skill(name: str, accepts: list[str], inputs: list[str]) -> Any:
        front = {"description": name, "handoff": {"accepts_from": accepts, "input_requirements": inputs}}
        return record_from_frontmatter(front, name=name, scope="project", source="t", path=None)

    records = (skill("editor-only", ["skill-editor"], ["draft"]), skill("anyone", ["*"], ["notes"]))

    register_source("mcp-query", records)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    return swarm_host


def _names(host: Any, **args: Any) -> list[str]:
    spec = next(s for s in tool_specs() if s.name == "discover")
    data = discover_tool(Call(check_arguments(spec, {**args, "all": True}), host)).to_data()
    return sorted(w["skill"] for w in data["workflows"] if w["skill"] in {"editor-only", "anyone"})


def test_discover_tool_filters_by_accepts_from_and_input(host: Any) -> None:
    assert _names(host) == ["anyone", "editor-only"]
    assert _names(host, accepts_from="planner") == ["anyone"]
    assert _names(host, accepts_from="skill-editor") == ["anyone", "editor-only"]
    assert _names(host, input=["draft"]) == ["editor-only"]
