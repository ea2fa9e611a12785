"""The `handoff` tool takes a request in words as `handoff --request` does: the core's one rule, its refusals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from swarm_handoff.api import (
    MAX_REQUEST_CHARS,
    MCP,
    SkillRecord,
    SwarmError,
    load_payload,
    spell_error,
    surface_spelling,
)
from swarm_handoff_mcp.calls import handoff_tool, rank_tool
from swarm_handoff_mcp.tools import Call, check_arguments, tool_specs

REQUEST = "Should we rewrite the billing importer?"
SYNTHESIS = {"original_prompt": "Plan it.", "problem_type": "decision", "synthesis_summary": "Plan."}
RECORDS = (
    SkillRecord(name="reader", scope="global", source="t", categories=("research",), legacy=True),
    SkillRecord(
        name="deep", scope="global", source="t", categories=("analysis",), accepts_from=("*",), protocol_version="3.0"
    ),
    SkillRecord(
        name="after", scope="global", source="t", categories=("analysis",), accepts_from=("*",), protocol_version="3.0"
    ),
)


@pytest.fixture
def session(swarm_host: Any, register_source: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    register_source("mcp-handoff-request", RECORDS)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    folder = tmp_path / "session"
    folder.mkdir()
    folder.chmod(0o755)
    return folder


def _call(tool: str, host: Any, args: dict[str, Any]) -> dict[str, Any]:
    """Call the tool's body and spell a refusal as the server does (`server._spell`)."""
    spec = next(s for s in tool_specs() if s.name == tool)
    body = handoff_tool if tool == "handoff" else rank_tool
    try:
        return body(Call(check_arguments(spec, args), host)).to_data()
    except SwarmError as error:
        raise spell_error(error, surface_spelling(MCP, tool)) from None


def _refusal(tool: str, host: Any, args: dict[str, Any]) -> SwarmError:
    with pytest.raises(SwarmError) as caught:
        _call(tool, host, args)
    return caught.value


def _payload(data: dict[str, Any]) -> dict[str, Any]:
    payload: dict[str, Any] = load_payload(Path(data["payload_path"]))["handoff"]
    return payload


def test_a_request_in_words_hands_off_and_becomes_original_prompt(swarm_host: Any, session: Path) -> None:
    data = _call("handoff", swarm_host, {"target": "reader", "request": REQUEST, "session": str(session)})
    payload = _payload(data)
    assert payload["context"] == {  # the defaults docs/payloads.md gives, as `handoff --request` writes them
        "original_prompt": REQUEST,
        "reframed_challenge": "",
        "problem_type": "analytical",
        "synthesis_summary": "",
    }
    assert payload["meta"]["perspectives_completed"] == 0


def test_a_v3_target_gets_the_request_and_the_problem_type_given(swarm_host: Any, session: Path) -> None:
    args = {"target": "deep", "request": REQUEST, "problem_type": "research", "source": "planner"}
    payload = _payload(_call("handoff", swarm_host, {**args, "session": str(session)}))
    assert payload["version"] == "3.0"
    assert payload["context"] == {"summary": REQUEST, "original_prompt": REQUEST, "problem_type": "research"}


