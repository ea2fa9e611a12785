"""The server driven by the SDK's real client (`ClientSession` + `stdio_client`) as an agent would drive it."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from swarm_handoff_mcp.testing import World, connect, example_step, server_command

pytest.importorskip("mcp")

TOOLS = {"discover", "why", "lint", "rank", "handoff", "verify", "validate", "ack", "history", "workflow_step"}
# Tools an installed plugin of this repository adds from its own operation rows.
PLUGIN_TOOLS = {"route"} if importlib.util.find_spec("swarm_handoff_router") else set()


def cli_json(world: World, *args: str) -> Any:
    """What `swarm-handoff ARGS --format json` prints, in the same environment as the server."""
    command = [server_command()[0], *args, "--format", "json"] if len(server_command()) == 2 else None
    if command is None:
        pytest.skip("no swarm-handoff script beside the interpreter")
    done = subprocess.run(command, env=world.env, cwd=world.project, capture_output=True, text=True, timeout=120)
    return json.loads(done.stdout)


def assert_tool_error(result: Any, code: str | None = None) -> dict[str, Any]:
    """A tool error carrying the structured error: code, message, details, hint; never a traceback."""
    assert result.is_error, result
    error = result.structured_content["error"]
    assert set(error) >= {"code", "message", "details", "hint"}
    assert error["code"]
    assert error["message"]
    if code is not None:
        assert error["code"] == code, error
    text = "".join(block.text for block in result.content)
    assert "Traceback" not in text
    assert "Traceback" not in json.dumps(error)
    return dict(error)


def no_tracebacks(world: World) -> None:
    text = world.stderr.read_text(encoding="utf-8") if world.stderr.exists() else ""
    assert "Traceback" not in text, text


def test_agent_flow_discover_rank_handoff_verify_ack_history(world: World) -> None:
    """The whole hand-off as an agent makes it, each result the CLI's --format json document."""
    workflow, first_step = example_step() or ("think-through", "start")  # the example packs, when installed

    async def main() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with connect(world) as client:
            tools = (await client.list_tools()).tools
            out["tools"] = {tool.name: tool.input_schema for tool in tools}
            out["discover"] = await client.call_tool("discover", {})
            scoped = {"scope": ["project"], "category": ["analysis"]}
            out["discover_scoped"] = await client.call_tool("discover", scoped)
            synthesis = {
                "original_prompt": "Should we expand into Europe?",
                "problem_type": "strategic",
                "synthesis_summary": "Regulation is the main risk.",
                "convergence_level": "medium",
            }
            out["rank"] = await client.call_tool("rank", {"synthesis": synthesis, "top": 1, "explain": True})
            out["rank_path"] = await client.call_tool("rank", {"synthesis": str(world.synthesis)})
            out["handoff"] = await client.call_tool(
                "handoff",
                {"target": "lit-review", "synthesis": synthesis, "session": "session", "reason": "evidence"},
            )
            assert not out["handoff"].is_error, out["handoff"].structured_content
            path = out["handoff"].structured_content["payload_path"]
            out["verify"] = await client.call_tool("verify", {"path": path})
            out["validate"] = await client.call_tool("validate", {"path": path})
            out["ack"] = await client.call_tool("ack", {"path": path, "status": "success"})
            out["history"] = await client.call_tool("history", {"skill": "lit-review"})
            out["why"] = await client.call_tool("why", {"name": "lit-review"})
            out["lint"] = await client.call_tool("lint", {"path": str(world.tree.skills_dir / "lit-review")})
            out["step"] = await client.call_tool("workflow_step", {"skill": workflow, "step": first_step})
            out["rank_after"] = await client.call_tool("rank", {"synthesis": str(world.synthesis)})  # with history
        return out

    out = anyio.run(main)
    assert set(out["tools"]) == TOOLS | PLUGIN_TOOLS
    for schema in out["tools"].values():
        assert schema["type"] == "object"
        assert schema["additionalProperties"] is False
    step = out.pop("step")
    if example_step() is None:  # only the core and this plugin installed (nox `plugin`): no workflows
        assert step.structured_content["error"]["code"] == "WORKFLOW_NOT_FOUND"
    else:
        assert step.structured_content["workflow"] == "think-through"
    for name, result in out.items():
        if name != "tools":
            assert not result.is_error, (name, result)
            assert result.content[0].text.strip(), name  # a short text rendering beside the document
    # the structured content is the CLI's document
    assert out["discover"].structured_content == cli_json(world, "discover")
    assert out["rank_after"].structured_content == cli_json(world, "rank", "--synthesis", str(world.synthesis))
    names = [w["skill"] for w in out["discover"].structured_content["workflows"]]
    assert {"lit-review", "market-scan"} <= set(names)
    if example_step() is not None:
        assert "think-through" in names  # the installed example packs are discovered too
    assert [w["skill"] for w in out["discover_scoped"].structured_content["workflows"]] == ["market-scan"]
    ranked = out["rank"].structured_content
    assert ranked["shown"] == 1
    assert ranked["explain"] is True
    # a relative session is the server's folder's (where the client started it), and comes back absolute
    assert out["handoff"].structured_content["payload_path"] == str(world.session / "handoff-payload.yaml")
    assert out["verify"].structured_content["payload_hash"] == out["handoff"].structured_content["payload_hash"]
    assert out["validate"].structured_content["valid"] is True
    rows = out["history"].structured_content["handoffs"]
    assert [row["target"] for row in rows] == ["lit-review"]
    assert out["ack"].structured_content["handoff"]["id"] == rows[0]["id"]
    assert out["why"].structured_content["skill"] == "lit-review"
    assert out["lint"].structured_content["errors"] == 0
    no_tracebacks(world)


