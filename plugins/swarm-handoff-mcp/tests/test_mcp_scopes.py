"""`discover`'s `scope` takes every installed scope, and `handoff` picks the payload version as the CLI does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from swarm_handoff.api import ScopeSpec, UsageError, record_from_frontmatter
from swarm_handoff_mcp.calls import discover_tool, handoff_tool
from swarm_handoff_mcp.testing import World, connect
from swarm_handoff_mcp.tools import Call, check_arguments, tool_specs

pytest.importorskip("mcp")

SCRATCH = "mcp-scratch-scope"  # declared by no other test: absent from the table until its source is built
SYNTHESIS = {"original_prompt": "Review it.", "problem_type": "analytical", "synthesis_summary": "Review."}


@pytest.fixture
def scoped_host(swarm_host: Any, register_source: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """A host with one throwaway source declaring its own scope, as a plugin's source does."""

    def records() -> tuple[Any, ...]:  # made on discovery: the scope exists once the source declared it
        front = {"description": "Scratch.", "handoff": {"accepts_handoff": True, "handoff_categories": ["x"]}}
        return (record_from_frontmatter(front, name="scratch-skill", scope=SCRATCH, source="t", path=None),)

    register_source("mcp-scratch", records, scopes=(ScopeSpec(SCRATCH, 2.5),))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    return swarm_host


def test_server_advertises_and_accepts_a_plugin_scope(scoped_host: Any) -> None:
    from swarm_handoff_mcp.server import SwarmServer

    spec = SwarmServer(scoped_host).tools["discover"]
    enum = spec.schema["properties"]["scope"]["items"]["enum"]
    assert SCRATCH in enum
    assert enum.index("git-root") < enum.index(SCRATCH) < enum.index("global")  # most local first
    data = discover_tool(Call(check_arguments(spec, {"scope": [SCRATCH]}), scoped_host)).to_data()
    assert [(w["skill"], w["scope"]) for w in data["workflows"]] == [("scratch-skill", SCRATCH)]


def test_discover_refuses_an_undeclared_scope_naming_the_known_ones(scoped_host: Any) -> None:
    with pytest.raises(UsageError) as caught:
        discover_tool(Call({"scope": ["mcp-scratch-scop"]}, scoped_host))
    assert SCRATCH in (caught.value.hint or "")


def test_handoff_without_schema_lets_the_target_decide_as_the_cli_does(
    swarm_host: Any, register_source: Any, swarm_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    handoff = {
        "accepts_handoff": True,
        "handoff_categories": ["x"],
        "handoff_description": "d",
        "schema_version": "3.0",
    }
    target = record_from_frontmatter(
        {"description": "Reads v3.0.", "handoff": handoff}, name="reads-v3", scope="project", source="t", path=None
    )

    register_source("mcp-v3-target", (target,))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    synthesis = tmp_path / "synthesis.json"
    synthesis.write_text('{"original_prompt": "Q?", "problem_type": "analytical", "synthesis_summary": "S."}')
    for session in ("cli", "mcp"):
        (tmp_path / session).mkdir()
    cli = swarm_cli(
        "handoff", "reads-v3", "--session", str(tmp_path / "cli"), "--synthesis", str(synthesis), "-f", "json"
    )
    assert cli.exit_code == 0, cli.stdout
    spec = next(s for s in tool_specs() if s.name == "handoff")
    args = check_arguments(spec, {"target": "reads-v3", "synthesis": str(synthesis), "session": str(tmp_path / "mcp")})
    tool = handoff_tool(Call(args, swarm_host)).to_data()
    assert tool["version"] == cli.json()["version"] == "3.0"


def test_stdio_server_lists_and_filters_an_installed_plugins_scope(world: World) -> None:
    """A fresh server process: the agents plugin's scope is in the schema before any discover ran."""
    pytest.importorskip("swarm_handoff_agents")
    folder = world.project / ".agents" / "skills" / "agent-skill"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: agent-skill\ndescription: An agent skill.\nhandoff:\n  accepts_handoff: true\n"
        "  handoff_categories: [research]\n  handoff_description: Hand it over.\n---\n# agent-skill\n",
        encoding="utf-8",
    )

    async def main() -> tuple[list[str], Any]:
        async with connect(world) as client:
            tools = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
            found = await client.call_tool("discover", {"scope": ["agents-project"]})
            return tools["discover"]["properties"]["scope"]["items"]["enum"], found

    enum, found = anyio.run(main)
    assert "agents-project" in enum
    assert not found.is_error, found.structured_content
    assert [w["skill"] for w in found.structured_content["workflows"]] == ["agent-skill"]
