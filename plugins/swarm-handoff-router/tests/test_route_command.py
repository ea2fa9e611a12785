"""`swarm-handoff route` and the MCP `route` tool: one operation row, registered by the router plugin."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from swarm_handoff_router.answer import MAX_REQUEST_CHARS

NO_FIT = "book a table for two at an italian restaurant"


@pytest.fixture
def host(make_swarm_host: Any) -> Any:
    """The router, the SKILL.md sources (frontmatter) and the MCP plugin for its tool test: nothing else installed."""
    return make_swarm_host(("router", "mcp", "frontmatter"))


@pytest.fixture
def project(host: Any, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The conftest's three-skill project, seen through `host`, with Claude's config folder kept out of reach."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    return project


def test_route_prints_a_ranked_list_marking_handoff_targets(project: Path, swarm_cli: Any) -> None:
    result = swarm_cli("route", "fill in this PDF form from my spreadsheet", "--cwd", str(project))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split()[:2] == ["1.", "pdf-filler"]
    decision = next(line for line in lines if "decision-helper" in line)
    assert "decision-helper *" in decision
    assert "* accepts hand-offs" in result.stdout
    assert "No skill fits" not in result.stdout


def test_route_json_has_abstain_and_candidates(project: Path, swarm_cli: Any) -> None:
    result = swarm_cli("route", "test a regex for my log lines", "--cwd", str(project), "--top", "2", "-f", "json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["kind"] == "route"
    assert data["abstain"] is False, json.dumps(data)[:1500]
    assert next(c["skill"] for c in data["candidates"]) == "regex-helper"
    assert len(data["candidates"]) == 2
    assert data["ranked"] == 3


def test_route_explain_lists_the_reasons(project: Path, swarm_cli: Any) -> None:
    plain = swarm_cli("route", "fill in a PDF form", "--cwd", str(project))
    explained = swarm_cli("route", "fill in a PDF form", "--cwd", str(project), "--explain")
    assert "term:" not in plain.stdout
    assert "term:" in explained.stdout


def test_route_reads_the_request_from_stdin(project: Path, swarm_cli: Any) -> None:
    result = swarm_cli("route", "-", "--cwd", str(project), "-f", "json", input="test a regex for my log lines\n")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["request"] == "test a regex for my log lines"
    assert data["candidates"][0]["skill"] == "regex-helper"


@pytest.mark.parametrize(
    ("args", "stdin", "words"),
    [
        (("   ",), None, "the request is empty"),
        (("x" * (MAX_REQUEST_CHARS + 1),), None, "at most"),
        (("-",), "y" * (MAX_REQUEST_CHARS + 5), "longer than"),
        (("-",), "  \n", "the request is empty"),
    ],
)
def test_an_empty_or_oversized_request_is_refused_with_a_code(
    project: Path, swarm_cli: Any, args: tuple[str, ...], stdin: str | None, words: str
) -> None:
    result = swarm_cli("route", *args, "--cwd", str(project), "-f", "json", input=stdin)
    assert result.exit_code == 2
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "USAGE"
    assert words in error["message"]


def test_a_refusal_on_the_command_line_hints_in_the_command_lines_words(project: Path, swarm_cli: Any) -> None:
    # the hints are read on every surface: no Python call syntax (`route("...")`, `problem_type='...'`)
    for args in (("   ",), ("fill in a form", "--problem-type", "p" * 100)):
        result = swarm_cli("route", *args, "--cwd", str(project), "-f", "json")
        assert result.exit_code == 2
        hint = json.loads(result.stdout)["error"]["hint"]
        assert "route(" not in hint, hint
        assert "problem_type=" not in hint, hint


def test_no_skill_fits_is_said_and_all_shows_the_ranking(project: Path, swarm_cli: Any) -> None:
    result = swarm_cli("route", NO_FIT, "--cwd", str(project))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("No skill fits this request")
    assert "pdf-filler" not in result.stdout
    assert "--all shows the ranking anyway" in result.stdout
    shown = swarm_cli("route", NO_FIT, "--cwd", str(project), "--all")
    assert shown.stdout.startswith("No skill fits this request")
    assert "pdf-filler" in shown.stdout
    assert "regex-helper" in shown.stdout
    data = json.loads(swarm_cli("route", NO_FIT, "--cwd", str(project), "--all", "-f", "json").stdout)
    assert data["abstain"] is True
    assert len(data["candidates"]) == 3


def test_scope_is_repeatable_and_checked(project: Path, swarm_cli: Any) -> None:
    ok = swarm_cli("route", "fill in a PDF form", "--cwd", str(project), "--scope", "project", "-f", "json")
    assert json.loads(ok.stdout)["scope"] == ["project"]
    bad = swarm_cli("route", "fill in a PDF form", "--cwd", str(project), "--scope", "nowhere", "-f", "json")
    assert bad.exit_code == 2
    assert "nowhere" in json.loads(bad.stdout)["error"]["message"]


def test_route_help_states_the_ranking_rule(project: Path, swarm_cli: Any) -> None:
    page = swarm_cli("route", "-h").stdout
    assert "router by default for undeclared candidates or a request in words" in " ".join(page.split())


def test_the_mcp_route_tool_is_listed_and_callable(project: Path, host: Any) -> None:
    mcp = pytest.importorskip("swarm_handoff_mcp.server", reason="the MCP plugin (swarm-handoff-mcp) is not installed")
    from swarm_handoff_mcp.tools import Call, check_arguments

    tools = mcp.SwarmServer(host).tools
    spec = tools["route"]
    assert spec.schema["required"] == ["request"]
    assert {"request", "top", "scope", "problem_type", "show_all", "cwd", "explain"} <= set(spec.schema["properties"])
    args = check_arguments(spec, {"request": NO_FIT, "cwd": str(project)})
    data = spec.run(Call(args, host)).to_data()
    assert data["abstain"] is True
    assert data["candidates"] == []
    args = check_arguments(spec, {"request": "fill in this PDF form", "cwd": str(project), "top": 1})
    data = spec.run(Call(args, host)).to_data()
    assert data["abstain"] is False
    assert [c["skill"] for c in data["candidates"]] == ["pdf-filler"]


def test_rank_request_ranks_every_discovered_skill_with_the_router(project: Path, swarm_cli: Any) -> None:
    args = ("rank", "--request", "fill in this PDF form from my spreadsheet", "--cwd", str(project), "-f", "json")
    result = swarm_cli(*args)
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["scorer"] == "router"  # the rule: a request in words, no --scorer
    assert data["workflows"][0]["skill"] == "pdf-filler"
    assert {w["skill"] for w in data["workflows"]} == {"pdf-filler", "regex-helper", "decision-helper"}


def test_the_route_row_takes_its_bounds_from_the_core() -> None:
    """`--top`'s default and maximum and the request's length are the core's, written in one place."""
    from swarm_handoff import api
    from swarm_handoff_router import answer
    from swarm_handoff_router.commands import ROUTE

    params = {p.name: p for p in ROUTE.params}
    assert params["top"].default == api.DEFAULT_TOP
    assert params["top"].tool_schema == {"maximum": api.MAX_TOP}
    assert params["request"].tool_schema == {"maxLength": api.MAX_REQUEST_CHARS}
    assert answer.MAX_REQUEST_CHARS is api.MAX_REQUEST_CHARS  # the core's object, not a copy