def test_every_tool_refuses_bad_input_with_a_structured_error(world: World) -> None:
    """Missing, unknown and mistyped arguments, and failures inside each tool: isError with the coded error."""
    world.tree.add("broken", raw="---\nname: [unclosed\n---\n")
    tampered = world.session / "tampered.yaml"

    async def main() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with connect(world) as client:
            for tool in sorted(TOOLS):
                out[f"{tool}:unknown-arg"] = await client.call_tool(tool, {"no_such_argument": 1})
            out["why:missing"] = await client.call_tool("why", {})
            out["rank:type"] = await client.call_tool("rank", {"synthesis": 42})
            out["rank:top"] = await client.call_tool("rank", {"synthesis": str(world.synthesis), "top": 0})
            out["discover:scope"] = await client.call_tool("discover", {"scope": ["moon"]})
            out["discover:cwd"] = await client.call_tool("discover", {"cwd": str(world.root / "nowhere")})
            out["rank:synthesis"] = await client.call_tool("rank", {"synthesis": {"problem_type": 3}})
            out["handoff:target"] = await client.call_tool(
                "handoff", {"target": "nobody", "synthesis": str(world.synthesis), "session": str(world.session)}
            )
            out["handoff:session"] = await client.call_tool(
                "handoff", {"target": "lit-review", "synthesis": str(world.synthesis), "session": ""}
            )
            good = await client.call_tool(
                "handoff", {"target": "lit-review", "synthesis": str(world.synthesis), "session": str(world.session)}
            )
            text = Path(good.structured_content["payload_path"]).read_text(encoding="utf-8")
            tampered.write_text(text.replace("Regulation", "Nothing"), encoding="utf-8")
            out["verify:tampered"] = await client.call_tool("verify", {"path": str(tampered)})
            out["validate:missing"] = await client.call_tool("validate", {"path": str(world.root / "none.yaml")})
            out["ack:status"] = await client.call_tool("ack", {"path": str(tampered), "status": "maybe"})
            out["ack:tampered"] = await client.call_tool("ack", {"path": str(tampered), "status": "success"})
            out["history:type"] = await client.call_tool("history", {"skill": ["a"]})
            out["workflow_step:unknown"] = await client.call_tool("workflow_step", {"skill": "nope", "step": "x"})
            out["lint:type"] = await client.call_tool("lint", {"path": 7})
            out["no-such-tool"] = await client.call_tool("teleport", {})
            out["lint:broken"] = await client.call_tool("lint", {"path": str(world.tree.skills_dir / "broken")})
        return out

    out = anyio.run(main)
    lint_broken = out.pop("lint:broken")
    assert not lint_broken.is_error
    assert lint_broken.structured_content["errors"] >= 1
    codes = {name: assert_tool_error(result)["code"] for name, result in out.items()}
    for tool in TOOLS:
        assert codes[f"{tool}:unknown-arg"] == "USAGE"
    assert codes["handoff:target"] == "TARGET_NOT_FOUND"
    assert codes["verify:tampered"] == "INTEGRITY_MISMATCH"
    assert codes["ack:tampered"] == "INTEGRITY_MISMATCH"
    assert codes["workflow_step:unknown"] == "WORKFLOW_NOT_FOUND"
    assert codes["no-such-tool"] == "USAGE"
    no_tracebacks(world)


