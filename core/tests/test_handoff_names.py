"""Hand-off refusals name each input by neutral name; each interface renders its spelling (`inputs.py`).

`hand_off` renders for the surface it is told (the CLI's by default); the checks it calls raise
with neutral names, rendered here with the operations table's CLI or MCP spelling.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from swarm_handoff.errors import SwarmError
from swarm_handoff.inputs import handoff_names, handoff_spelling, is_marked, spell_error
from swarm_handoff.metadata import record_from_frontmatter
from swarm_handoff.operations import CLI, MCP
from swarm_handoff.payload import build3
from swarm_handoff.payload.lifecycle import HandoffOptions, hand_off

SYNTHESIS = "original_prompt: Review it.\nproblem_type: analytical\nsynthesis_summary: Review.\n"


@pytest.fixture
def options(swarm_host: Any, register_source: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> HandoffOptions:
    handoff = {"accepts_handoff": True, "handoff_categories": ["review"], "handoff_description": "Reviews."}
    record = record_from_frontmatter(
        {"description": "Reviews.", "handoff": handoff}, name="reviewer", scope="project", source="t", path=None
    )
    register_source("names", (record,))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    synthesis = tmp_path / "synthesis.yaml"
    synthesis.write_text(SYNTHESIS, encoding="utf-8")
    return HandoffOptions(target="reviewer", synthesis=synthesis, session=tmp_path, source="planner")


@pytest.mark.parametrize(("surface", "expected"), [(CLI, "--schema 2.0"), (MCP, "schema=2.0")])
def test_a_payload_over_the_cap_names_the_older_schema_as_the_caller_spells_it(
    options: HandoffOptions, swarm_host: Any, monkeypatch: pytest.MonkeyPatch, surface: str, expected: str
) -> None:
    monkeypatch.setattr(build3.fit_budget, "__defaults__", (10,))  # a 10-token cap: nothing fits
    with pytest.raises(SwarmError) as caught:
        hand_off(options, host=swarm_host, surface=surface)
    assert caught.value.hint is not None
    assert caught.value.hint.endswith(f"or hand off with {expected}")


@pytest.mark.parametrize(("surface", "expected"), [(CLI, "--source"), (MCP, "source")])
def test_an_unsafe_source_is_named_as_the_caller_spells_it(
    options: HandoffOptions, swarm_host: Any, surface: str, expected: str
) -> None:
    with pytest.raises(SwarmError) as caught:
        hand_off(HandoffOptions(**{**_fields(options), "source": "../up"}), host=swarm_host, surface=surface)
    assert caught.value.message.startswith(f"{expected} '../up'")
    assert caught.value.details["option"] == expected
    assert caught.value.details["inputs"] == ["source"]  # the neutral name, whatever the surface


def _fields(options: HandoffOptions) -> dict[str, Any]:
    import attrs

    return attrs.asdict(options, recurse=False)


@pytest.mark.parametrize(
    ("names", "expected"),
    [(CLI, "hand off with --schema 2.0, or give the content with --synthesis"), (MCP, "schema=2.0")],
)
def test_a_v2_payload_that_cannot_be_carried_into_v3_names_the_inputs_as_the_caller_spells_them(
    monkeypatch: pytest.MonkeyPatch, names: str, expected: str
) -> None:
    from swarm_handoff.payload import continuation
    from swarm_handoff.payload.received_record import RECEIVED_INVALID, Received

    def refused(data: object, path: object = None) -> object:
        raise SwarmError("VALIDATION_FAILED", "problem_type is missing")

    monkeypatch.setattr(continuation, "parse_synthesis", refused)
    received = Received(
        path=Path("p.json"),
        payload={"handoff": {}},
        version="2.0",
        skill="reviewer",
        chain=("planner",),
        span="s",
        problem_type="analytical",
    )
    with pytest.raises(SwarmError) as caught:
        continuation._synthesis_of_v2(received)
    assert is_marked(caught.value.hint)  # the domain speaks neutral names; a surface renders them
    spell_error(caught.value, handoff_spelling(names))
    assert caught.value.code == RECEIVED_INVALID
    assert expected in (caught.value.hint or "")
    assert names == CLI or "--" not in (caught.value.hint or "")


@pytest.mark.parametrize(
    ("names", "expected"),
    [(CLI, "swarm-handoff discover --schema-version 3.0"), (MCP, "the discover tool with schema_version=3.0")],
)
def test_a_target_of_an_unwritable_schema_says_how_to_find_others_as_the_caller_spells_it(
    names: str, expected: str
) -> None:
    from swarm_handoff.payload import targeting

    record = record_from_frontmatter({"description": "Old."}, name="old", scope="project", source="t", path=None)
    with pytest.raises(SwarmError) as caught:
        targeting._incompatible(record, "3.0", "1.2", "incompatible")
    spell_error(caught.value, handoff_spelling(names))
    assert expected in (caught.value.hint or "")


def test_the_cli_spelling_is_told_by_one_rule_every_helper_follows() -> None:
    from swarm_handoff.payload.names import entry, given, is_cli_option, switched_on

    assert all(is_cli_option(option) for option in handoff_names(CLI).values())
    assert not any(is_cli_option(argument) for argument in handoff_names(MCP).values())
    assert handoff_names(MCP)["received"] == "from_payload"
    assert handoff_names(MCP)["confirm"] == "confirm_loop"
    assert handoff_names(CLI)["received"] == "--from"
    assert handoff_names(CLI)["confirm"] == "--yes"
    assert (given("--schema", "2.0"), given("schema", "2.0")) == ("--schema 2.0", "schema=2.0")
    assert (switched_on("--yes"), switched_on("confirm")) == ("--yes", "confirm=true")
    assert (entry("--param", "mode"), entry("params", "mode")) == ("--param mode=VALUE", "mode in params")


def test_a_refusal_on_the_command_line_names_the_option_and_keeps_the_neutral_name(
    swarm_cli: Any, tmp_path: Path
) -> None:
    import json

    (tmp_path / "s.yaml").write_text(SYNTHESIS, encoding="utf-8")
    result = swarm_cli("handoff", "reviewer", "--session", "", "--synthesis", str(tmp_path / "s.yaml"), "-f", "json")
    error = json.loads(result.stdout)["error"]
    assert error["message"] == "--session is empty"
    assert error["details"]["option"] == "--session"
    assert error["details"]["inputs"] == ["session"]
    assert not is_marked(result.stdout)
    assert not is_marked(result.stderr)