def test_the_payload_is_the_one_the_cli_writes_for_the_same_request(
    swarm_host: Any, session: Path, swarm_cli: Any
) -> None:
    over_mcp = _payload(_call("handoff", swarm_host, {"target": "reader", "request": REQUEST, "session": str(session)}))
    result = swarm_cli("handoff", "reader", "--request", REQUEST, "--session", str(session), "-f", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    on_cli = _payload(result.json())
    assert over_mcp["context"] == on_cli["context"]
    assert over_mcp["insights"] == on_cli["insights"]


# How each surface spells what a refusal names: an option with a value (`--request "..."` and
# `request="..."`, as `inputs.given` writes them), then each option alone.
CLI_TO_MCP = {
    '--request "': 'request="',
    "--synthesis": "synthesis",
    "--request": "request",
    "--problem-type": "problem_type",
    "--from": "from_payload",
}


def _as_tool_names(text: str | None) -> str | None:
    for option, argument in CLI_TO_MCP.items():
        text = text.replace(option, argument) if text is not None else None
    return text


@pytest.mark.parametrize(
    ("args", "cli"),
    [
        ({"request": REQUEST, "synthesis": "SYNTHESIS"}, ("--request", REQUEST, "--synthesis", "SYNTHESIS")),
        (
            {"synthesis": "SYNTHESIS", "problem_type": "decision"},
            ("--synthesis", "SYNTHESIS", "--problem-type", "decision"),
        ),
        ({"request": REQUEST, "problem_type": "cooking"}, ("--request", REQUEST, "--problem-type", "cooking")),
        ({"request": "  "}, ("--request", "  ")),
        ({}, ()),
    ],
)
def test_each_refusal_is_the_clis_word_for_word_in_the_tools_spelling(
    swarm_host: Any, session: Path, swarm_cli: Any, args: dict[str, Any], cli: tuple[str, ...]
) -> None:
    synthesis = session.parent / "synthesis.yaml"
    synthesis.write_text("original_prompt: Plan it.\nproblem_type: decision\n", encoding="utf-8")
    args = {k: str(synthesis) if v == "SYNTHESIS" else v for k, v in args.items()}
    cli = tuple(str(synthesis) if part == "SYNTHESIS" else part for part in cli)
    error = _refusal("handoff", swarm_host, {"target": "reader", "session": str(session), **args})
    result = swarm_cli("handoff", "reader", *cli, "--session", str(session), "-f", "json")
    assert result.exit_code == 2, result.stdout
    expected = result.json()["error"]
    assert error.code == expected["code"] == "USAGE"
    assert error.message == _as_tool_names(expected["message"])
    assert error.hint == _as_tool_names(expected.get("hint"))
    assert "--" not in error.message + (error.hint or "")  # the tool's spelling, never the CLI's
    assert list(session.iterdir()) == []  # refused before anything was written


def test_handoff_and_rank_refuse_both_contexts_by_the_same_rule(swarm_host: Any, session: Path) -> None:
    both = {"request": REQUEST, "synthesis": SYNTHESIS}
    on_handoff = _refusal("handoff", swarm_host, {"target": "reader", "session": str(session), **both})
    on_rank = _refusal("rank", swarm_host, both)
    assert (on_handoff.code, on_handoff.message, on_handoff.hint) == (on_rank.code, on_rank.message, on_rank.hint)
    assert "synthesis and request are two ways to give the context: give one" in on_handoff.message


def test_a_bad_problem_type_is_refused_with_the_clis_code(swarm_host: Any, session: Path) -> None:
    args = {"target": "reader", "session": str(session), "request": REQUEST, "problem_type": "cooking"}
    error = _refusal("handoff", swarm_host, args)
    assert error.code == "USAGE"
    assert "problem_type 'cooking' is not a problem type" in error.message
    assert error.details["inputs"] == ["problem_type"]


def test_a_type_a_v2_target_cannot_carry_names_the_tool_argument(swarm_host: Any, session: Path) -> None:
    args = {"target": "reader", "session": str(session), "request": REQUEST, "problem_type": "research"}
    error = _refusal("handoff", swarm_host, args)
    assert error.code == "PROBLEM_TYPE_NOT_IN_V2"
    assert "pass problem_type as one of" in (error.hint or "")
    assert "--problem-type" not in (error.hint or "")


def test_a_continued_chain_still_needs_no_context(swarm_host: Any, session: Path) -> None:
    start = {"target": "deep", "request": REQUEST, "source": "planner", "session": str(session)}
    first = _call("handoff", swarm_host, start)
    args = {"target": "after", "source": "deep", "from_payload": first["payload_path"], "session": str(session)}
    later = _payload(_call("handoff", swarm_host, {**args, "require_signature": False}))
    assert later["context"]["original_prompt"] == REQUEST


def test_the_schema_adds_request_and_problem_type_and_requires_what_it_did() -> None:
    schema = next(s for s in tool_specs() if s.name == "handoff").schema
    assert schema["properties"]["request"]["type"] == "string"
    assert schema["properties"]["request"]["maxLength"] == MAX_REQUEST_CHARS  # one bound, as rank and route
    assert schema["properties"]["problem_type"]["type"] == "string"
    assert schema["required"] == ["target", "session"]


def test_a_request_longer_than_an_ordinary_text_argument_is_accepted(swarm_host: Any, session: Path) -> None:
    long_request = "review " * 1_000  # past the 4,096 characters of an ordinary text argument
    data = _call("handoff", swarm_host, {"target": "reader", "request": long_request, "session": str(session)})
    assert _payload(data)["context"]["original_prompt"] == long_request.strip()