def test_loop_without_elicitation_names_the_override_argument(world: World) -> None:
    """A client that cannot be asked gets the loop error naming `confirm_loop`; with it, the hand-off goes."""
    args = {
        "target": "lit-review",
        "synthesis": str(world.synthesis),
        "session": str(world.session),
        "chain": ["lit-review", "market-scan"],
    }

    async def main() -> tuple[Any, Any]:
        async with connect(world) as client:
            refused = await client.call_tool("handoff", args)
            confirmed = await client.call_tool("handoff", {**args, "confirm_loop": True})
        return refused, confirmed

    refused, confirmed = anyio.run(main)
    error = assert_tool_error(refused)
    assert "confirm_loop" in error["hint"]
    assert error["details"]["override_argument"] == "confirm_loop"
    assert not confirmed.is_error


def test_handoff_from_payload_continues_the_chain_and_history_shows_the_trace(world: World) -> None:
    """Issue 17, point 4: `from_payload` continues a received payload's chain; `trace` shows it hop by hop."""
    start = {"target": "lit-review", "synthesis": str(world.synthesis), "session": "session", "schema": "3.0"}

    async def main() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with connect(world) as client:
            out["first"] = await client.call_tool("handoff", {**start, "source": "origin"})
            received = out["first"].structured_content["payload_path"]
            args = {"target": "market-scan", "from_payload": received, "session": "session", "schema": "3.0"}
            out["next"] = await client.call_tool("handoff", args)
            out["bare"] = await client.call_tool("handoff", {"target": "market-scan", "session": "session"})
            trace_id = json.loads(Path(received).read_text())["handoff"]["trace_id"]
            out["trace"] = await client.call_tool("history", {"trace": trace_id})
        return out

    out = anyio.run(main)
    assert not out["next"].is_error, out["next"].structured_content
    payload = json.loads(Path(out["next"].structured_content["payload_path"]).read_text())["handoff"]
    assert payload["meta"]["handoff_chain"] == ["origin", "lit-review"]
    assert payload["tracing"]["parent_span_id"] == out["first"].structured_content["payload_hash"][7:23]
    assert_tool_error(out["bare"], "USAGE")
    hops = out["trace"].structured_content["hops"]
    assert [(h["source"], h["target"]) for h in hops] == [("origin", "lit-review"), ("lit-review", "market-scan")]
    assert hops[1]["parent_span_id"] == hops[0]["span_id"]
    no_tracebacks(world)


