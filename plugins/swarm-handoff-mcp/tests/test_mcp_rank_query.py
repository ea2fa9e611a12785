"""The `rank` tool narrows the menu as `rank --category/--accepts-from/--schema-version/--input/--all` do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from swarm_handoff.api import SkillRecord
from swarm_handoff_mcp.calls import rank_tool
from swarm_handoff_mcp.tools import Call, check_arguments, tool_specs

SYNTHESIS = "original_prompt: Plan it.\nproblem_type: decision\nsynthesis_summary: Plan.\n"
RECORDS = (
    SkillRecord(name="reviewer", scope="project", source="t", categories=("review",), accepts_from=("planner",)),
    SkillRecord(
        name="builder",
        scope="project",
        source="t",
        categories=("implementation",),
        accepts_from=("*",),
        protocol_version="3.0",
        input_requirements=("repo",),
    ),
    SkillRecord(name="reader", scope="project", source="t", categories=("research",), legacy=True),
)


@pytest.fixture
def synthesis(swarm_host: Any, register_source: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    register_source("mcp-rank-query", RECORDS)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    path = tmp_path / "synthesis.yaml"
    path.write_text(SYNTHESIS, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("args", "cli"),
    [
        ({"category": ["review", "research"]}, ("--category", "review", "--category", "research")),
        ({"accepts_from": "stranger"}, ("--accepts-from", "stranger")),
        ({"accepts_from": "stranger", "all": True}, ("--accepts-from", "stranger", "--all")),
        ({"schema_version": "3.0"}, ("--schema-version", "3.0")),
        ({"input": ["repo"], "all": True}, ("--input", "repo", "--all")),
    ],
)
def test_each_filter_gives_the_clis_menu(
    swarm_host: Any, synthesis: Path, swarm_cli: Any, args: dict[str, Any], cli: tuple[str, ...]
) -> None:
    spec = next(s for s in tool_specs() if s.name == "rank")
    over_mcp = rank_tool(Call(check_arguments(spec, {"synthesis": str(synthesis), **args}), swarm_host)).to_data()
    result = swarm_cli("rank", "--synthesis", str(synthesis), *cli, "--format", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    on_cli = result.json()
    assert over_mcp["workflows"] == on_cli["workflows"]
    assert over_mcp.get("excluded") == on_cli.get("excluded")
    assert len(on_cli["workflows"]) < len(RECORDS)  # the filter left something out: not a vacuous match


def test_without_a_filter_every_target_is_ranked(swarm_host: Any, synthesis: Path) -> None:
    spec = next(s for s in tool_specs() if s.name == "rank")
    data = rank_tool(Call(check_arguments(spec, {"synthesis": str(synthesis)}), swarm_host)).to_data()
    assert sorted(w["skill"] for w in data["workflows"]) == ["builder", "reader", "reviewer"]


def test_the_filters_are_spelt_as_the_discover_tools_and_only_added() -> None:
    specs = {s.name: s.schema for s in tool_specs()}
    rank, discover = specs["rank"]["properties"], specs["discover"]["properties"]
    for name in ("category", "accepts_from", "schema_version", "input", "all"):
        assert {k: v for k, v in rank[name].items() if k != "description"} == {
            k: v for k, v in discover[name].items() if k != "description"
        }, name
    assert specs["rank"]["required"] == []


def test_autonomy_scores_the_menu_as_the_clis_option_does(
    swarm_host: Any, synthesis: Path, swarm_cli: Any, register_source: Any
) -> None:
    runs_alone = SkillRecord(
        name="runner", scope="project", source="t", categories=("analysis",), meta={"autonomous": True}
    )
    register_source("mcp-rank-autonomy", (runs_alone,))
    spec = next(s for s in tool_specs() if s.name == "rank")
    given = {"synthesis": str(synthesis), "autonomy": "autonomous", "scorer": "registry-v3", "explain": True}
    over_mcp = rank_tool(Call(check_arguments(spec, given), swarm_host)).to_data()
    cli = ("--autonomy", "autonomous", "--scorer", "registry-v3", "--explain", "-f", "json")
    result = swarm_cli("rank", "--synthesis", str(synthesis), *cli)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert over_mcp["workflows"] == result.json()["workflows"]
    assert over_mcp["request"]["autonomy"] == "autonomous"
    runner = next(w for w in over_mcp["workflows"] if w["skill"] == "runner")
    assert "runs autonomous, as preferred" in str(runner)  # the preference scored: registry-v3's autonomy_match


def test_an_autonomy_the_cli_does_not_offer_is_refused_by_the_schema(swarm_host: Any) -> None:
    from swarm_handoff.api import SwarmError

    spec = next(s for s in tool_specs() if s.name == "rank")
    assert spec.schema["properties"]["autonomy"]["enum"] == ["supervised", "autonomous"]
    with pytest.raises(SwarmError) as caught:
        check_arguments(spec, {"request": "plan it", "autonomy": "hands-off"})
    assert caught.value.code == "USAGE"
    assert "autonomy must be one of supervised, autonomous" in caught.value.message
