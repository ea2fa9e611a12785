"""`discover` answers in pages over MCP (`limit`, `offset`): a big tree never travels whole on every call."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import mcp_types as types
import pytest

from swarm_handoff.api import UsageError, record_from_frontmatter
from swarm_handoff_mcp import calls
from swarm_handoff_mcp.calls import discover_tool
from swarm_handoff_mcp.server import SwarmServer, text_rendering
from swarm_handoff_mcp.tools import Call, check_arguments, tool_specs

NAMES = [f"skill-{i}" for i in range(7)]


@pytest.fixture
def host(swarm_host: Any, register_source: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    front = {"description": "Does it.", "handoff": {"accepts_handoff": True, "handoff_categories": ["review"]}}
    records = tuple(
        record_from_frontmatter(front, name=name, scope="project", source="pages", path=None) for name in NAMES
    )
    register_source("pages", records)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    return swarm_host


def _discover(host: Any, **args: Any) -> dict[str, Any]:
    spec = next(s for s in tool_specs() if s.name == "discover")
    return discover_tool(Call(check_arguments(spec, args), host)).to_data()


def _names(data: dict[str, Any]) -> list[str]:
    return [w["skill"] for w in data["workflows"] if w["skill"] in NAMES]


def test_a_list_that_fits_one_page_is_the_whole_document_without_a_page(host: Any) -> None:
    data = _discover(host)
    assert _names(data) == NAMES
    assert "page" not in data  # exactly `discover --format json`'s document


def test_pages_follow_each_other_to_the_whole_list(host: Any) -> None:
    total = len(_discover(host)["workflows"])
    seen: list[str] = []
    offset: int | None = 0
    pages = 0
    while offset is not None:
        data = _discover(host, limit=3, offset=offset)
        page = data["page"]
        assert page["offset"] == offset
        assert page["limit"] == 3
        assert page["returned"] == len(data["workflows"]) <= 3
        assert page["total"] == total
        seen += _names(data)
        offset = page["next_offset"]
        pages += 1
    assert seen == NAMES
    assert pages == -(-total // 3)


def test_the_default_page_size_applies_without_a_limit(host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(calls, "DISCOVER_PAGE", 2)
    data = _discover(host)
    assert len(data["workflows"]) == 2
    assert data["page"]["limit"] == 2
    assert data["page"]["next_offset"] == 2


def test_a_page_past_the_end_is_empty_and_says_so_without_a_none_found_message(host: Any) -> None:
    data = _discover(host, limit=5, offset=1000)
    assert data["workflows"] == []
    assert data["page"]["returned"] == 0
    assert data["page"]["next_offset"] is None
    assert "message" not in data


@pytest.mark.parametrize(
    ("args", "said"), [({"limit": 0}, "limit"), ({"offset": -1}, "offset"), ({"limit": "3"}, "limit")]
)
def test_a_bad_limit_or_offset_is_refused_naming_it(host: Any, args: dict[str, Any], said: str) -> None:
    with pytest.raises(UsageError, match=said):
        _discover(host, **args)


def test_the_text_rendering_says_which_page_it_shows(host: Any) -> None:
    spec = next(s for s in tool_specs() if s.name == "discover")
    document = discover_tool(Call(check_arguments(spec, {"limit": 3}), host))
    total = document.page_of[2]  # type: ignore[attr-defined]
    assert f"(workflows 1-3 of {total}; the next page starts at 3)" in text_rendering(document, host)


def test_the_server_answers_a_page_as_structured_content(host: Any) -> None:
    server = SwarmServer(host)
    ctx = SimpleNamespace(session=SimpleNamespace(client_capabilities=None, can_send_request=False), request_id=1)

    async def run() -> types.CallToolResult:
        params = types.CallToolRequestParams(name="discover", arguments={"limit": 2, "offset": 2})
        return await server.call_tool(ctx, params)  # type: ignore[arg-type]

    result = anyio.run(run)
    assert not result.is_error, result.structured_content
    assert result.structured_content["page"]["offset"] == 2
    assert len(result.structured_content["workflows"]) == 2
