"""One reading of a hand-off chain for `rank --chain`, `handoff --chain`, the Python API and the MCP tools."""

from __future__ import annotations

import json

import pytest

from swarm_handoff import api
from swarm_handoff.chains import chain_names
from swarm_handoff.errors import SwarmError
from swarm_handoff.payload.lifecycle import HandoffOptions


@pytest.mark.parametrize(
    ("given", "names"),
    [
        (None, ()),
        ("", ()),
        ("planner", ("planner",)),
        (" planner , ,reviewer ,", ("planner", "reviewer")),
        ([" planner ", "", "  ", "reviewer"], ("planner", "reviewer")),
        (("speckit.plan", "plugin:skill"), ("speckit.plan", "plugin:skill")),  # names as real skills spell them
    ],
)
def test_text_and_lists_are_trimmed_and_empty_entries_dropped(given, names):
    assert chain_names(given) == names


@pytest.mark.parametrize(
    ("given", "why"),
    [
        (["planner,reviewer"], "a comma"),  # the comma form could not say it
        ("plan\x1b[31mner", "a control character"),
        (["plan\nner"], "a control character"),
        (["plan\u202ener"], "a control character"),  # a bidi override: text that reads otherwise than it is
    ],
)
def test_a_name_no_skill_can_have_is_refused_naming_the_option(given, why):
    with pytest.raises(SwarmError) as caught:
        chain_names(given, "chain")
    assert caught.value.code == "USAGE"
    assert caught.value.message.startswith("chain: the chain entry ")
    assert why in caught.value.message
    assert caught.value.hint


def test_the_python_api_reads_a_chain_the_same_way():
    assert api.chain_names is chain_names
    options = HandoffOptions(target="t", session=".", chain=[" a ", "", "b"])
    assert options.chain == ("a", "b")


def test_the_cli_refuses_a_control_character_in_handoff_chain(swarm_cli, tmp_path):
    synthesis = tmp_path / "synthesis.yaml"
    synthesis.write_text("original_prompt: choose\nproblem_type: decision\n", encoding="utf-8")
    args = ["--session", str(tmp_path), "--synthesis", str(synthesis), "--chain", "a,b\x07", "--format", "json"]
    result = swarm_cli("handoff", "anyone", *args)
    assert result.exit_code == 2
    error = json.loads(result.stdout)["error"]
    assert (error["code"], error["details"]["option"]) == ("USAGE", "--chain")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["synthesis.yaml"]  # nothing written


def test_the_cli_refuses_a_control_character_in_rank_chain(swarm_cli, tmp_path):
    synthesis = tmp_path / "synthesis.yaml"
    synthesis.write_text("original_prompt: choose\nproblem_type: decision\n", encoding="utf-8")
    result = swarm_cli("rank", "--synthesis", str(synthesis), "--chain", "a,\x1bb", "--format", "json")
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"]["code"] == "USAGE"


def test_the_data_classes_trim_but_keep_what_a_payload_carried():
    """`RankingRequest` and `HandoffOptions` also hold chains read from payloads: trimmed, reported on, not refused."""
    from swarm_handoff.ranking import RankingRequest
    from swarm_handoff.synthesis import parse_synthesis

    synthesis = parse_synthesis({"original_prompt": "q", "problem_type": "decision"})
    assert RankingRequest(synthesis=synthesis, chain=(" a,b ", "", "c\x07")).chain == ("a,b", "c\x07")
    assert RankingRequest(synthesis=synthesis, chain=" a , ,b").chain == ("a", "b")