def _looping_handoff(world: World) -> dict[str, Any]:
    """handoff arguments whose chain already holds the target: the call needs the user's confirmation."""
    return {
        "target": "lit-review",
        "synthesis": str(world.synthesis),
        "session": str(world.session),
        "chain": ["lit-review"],
    }


def test_loop_confirmation_is_asked_through_elicitation(world: World) -> None:
    """A client that supports elicitation is asked; its answer decides the hand-off."""
    import mcp_types as types

    asked: list[str] = []
    answers = iter([True, False])

    async def elicit(context: Any, params: Any) -> Any:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"confirm": next(answers)})

    args = _looping_handoff(world)

    async def main() -> tuple[Any, Any]:
        async with connect(world, elicitation_callback=elicit) as client:
            return await client.call_tool("handoff", args), await client.call_tool("handoff", args)

    accepted, declined = anyio.run(main)
    assert not accepted.is_error
    assert_tool_error(declined)
    assert len(asked) == 2
    assert "lit-review" in asked[0]


def test_twenty_concurrent_handoffs_in_one_session(world: World) -> None:
    """20 hand-offs at once over one connection: 20 distinct payloads, every one verifies."""
    from swarm_handoff.api import verify_file

    async def main() -> list[Any]:
        results: list[Any] = [None] * 20
        async with connect(world) as client:

            async def one(i: int) -> None:
                results[i] = await client.call_tool(
                    "handoff",
                    {
                        "target": "lit-review" if i % 2 else "market-scan",
                        "synthesis": str(world.synthesis),
                        "session": str(world.session),
                        "reason": f"parallel hand-off {i}",
                    },
                )

            async with anyio.create_task_group() as group:
                for i in range(20):
                    group.start_soon(one, i)
        return results

    results = anyio.run(main)
    assert all(not r.is_error for r in results), [r.structured_content for r in results if r.is_error]
    hashes = {r.structured_content["payload_hash"] for r in results}
    assert len(hashes) == 20
    files = sorted(world.session.glob("handoff-payload*.yaml"))
    assert len(files) == 20  # the earlier payloads were kept aside, none lost
    found = {verify_file(path, config=Path(world.env["CLAUDE_CONFIG_DIR"])).payload_hash for path in files}
    assert found == hashes
    no_tracebacks(world)


def test_changed_skill_md_is_seen_on_the_next_call(world: World) -> None:
    """Discovery is cached for the server's life, and a SKILL.md edited in between is seen at once."""
    path = world.tree.skills_dir / "lit-review" / "SKILL.md"
    progress: list[str | None] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(message)

    async def main() -> tuple[Any, Any, Any]:
        async with connect(world) as client:
            before = await client.call_tool("discover", {"scope": ["project"]}, progress_callback=on_progress)
            text = path.read_text(encoding="utf-8")
            path.write_text(text.replace("Review the literature", "Survey every published study"), encoding="utf-8")
            after = await client.call_tool("discover", {"scope": ["project"]})
            resource = await client.read_resource("skill://lit-review")
        return before, after, resource

    before, after, resource = anyio.run(main)

    def description(result: Any) -> str:
        return next(w["description"] for w in result.structured_content["workflows"] if w["skill"] == "lit-review")

    assert "Review the literature" in description(before)
    assert "Survey every published study" in description(after)
    assert "Survey every published study" in resource.contents[0].text
    assert progress == ["scanning the skill folders"]  # the long scan reports progress when asked


