"""Hand-off refusals name each input as the caller's interface spells it (`payload/names.py`), the CLI's by default."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from swarm_handoff.errors import SwarmError
from swarm_handoff.metadata import record_from_frontmatter
from swarm_handoff.payload import build3
from swarm_handoff.payload.lifecycle import HandoffOptions, hand_off
from swarm_handoff.payload.names import HANDOFF_CLI_NAMES

SYNTHESIS = "original_prompt: Review it.\nproblem_type: analytical\nsynthesis_summary: Review.\n"
TOOL_NAMES = {name: name for name in HANDOFF_CLI_NAMES}  # as a tool whose arguments are the neutral names


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


@pytest.mark.parametrize(("names", "expected"), [(None, "--schema 2.0"), (TOOL_NAMES, "schema=2.0")])
def test_a_payload_over_the_cap_names_the_older_schema_as_the_caller_spells_it(
    options: HandoffOptions, swarm_host: Any, monkeypatch: pytest.MonkeyPatch, names: Any, expected: str
) -> None:
    monkeypatch.setattr(build3.fit_budget, "__defaults__", (10,))  # a 10-token cap: nothing fits
    with pytest.raises(SwarmError) as caught:
        hand_off(options, host=swarm_host, option_names=names)
    assert caught.value.hint is not None
    assert caught.value.hint.endswith(f"or hand off with {expected}")


@pytest.mark.parametrize(("names", "expected"), [(None, "--source"), (TOOL_NAMES, "source")])
def test_an_unsafe_source_is_named_as_the_caller_spells_it(
    options: HandoffOptions, swarm_host: Any, names: Any, expected: str
) -> None:
    with pytest.raises(SwarmError) as caught:
        hand_off(HandoffOptions(**{**_fields(options), "source": "../up"}), host=swarm_host, option_names=names)
    assert caught.value.message.startswith(f"{expected} '../up'")


def _fields(options: HandoffOptions) -> dict[str, Any]:
    import attrs

    return attrs.asdict(options, recurse=False)


@pytest.mark.parametrize(
    ("names", "expected"),
    [(None, "hand off with --schema 2.0, or give the content with --synthesis"), (TOOL_NAMES, "schema=2.0")],
)
def test_a_v2_payload_that_cannot_be_carried_into_v3_names_the_inputs_as_the_caller_spells_them(
    monkeypatch: pytest.MonkeyPatch, names: Any, expected: str
) -> None:
    from swarm_handoff.payload import continuation
    from swarm_handoff.payload.received import RECEIVED_INVALID, Received

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
        continuation._synthesis_of_v2(received, *([names] if names else []))
    assert caught.value.code == RECEIVED_INVALID
    assert expected in (caught.value.hint or "")
    assert names is None or "--" not in (caught.value.hint or "")


@pytest.mark.parametrize(
    ("names", "expected"),
    [(HANDOFF_CLI_NAMES, "swarm-handoff discover --schema-version 3.0"), (TOOL_NAMES, "schema_version=3.0")],
)
def test_a_target_of_an_unwritable_schema_says_how_to_find_others_as_the_caller_spells_it(
    names: Any, expected: str
) -> None:
    from swarm_handoff.payload import targeting

    record = record_from_frontmatter({"description": "Old."}, name="old", scope="project", source="t", path=None)
    with pytest.raises(SwarmError) as caught:
        targeting._incompatible(record, "3.0", "1.2", "incompatible", names)
    assert expected in (caught.value.hint or "")


def test_the_cli_spelling_is_told_by_one_rule_every_helper_follows() -> None:
    from swarm_handoff.payload.names import entry, given, is_cli_option, switched_on

    assert all(is_cli_option(option) for option in HANDOFF_CLI_NAMES.values())
    assert not any(is_cli_option(argument) for argument in TOOL_NAMES.values())
    assert (given("--schema", "2.0"), given("schema", "2.0")) == ("--schema 2.0", "schema=2.0")
    assert (switched_on("--yes"), switched_on("confirm")) == ("--yes", "confirm=true")
    assert (entry("--param", "mode"), entry("params", "mode")) == ("--param mode=VALUE", "mode in params")
