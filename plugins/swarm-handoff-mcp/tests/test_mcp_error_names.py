"""Over MCP an error names the tool's arguments (`source`, `chain`...), never the CLI's options (`--source`)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any

import anyio
import mcp_types as types
import pytest

from swarm_handoff.api import Arg, Outcome, StepContext, StepDef, Workflow, hookimpl, record_from_frontmatter
from swarm_handoff_mcp.server import SwarmServer

CLI_OPTION = re.compile(r"--[A-Za-z]")
SYNTHESIS = {"original_prompt": "Review it.", "problem_type": "analytical", "synthesis_summary": "Review."}


class Broken:
    """A scorer whose every answer is a crash: its failure's hint names the scorer choice."""

    def score(self, candidate: object, request: object) -> list[object]:
        raise RuntimeError("broken on purpose")


class BrokenScorers:
    @hookimpl
    def swarm_handoff_scorers(self, register: Any) -> None:
        register("broken", Broken)


def needs_mode(ctx: StepContext, mode: Annotated[str, Arg("how thorough", choices=("quick", "deep"))]) -> Any:
    """A step that cannot run without its `mode` parameter."""
    return Outcome.OK, {}


MODED = Workflow(
    "moded",
    StepDef("start", "Start", ["Do it"], needs_mode, {Outcome.OK: "end"}),
    StepDef("end", "End", ["Done"], next={Outcome.OK: None}),
    description="A step that needs a parameter.",
)