def test_resources_and_prompts(world: World) -> None:
    """Every skill's SKILL.md as skill://{scope}/{name} (path and hash in meta), payloads, and both prompts."""

    async def main() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with connect(world) as client:
            out["templates"] = (await client.list_resource_templates()).resource_templates
            listed = (await client.list_resources()).resources
            out["skills"] = {
                r.uri: (r.meta, (await client.read_resource(r.uri)).contents[0])
                for r in listed
                if r.uri.startswith("skill://")
            }
            out["by_name"] = (await client.read_resource("skill://market-scan")).contents[0]
            handed = await client.call_tool(
                "handoff", {"target": "lit-review", "synthesis": str(world.synthesis), "session": str(world.session)}
            )
            out["handoff"] = handed.structured_content
            out["payloads"] = [r.uri for r in (await client.list_resources()).resources if r.uri.startswith("handoff")]
            out["payload"] = (await client.read_resource(out["payloads"][0])).contents[0]
            out["errors"] = []
            for uri in ("skill://nobody", "handoff://session/..%2F..%2Fsynthesis.yaml", "handoff://other/x.yaml"):
                with pytest.raises(Exception) as caught:
                    await client.read_resource(uri)
                out["errors"].append(caught.value)
            out["prompts"] = [p.name for p in (await client.list_prompts()).prompts]
            out["menu"] = await client.get_prompt("handoff_menu", {"synthesis": str(world.synthesis), "top": "2"})
            out["menu_json"] = await client.get_prompt(
                "handoff_menu", {"synthesis": json.dumps({"original_prompt": "x", "problem_type": "strategic"})}
            )
            if example_step() is not None:
                workflow, step = example_step() or ("", "")
                out["step"] = await client.get_prompt("next_step", {"skill": workflow, "step": step})
            else:
                with pytest.raises(Exception, match="WORKFLOW_NOT_FOUND"):
                    await client.get_prompt("next_step", {"skill": "think-through", "step": "start"})
        return out

    out = anyio.run(main)
    assert {t.uri_template for t in out["templates"]} == {
        "skill://{name}",
        "skill://{scope}/{name}",
        "handoff://{session}/{file}",
    }
    assert {"skill://project/lit-review", "skill://project/market-scan"} <= set(out["skills"])
    if example_step() is not None:
        assert "skill://installed/think-through" in out["skills"]
    for uri, (meta, contents) in out["skills"].items():
        data = Path(meta["path"]).read_bytes()
        assert contents.text == data.decode("utf-8"), uri
        assert meta["sha256"] == contents.meta["sha256"] == hashlib.sha256(data).hexdigest()
    assert "market-scan" in out["by_name"].text
    assert out["payloads"] == ["handoff://session/handoff-payload.yaml"]
    assert out["payload"].meta["path"] == out["handoff"]["payload_path"]
    assert "lit-review" in out["payload"].text
    assert len(out["errors"]) == 3
    assert out["prompts"] == ["handoff_menu", "next_step"]
    menu = out["menu"].messages[0].content.text
    assert "(C)" in menu
    assert "(D)" in menu
    assert "(E)" not in menu
    assert "(C)" in out["menu_json"].messages[0].content.text
    if example_step() is not None:
        assert "think-through" in out["step"].messages[0].content.text


def test_an_elicitation_never_answered_times_out_as_declined_and_frees_the_worker(world: World) -> None:
    """Issue 25: a client that declares elicitation and never answers no longer holds a worker for ever.

    The bound is configured small (`SWARM_HANDOFF_MCP_ELICIT_TIMEOUT`); the test asserts what happens
    after it, not how long anything took.
    """
    asked: list[str] = []

    async def never(context: Any, params: Any) -> Any:
        asked.append(params.message)
        await anyio.sleep_forever()

    args = _looping_handoff(world)

    async def main() -> tuple[Any, Any]:
        env = {"SWARM_HANDOFF_MCP_ELICIT_TIMEOUT": "0.5"}
        async with connect(world, env=env, elicitation_callback=never) as client:
            refused = await client.call_tool("handoff", args)
            after = await client.call_tool("why", {"name": "lit-review"})  # the server still answers
        return refused, after

    refused, after = anyio.run(main)
    error = assert_tool_error(refused)
    assert error["details"]["elicitation"] == "no answer within 0.5 s: treated as declined"
    assert "confirm_loop" in error["hint"]
    assert len(asked) == 1
    assert not after.is_error
    no_tracebacks(world)
