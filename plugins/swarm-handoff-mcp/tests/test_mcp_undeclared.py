"""The `rank` and `handoff` tools take `include_undeclared` / `allow_undeclared` as the CLI does (issue 18.3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from swarm_handoff.api import load_payload, record_from_frontmatter
from swarm_handoff_mcp.calls import handoff_tool, rank_tool
from swarm_handoff_mcp.tools import Call, check_arguments, tool_specs

SYNTHESIS = {"original_prompt": "Review it.", "problem_type": "analytical", "synthesis_summary": "Review."}


@pytest.fixture
def host(swarm_host: Any, register_source: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    plain = record_from_frontmatter({"description": "Reviews."}, name="plain", scope="project", source="t", path=None)

    register_source("mcp-undeclared", (plain,))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    return swarm_host


def test_rank_tool_includes_undeclared_skills_on_request(host: Any) -> None:
    assert rank_tool(Call({"synthesis": SYNTHESIS}, host)).to_data()["workflows"] == []
    data = rank_tool(Call({"synthesis": SYNTHESIS, "include_undeclared": True}, host)).to_data()
    assert [(w["skill"], w["undeclared"]) for w in data["workflows"]] == [("plain", True)]


def test_handoff_tool_allows_an_undeclared_target_on_request(host: Any, tmp_path: Path) -> None:
    spec = next(s for s in tool_specs() if s.name == "handoff")
    args = check_arguments(
        spec, {"target": "plain", "synthesis": SYNTHESIS, "session": str(tmp_path), "allow_undeclared": True}
    )
    result = handoff_tool(Call(args, host))
    # Recorded as it was given over MCP (the tool's argument), not as the CLI's --allow-undeclared.
    assert any(note.endswith("handed off with allow_undeclared") for note in result.to_data()["notes"])
    payload = load_payload(Path(result.to_data()["payload_path"]))
    assert payload["handoff"]["meta"]["eligibility_override"]["option"] == "allow_undeclared"


def test_refusing_an_undeclared_target_names_the_tool_argument(host: Any, tmp_path: Path) -> None:
    from swarm_handoff.api import SwarmError
    from swarm_handoff_mcp.server import _name_override

    spec = next(s for s in tool_specs() if s.name == "handoff")
    args = check_arguments(spec, {"target": "plain", "synthesis": SYNTHESIS, "session": str(tmp_path)})
    with pytest.raises(SwarmError) as caught:
        handoff_tool(Call(args, host))
    error = _name_override(caught.value, "handoff")
    assert error.details["override_argument"] == "allow_undeclared"
    assert "allow_undeclared=true" in (error.hint or "")
