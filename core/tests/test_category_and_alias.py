"""Issue 26, point 11: categories compare the same way everywhere; `handoff` takes a frontmatter name."""

from __future__ import annotations

from pathlib import Path

import pytest

from swarm_handoff.eligibility import by_category
from swarm_handoff.errors import SwarmError
from swarm_handoff.payload.io import load_payload_file
from swarm_handoff.payload.lifecycle import HandoffOptions, hand_off
from swarm_handoff.records import SkillRecord, category_key

SYNTHESIS = """
original_prompt: Build a plugin loader for the editor.
problem_type: strategic
synthesis_summary: Implement the loader in two steps.
convergence_level: high
"""


def _skill(name: str, categories: tuple[str, ...], **fields: object) -> SkillRecord:
    return SkillRecord(name=name, scope="global", source="test", categories=categories, legacy=True, **fields)


RECORDS = (
    _skill("builder", ("Implementation",)),
    _skill("reader", (" research ",)),
    _skill("planner-folder", ("analysis",), declared_name="Plan Maker"),
    _skill("twin-a", ("analysis",), declared_name="twin"),
    _skill("twin-b", ("analysis",), declared_name="twin"),
    SkillRecord(
        name="v3-folder",
        scope="global",
        source="test",
        categories=("analysis",),
        accepts_from=("*",),
        protocol_version="3.0",
        declared_name="Deep Reader",
    ),
)


@pytest.fixture
def world(handoff_world):
    """A session, a synthesis, a config folder and the skills above."""
    return handoff_world(RECORDS, SYNTHESIS)


def test_category_key_ignores_case_and_surrounding_space():
    assert category_key(" Implementation ") == category_key("implementation") == "implementation"
    assert category_key("Research") != category_key("analysis")


def test_discover_category_filter_ignores_case(swarm_cli, world):
    result = swarm_cli("discover", "--category", "IMPLEMENTATION", "--category", "Research", "--format", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    names = sorted(w["skill"] for w in result.json()["workflows"])
    assert names == ["builder", "reader"]


def test_rank_category_filter_ignores_case_like_discover():
    assert [r.name for r in by_category(RECORDS, ["implementation"])] == ["builder"]
    assert [r.name for r in by_category(RECORDS, ["RESEARCH"])] == ["reader"]
    assert by_category(RECORDS, ["nothing"]) == ()


def test_handoff_accepts_a_frontmatter_name_and_says_which_folder(world):
    options = HandoffOptions(target="Plan Maker", synthesis=world["synthesis"], session=world["session"])
    result = hand_off(options, confirm=lambda _m: True)
    data = result.to_data()
    payload = load_payload_file(Path(data["payload_path"]))
    assert payload["handoff"]["target"]["skill"] == "planner-folder"
    assert any("'Plan Maker' is the frontmatter name of folder 'planner-folder'" in n for n in data["notes"]), data


def test_handoff_by_frontmatter_name_shows_the_note_in_text(swarm_cli, world):
    args = ["handoff", "Plan Maker", "--synthesis", str(world["synthesis"]), "--session", str(world["session"])]
    result = swarm_cli(*args, "--yes")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "frontmatter name of folder 'planner-folder'" in (result.stdout + result.stderr)


def test_handoff_refuses_a_frontmatter_name_two_folders_share(world):
    options = HandoffOptions(target="twin", synthesis=world["synthesis"], session=world["session"])
    with pytest.raises(SwarmError) as caught:
        hand_off(options, confirm=lambda _m: True)
    assert caught.value.code == "TARGET_NOT_FOUND"
    assert "twin-a" in str(caught.value)
    assert "twin-b" in str(caught.value)


def test_a_v3_handoff_by_frontmatter_name_keeps_the_note_beside_the_builders(world):
    options = HandoffOptions(target="Deep Reader", synthesis=world["synthesis"], session=world["session"])
    data = hand_off(options, confirm=lambda _m: True).to_data()
    assert load_payload_file(Path(data["payload_path"]))["handoff"]["target"]["skill"] == "v3-folder"
    assert data["notes"][0] == "'Deep Reader' is the frontmatter name of folder 'v3-folder'; handed off to v3-folder"


def test_a_scope_no_source_declares_is_refused_by_the_filter_itself():
    from swarm_handoff.discovery_result import DiscoveryResult

    with pytest.raises(SwarmError) as caught:
        DiscoveryResult(workflows=RECORDS).filtered((), ("nowhere",))
    assert caught.value.code == "USAGE"
    assert caught.value.message == "unknown scope 'nowhere'"
    assert "project" in str(caught.value.hint)


def test_what_a_filter_left_out_is_spelt_by_the_surface_that_asked():
    """The filters are named from the operations table: `--category` for the CLI, `category=` over MCP."""
    from swarm_handoff.discovery_result import DiscoveryResult
    from swarm_handoff.inputs import surface_spelling
    from swarm_handoff.operations import CLI, MCP

    result = DiscoveryResult(workflows=RECORDS)
    cli = result.filtered(("nope",), ("global",), surface_spelling(CLI, "discover"))
    assert cli.filter_text == "--category nope --scope global"
    mcp = result.filtered(("nope",), ("global",), surface_spelling(MCP, "discover"))
    assert mcp.filter_text == "category=nope scope=global"
    assert result.filtered(("nope",)).filter_text == "category=nope"  # Python callers: the neutral names


def test_discover_refuses_a_scope_no_source_declares(swarm_cli, world):
    result = swarm_cli("discover", "--scope", "nowhere", "--format", "json")
    assert result.exit_code != 0
    assert "unknown scope 'nowhere'" in result.stdout + result.stderr
