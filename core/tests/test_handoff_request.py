"""`handoff TARGET --request TEXT`: a plain request handed off without a synthesis file (issue 28.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from swarm_handoff.payload.io import load_payload_file
from swarm_handoff.records import SkillRecord
from swarm_handoff.request_words import MAX_REQUEST_CHARS

SYNTHESIS = "original_prompt: Plan it.\nproblem_type: decision\nsynthesis_summary: Plan.\n"
RECORDS = (
    SkillRecord(name="reader", scope="global", source="test", categories=("research",), legacy=True),
    SkillRecord(
        name="deep",
        scope="global",
        source="test",
        categories=("analysis",),
        accepts_from=("*",),
        protocol_version="3.0",
    ),
)
REQUEST = "Should we rewrite the billing importer?"


@pytest.fixture
def world(handoff_world: Any) -> Any:
    return handoff_world(RECORDS, SYNTHESIS)


def test_a_v2_target_gets_the_request_as_original_prompt_with_the_documented_defaults(
    swarm_cli: Any, world: Any
) -> None:
    result = swarm_cli("handoff", "reader", "--request", REQUEST, "--session", str(world["session"]), "-f", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    payload = load_payload_file(Path(result.json()["payload_path"]))["handoff"]
    assert payload["context"] == {
        "original_prompt": REQUEST,
        "reframed_challenge": "",
        "problem_type": "analytical",
        "synthesis_summary": "",
    }
    assert payload["insights"] == {"convergent": [], "divergent": [], "uncertainties": [], "blind_spots": []}
    assert payload["meta"]["perspectives_completed"] == 0


def test_a_v3_target_gets_the_request_too(swarm_cli: Any, world: Any) -> None:
    args = ("handoff", "deep", "--request", REQUEST, "--source", "planner", "--session", str(world["session"]))
    result = swarm_cli(*args, "-f", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    payload = load_payload_file(Path(result.json()["payload_path"]))["handoff"]
    assert payload["version"] == "3.0"
    assert payload["context"] == {"summary": REQUEST, "original_prompt": REQUEST, "problem_type": "analytical"}
    assert payload["payload"] == {"working": {}}  # no synthesis file to point at: no files entry
    assert payload["meta"]["confidence"] == "low"


@pytest.mark.parametrize(("target", "kind"), [("reader", "decision"), ("deep", "research")])
def test_problem_type_sets_the_type_the_request_carries(swarm_cli: Any, world: Any, target: str, kind: str) -> None:
    args = ("handoff", target, "--request", REQUEST, "--problem-type", kind, "--source", "planner")
    result = swarm_cli(*args, "--session", str(world["session"]), "-f", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    payload = load_payload_file(Path(result.json()["payload_path"]))["handoff"]
    assert payload["context"]["problem_type"] == kind
    assert payload["context"]["original_prompt"] == REQUEST


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (("--request", REQUEST, "--problem-type", "cooking"), "--problem-type 'cooking' is not a problem type"),
        (("--synthesis", "SYNTHESIS", "--problem-type", "decision"), "--problem-type goes with --request"),
        (("--request", REQUEST, "--synthesis", "SYNTHESIS"), "give one"),
        ((), "--synthesis FILE, --request TEXT, or --from PAYLOAD"),
        (("--request", " "), "--request is empty"),
        (("--request", "x" * (MAX_REQUEST_CHARS + 1)), "at most"),
    ],
)
def test_request_and_synthesis_are_exclusive_and_the_request_is_checked(
    swarm_cli: Any, world: Any, extra: tuple[str, ...], words: str
) -> None:
    extra = tuple(str(world["synthesis"]) if part == "SYNTHESIS" else part for part in extra)
    result = swarm_cli("handoff", "reader", *extra, "--session", str(world["session"]), "-f", "json")
    assert result.exit_code == 2, result.stdout
    error = result.json()["error"]
    assert error["code"] == "USAGE"
    assert words in error["message"]
    assert not list(world["session"].glob("handoff-payload*"))  # nothing written


@pytest.mark.parametrize(
    "extra",
    [
        ("--request", REQUEST, "--synthesis", "SYNTHESIS"),
        ("--synthesis", "SYNTHESIS", "--problem-type", "decision"),
        ("--request", REQUEST, "--problem-type", "cooking"),
    ],
)
def test_handoff_and_rank_refuse_the_context_by_one_rule(swarm_cli: Any, world: Any, extra: tuple[str, ...]) -> None:
    """A synthesis or a request in words is one rule for both commands: the same refusal, word for word."""
    extra = tuple(str(world["synthesis"]) if part == "SYNTHESIS" else part for part in extra)
    errors = [
        swarm_cli("handoff", "reader", *extra, "--session", str(world["session"]), "-f", "json").json()["error"],
        swarm_cli("rank", *extra, "-f", "json").json()["error"],
    ]
    assert [e["code"] for e in errors] == ["USAGE", "USAGE"]
    assert errors[0]["message"] == errors[1]["message"]
    assert errors[0].get("hint") == errors[1].get("hint")


@pytest.mark.parametrize(
    ("given", "fix"), [("request", "pass --problem-type as one of"), ("file", "in SYNTHESIS, change")]
)
def test_a_type_a_v2_target_cannot_carry_is_fixed_where_it_came_from(
    swarm_cli: Any, world: Any, given: str, fix: str
) -> None:
    """The hint names --problem-type for a request in words, the file and its line for a synthesis."""
    if given == "request":
        context: tuple[str, ...] = ("--request", REQUEST, "--problem-type", "research")
    else:
        world["synthesis"].write_text(SYNTHESIS.replace("decision", "research"), encoding="utf-8")
        context = ("--synthesis", str(world["synthesis"]))
    result = swarm_cli("handoff", "reader", *context, "--session", str(world["session"]), "-f", "json")
    assert result.exit_code == 1, result.stdout
    error = result.json()["error"]
    assert error["code"] == "PROBLEM_TYPE_NOT_IN_V2"
    hint = error["hint"]
    assert fix.replace("SYNTHESIS", str(world["synthesis"])) in hint
    assert "decision, creative, analytical, strategic" in hint
    assert ("synthesis" in hint) == (given == "file")  # no synthesis to edit when the words were the request