@pytest.fixture
def server(
    swarm_host: Any,
    register_source: Any,
    register_plugin: Any,
    use_workflows: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> SwarmServer:
    picky = record_from_frontmatter(
        {
            "description": "Reviews.",
            "handoff": {
                "accepts_handoff": True,
                "handoff_categories": ["review"],
                "handoff_description": "Reviews what the planner hands it.",
                "accepts_from": ["planner"],
            },
        },
        name="picky",
        scope="project",
        source="t",
        path=None,
    )
    checked = record_from_frontmatter(
        {
            "description": "Fails its health check.",
            "handoff": {
                "accepts_handoff": True,
                "handoff_categories": ["review"],
                "handoff_description": "Checked first.",
                "health_check": f"{sys.executable} -c 'raise SystemExit(3)'",
            },
        },
        name="checked",
        scope="project",
        source="t",
        path=None,
    )
    bare = record_from_frontmatter(
        {"description": "Declares nothing."}, name="bare", scope="project", source="t", path=None
    )
    register_source("mcp-names", (picky, checked, bare))
    register_plugin(BrokenScorers(), "broken-scorers", distribution="broken-dist")
    use_workflows(MODED)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    return SwarmServer(swarm_host)


def call(server: SwarmServer, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    """One tool call through the server's own handler, as a client without elicitation makes it."""
    ctx = SimpleNamespace(session=SimpleNamespace(client_capabilities=None, can_send_request=False), request_id=1)

    async def run() -> types.CallToolResult:
        return await server.call_tool(ctx, types.CallToolRequestParams(name=name, arguments=arguments))  # type: ignore[arg-type]

    return anyio.run(run)


def bad_calls(tmp: Path) -> list[tuple[str, dict[str, Any]]]:
    """Each tool with arguments it refuses, the refusals that could name an input covered."""
    session = str(tmp / "session")
    missing = str(tmp / "nowhere")
    handoff = {"target": "picky", "synthesis": SYNTHESIS, "session": session}
    return [
        ("discover", {"cwd": missing}),
        ("discover", {"scope": ["nowhere"]}),
        ("discover", {"top": 3}),
        ("why", {"name": "ghost", "cwd": missing}),
        ("lint", {"path": missing}),
        ("rank", {"synthesis": {}}),
        ("rank", {"synthesis": missing}),
        ("rank", {"synthesis": SYNTHESIS, "chain": ["a,b"]}),
        ("rank", {"synthesis": SYNTHESIS, "scorer": "nope"}),
        ("rank", {"synthesis": SYNTHESIS, "top": 0}),
        ("rank", {"synthesis": SYNTHESIS, "cwd": missing}),
        ("handoff", {"target": "picky", "session": session}),
        ("handoff", {**handoff, "session": ""}),
        ("handoff", {**handoff, "session": "/"}),
        ("handoff", {**handoff, "source": "../up"}),
        ("handoff", {**handoff, "source": "stranger"}),
        ("handoff", {**handoff, "source": "planner", "schema": "9.9"}),
        ("handoff", {**handoff, "source": "planner", "schema": "2.0"}),
        ("handoff", {**handoff, "chain": ["a,b"]}),
        ("handoff", {**handoff, "chain": ["planner", "picky"], "source": "planner"}),
        ("handoff", {**handoff, "target": "bare"}),
        ("handoff", {**handoff, "target": "pickyy"}),
        ("handoff", {**handoff, "synthesis": missing}),
        ("handoff", {"target": "picky", "session": session, "from_payload": missing}),
        ("handoff", {**handoff, "target": "checked", "health_check": True}),
        ("verify", {"path": missing}),
        ("validate", {"path": missing}),
        ("ack", {"path": missing, "status": "received"}),
        ("ack", {"path": missing, "status": "maybe"}),
        ("history", {"skill": "a", "trace": "b"}),
        ("workflow_step", {"skill": "ghost", "step": "one"}),
        ("workflow_step", {"skill": "moded", "step": "start"}),
        ("rank", {"synthesis": SYNTHESIS, "scorer": "broken"}),
        (
            "handoff",
            {**handoff, "target": "checked", "schema": "2.0", "synthesis": {**SYNTHESIS, "problem_type": "research"}},
        ),
        ("handoff", {**handoff, "target": "checked", "sign": True}),
    ]


def unsafe_key(tmp: Path) -> None:
    """A signing key others can read: signing with it is refused, with a hint to remove or fix it."""
    folder = tmp / "config" / "swarm-handoff"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "signing.key").write_text("ab" * 32 + "\n")
    os.chmod(folder / "signing.key", 0o644)


def answers(tmp: Path) -> list[tuple[str, dict[str, Any]]]:
    """Calls that succeed but say something to the user: a filter that left nothing, lint findings."""
    skill = tmp / "extended" / "SKILL.md"
    skill.parent.mkdir()
    skill.write_text("---\nname: extended\ndescription: Has a top-level block.\ncategories: [review]\n---\nBody.\n")
    return [("discover", {"category": ["nowhere"]}), ("lint", {"path": str(skill)})]


def said(data: Any) -> list[tuple[str, str]]:
    """Every `message` and `hint` in a result: the error's, and each problem a report carries."""
    if isinstance(data, dict):
        found = [(key, value) for key, value in data.items() if key in ("message", "hint") and isinstance(value, str)]
        return found + [item for value in data.values() for item in said(value)]
    if isinstance(data, list):
        return [item for value in data for item in said(value)]
    return []


def test_no_error_of_any_tool_names_a_cli_option(server: SwarmServer, tmp_path: Path) -> None:
    (tmp_path / "session").mkdir()
    unsigned = call(
        server,
        "handoff",
        {"target": "picky", "synthesis": SYNTHESIS, "session": str(tmp_path / "session"), "source": "planner"},
    )
    assert not unsigned.is_error, unsigned.structured_content
    payload = (unsigned.structured_content or {})["payload_path"]
    leaks = []
    unsafe_key(tmp_path)
    errors = [*bad_calls(tmp_path), ("verify", {"path": payload, "require_signature": True})]
    for tool, arguments in [*errors, *answers(tmp_path)]:
        result = call(server, tool, arguments)
        data = result.structured_content or {}
        if (tool, arguments) in errors:
            assert result.is_error or tool == "lint", (tool, arguments, data)  # lint reports a bad path as a finding
        assert said(data), (tool, arguments, data)
        leaks += [f"{tool} {arguments}: {key}: {text}" for key, text in said(data) if CLI_OPTION.search(text)]
        leaks += [f"{tool} {arguments}: text: {c.text}" for c in result.content if CLI_OPTION.search(c.text)]  # type: ignore[union-attr]
    assert leaks == []


def test_a_required_signature_is_named_as_the_tool_argument(server: SwarmServer, tmp_path: Path) -> None:
    """verify's refusal of an unsigned payload names `require_signature` neutrally and spells it as the argument."""
    (tmp_path / "session").mkdir()
    arguments = {"target": "picky", "synthesis": SYNTHESIS, "session": str(tmp_path / "session"), "source": "planner"}
    payload = (call(server, "handoff", arguments).structured_content or {})["payload_path"]
    result = call(server, "verify", {"path": payload, "require_signature": True})
    error = (result.structured_content or {})["error"]
    assert error["details"]["inputs"] == ["require_signature"]
    assert "(require_signature)" in error["message"]


def test_every_input_a_refusal_names_is_a_handoff_argument() -> None:
    # The core's one list of hand-off inputs: a new one the tool lacks would be named as nothing over MCP.
    from swarm_handoff.api import HANDOFF_INPUTS
    from swarm_handoff_mcp.calls import handoff_names
    from swarm_handoff_mcp.tools import tool_specs

    spec = next(s for s in tool_specs() if s.name == "handoff")
    assert set(handoff_names()) == set(HANDOFF_INPUTS)
    discover_queries = {"accepts_from", "schema_version"}  # `discover`'s, suggested by hand-off refusals
    assert set(handoff_names().values()) - set(spec.schema["properties"]) == discover_queries
    assert discover_queries <= set(next(s for s in tool_specs() if s.name == "discover").schema["properties"])


def test_an_override_refusal_says_which_override_in_neutral_terms(server: SwarmServer, tmp_path: Path) -> None:
    handoff = {"target": "picky", "synthesis": SYNTHESIS, "session": str(tmp_path)}
    for arguments, override, argument in (
        ({**handoff, "source": "stranger"}, "override_accepts_from", "override_accepts_from"),
        ({**handoff, "target": "bare"}, "allow_undeclared", "allow_undeclared"),
    ):
        error = (call(server, "handoff", arguments).structured_content or {})["error"]
        assert (error["details"]["override"], error["details"]["override_argument"]) == (override, argument)
        assert f"{argument}=true" in error["hint"]


def test_a_folder_busy_in_a_tool_is_folder_busy_not_a_bug():
    """A folder lock held past the wait is FOLDER_BUSY over MCP too, never MCP_TOOL_FAILED (review of issue 25, #4)."""
    from swarm_handoff.api import FolderBusy
    from swarm_handoff_mcp.server import unexpected

    error = unexpected(FolderBusy("/some/folder", (4242,), 2.0), "handoff")
    assert error.code == "FOLDER_BUSY"
    assert "/some/folder" in error.message
    assert error.recoverable


def test_a_removed_working_folder_in_a_tool_is_cwd_unavailable_not_a_bug(tmp_path, monkeypatch):
    """As the CLI says it: a tool whose working folder was removed is the user's situation, not MCP_TOOL_FAILED."""
    from swarm_handoff_mcp.server import unexpected

    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    error = unexpected(FileNotFoundError(2, "No such file or directory"), "discover")
    assert error.code == "CWD_UNAVAILABLE"
