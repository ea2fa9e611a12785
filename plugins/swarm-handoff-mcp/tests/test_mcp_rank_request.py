"""The `rank` tool takes a request in words as `rank --request` does, and picks its scorer by the same rule."""

from __future__ import annotations

from typing import Any

import pytest

from swarm_handoff.api import (
    MCP,
    Contribution,
    SkillRecord,
    SwarmError,
    hookimpl,
    record_from_frontmatter,
    spell_error,
    surface_spelling,
)
from swarm_handoff_mcp.calls import rank_tool
from swarm_handoff_mcp.tools import Call, check_arguments, tool_specs

SYNTHESIS = {"original_prompt": "Plan it.", "problem_type": "decision", "synthesis_summary": "Plan."}


def words_scorer() -> Any:
    """A stand-in `router`: a point for each request word in the skill's description."""

    class Scorer:
        def score(self, candidate: SkillRecord, request: Any) -> list[Contribution]:
            words = set(request.synthesis.original_prompt.lower().split())
            hits = len(words & set(candidate.description.lower().split()))
            return [Contribution("words", hits, f"{hits} request words in the description")]

    class Plugin:
        @hookimpl
        def swarm_handoff_scorers(self, register: Any) -> None:
            register("router", Scorer)

    return Plugin()


@pytest.fixture
def host(swarm_host: Any, register_source: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> Any:
    declared = SkillRecord(
        name="planner", scope="project", source="t", categories=("analysis",), description="Plan the work"
    )
    plain = record_from_frontmatter(
        {"description": "Fill pdf forms"}, name="pdf-filler", scope="project", source="t", path=None
    )
    register_source("mcp-rank-request", (declared, plain))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    return swarm_host


def _rank(host: Any, args: dict[str, Any]) -> dict[str, Any]:
    """Call the tool's body and spell a refusal as the server does (`server._spell`)."""
    spec = next(s for s in tool_specs() if s.name == "rank")
    try:
        return rank_tool(Call(check_arguments(spec, args), host)).to_data()
    except SwarmError as error:
        raise spell_error(error, surface_spelling(MCP, "rank")) from None


def test_a_request_in_words_ranks_every_skill_with_the_router(host: Any, register_plugin: Any) -> None:
    register_plugin(words_scorer(), "router")
    data = _rank(host, {"request": "fill these pdf forms"})
    assert data["scorer"] == "router"
    assert [w["skill"] for w in data["workflows"]] == ["pdf-filler", "planner"]
    assert data["request"]["problem_type"] == "analytical"  # the default a request in words carries
    assert _rank(host, {"request": "plan", "problem_type": "decision"})["request"]["problem_type"] == "decision"


def test_undeclared_candidates_of_a_synthesis_get_the_router_by_default(host: Any, register_plugin: Any) -> None:
    register_plugin(words_scorer(), "router")
    assert _rank(host, {"synthesis": SYNTHESIS, "include_undeclared": True})["scorer"] == "router"


def test_declared_targets_of_a_synthesis_keep_swarm_v2(host: Any, register_plugin: Any) -> None:
    register_plugin(words_scorer(), "router")
    data = _rank(host, {"synthesis": SYNTHESIS})
    assert data["scorer"] == "swarm-v2"
    assert [w["skill"] for w in data["workflows"]] == ["planner"]


def test_a_named_scorer_still_wins_over_the_rule(host: Any, register_plugin: Any) -> None:
    register_plugin(words_scorer(), "router")
    assert _rank(host, {"request": "fill pdf forms", "scorer": "swarm-v2"})["scorer"] == "swarm-v2"


def test_without_the_router_a_request_still_ranks_every_skill(host: Any) -> None:
    data = _rank(host, {"request": "fill pdf forms"})
    assert data["scorer"] == "swarm-v2"
    assert sorted(w["skill"] for w in data["workflows"]) == ["pdf-filler", "planner"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ({"request": "  "}, "request is empty"),
        ({"request": "plan it", "synthesis": SYNTHESIS}, "give one"),
        ({}, "neither synthesis nor request"),
        ({"synthesis": SYNTHESIS, "problem_type": "decision"}, "problem_type goes with request"),
        ({"request": "plan it", "problem_type": "cooking"}, "problem_type 'cooking' is not a problem type"),
    ],
)
def test_a_bad_request_names_the_tool_arguments(host: Any, args: dict[str, Any], words: str) -> None:
    with pytest.raises(SwarmError) as caught:
        _rank(host, args)
    assert caught.value.code == "USAGE"
    assert words in caught.value.message
    assert "--" not in caught.value.message + (caught.value.hint or "")  # the tool's spelling, not the CLI's


def test_the_schema_offers_request_and_problem_type_and_no_longer_requires_a_synthesis() -> None:
    schema = next(s for s in tool_specs() if s.name == "rank").schema
    assert schema["properties"]["request"]["type"] == "string"
    assert schema["properties"]["problem_type"]["type"] == "string"
    assert schema["required"] == []


def test_a_request_in_words_has_the_same_bound_on_rank_as_on_route() -> None:
    from swarm_handoff.api import MAX_REQUEST_CHARS

    schema = next(s for s in tool_specs() if s.name == "rank").schema
    assert schema["properties"]["request"]["maxLength"] == MAX_REQUEST_CHARS
    long_request = "review " * 1_000  # past the 4,096 characters of an ordinary text argument
    spec = next(s for s in tool_specs() if s.name == "rank")
    assert check_arguments(spec, {"request": long_request})["request"] == long_request
