"""`swarm-handoff rank`: the menu, --explain, JSON breakdowns, --session writes, structured errors."""

from __future__ import annotations

import json

import pytest

from swarm_handoff.records import SkillRecord

SYNTHESIS = """
original_prompt: Should we rebuild the billing importer?
problem_type: decision
synthesis_summary: Perspectives split on whether to build a new importer.
convergence_level: low
key_uncertainties: [cost, timeline, vendor]
"""

RECORDS = (
    SkillRecord(
        name="lit-pm",
        scope="global",
        source="fake",
        categories=("research", "literature"),
        description="Literature review",
        meta={"estimated_duration": "4-24 hours", "autonomous": True},
    ),
    SkillRecord(
        name="programming-pm", scope="global", source="fake", categories=("implementation",), description="Build it"
    ),
    SkillRecord(name="notes", scope="project", source="fake", categories=("writing",), description="Take notes"),
)
RECORDS += tuple(
    SkillRecord(name=f"extra-{i}", scope="registry", source="fake", categories=("x",), description="x")
    for i in range(4)
)


@pytest.fixture
def fake_skills(register_source):
    register_source("fake", RECORDS)


@pytest.fixture
def synthesis_file(tmp_path):
    path = tmp_path / "synthesis.yaml"
    path.write_text(SYNTHESIS)
    return str(path)


def test_json_carries_the_full_breakdown_of_the_top_five(swarm_cli, fake_skills, synthesis_file, tmp_path):
    result = swarm_cli("rank", "--synthesis", synthesis_file, "--cwd", str(tmp_path), "--format", "json")
    assert result.exit_code == 0, result.stderr
    data = result.json()
    assert data["scorer"] == "swarm-v2"
    assert (data["candidates"], data["shown"]) == (7, 5)
    workflows = data["workflows"]
    assert [w["label"] for w in workflows] == ["C", "D", "E", "F", "G"]
    assert [(w["skill"], w["score"]) for w in workflows[:3]] == [("lit-pm", 7), ("programming-pm", 2), ("notes", 1)]
    for entry in workflows:
        assert len(entry["breakdown"]) == 5
        assert entry["score"] == sum(c["points"] for c in entry["breakdown"])
    assert workflows[0]["estimated_duration"] == "4-24 hours"


def test_text_with_the_core_alone_prints_the_menu_not_the_data_tree(swarm_cli, fake_skills, synthesis_file, tmp_path):
    # Issue 13: every text layout is the core's, so the menu no longer needs swarm-handoff-formatters.
    plain = swarm_cli("rank", "--synthesis", synthesis_file, "--cwd", str(tmp_path), "--top", "2")
    assert plain.exit_code == 0
    assert plain.stdout.startswith("Hand-off targets (problem_type ")
    assert "\n(C) [" in plain.stdout
    assert "label: C" not in plain.stdout
    assert "(E)" not in plain.stdout


def test_scorer_chain_and_autonomy_reach_registry_v3(swarm_cli, fake_skills, synthesis_file, tmp_path):
    args = ["rank", "--synthesis", synthesis_file, "--cwd", str(tmp_path), "--scorer", "registry-v3", "-f", "json"]
    base = {w["skill"]: w["score"] for w in swarm_cli(*args, "--top", "9").json()["workflows"]}
    looped = swarm_cli(*args, "--top", "9", "--chain", "perspective-swarm,lit-pm", "--autonomy", "autonomous").json()
    scores = {w["skill"]: w["score"] for w in looped["workflows"]}
    assert scores["lit-pm"] == base["lit-pm"] - 30 + 10
    assert looped["request"]["chain"] == ["perspective-swarm", "lit-pm"]


def test_history_file_feeds_previous_success(swarm_cli, fake_skills, synthesis_file, tmp_path):
    history = tmp_path / "history.yaml"
    history.write_text("notes: {successes: 2, failures: 1}\n")
    args = ["rank", "--synthesis", synthesis_file, "--cwd", str(tmp_path), "--scorer", "registry-v3", "-f", "json"]
    before = {w["skill"]: w["score"] for w in swarm_cli(*args).json()["workflows"]}
    after = {w["skill"]: w["score"] for w in swarm_cli(*args, "--history", str(history)).json()["workflows"]}
    assert after["notes"] == before["notes"] + 10
    history.write_text("notes: {successes: -2}\n")
    bad = swarm_cli(*args, "--history", str(history))
    assert bad.exit_code == 1
    assert bad.json()["error"]["code"] == "HISTORY_INVALID"


def test_a_bad_synthesis_exits_1_naming_field_and_allowed_values(swarm_cli, fake_skills, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("original_prompt: q\nproblem_type: vibes\n")
    result = swarm_cli("rank", "--synthesis", str(path), "--cwd", str(tmp_path), "-f", "json")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "VALIDATION_FAILED"
    [problem] = error["problems"]
    assert problem["message"].startswith("problem_type:")
    assert "decision, creative, analytical, strategic" in problem["hint"]
    text = swarm_cli("rank", "--synthesis", str(path), "--cwd", str(tmp_path))
    assert text.exit_code == 1
    assert "problem_type" in text.stderr


def test_usage_errors_exit_2(swarm_cli, synthesis_file):
    assert swarm_cli("rank").exit_code == 2
    assert swarm_cli("rank", "--synthesis", synthesis_file, "--autonomy", "sometimes").exit_code == 2
    assert swarm_cli("rank", "--synthesis", synthesis_file, "--top", "0").exit_code == 2


def test_an_unknown_scorer_is_exit_1_listing_the_choices(swarm_cli, fake_skills, synthesis_file, tmp_path):
    result = swarm_cli("rank", "--synthesis", synthesis_file, "--cwd", str(tmp_path), "--scorer", "nope", "-f", "json")
    assert result.exit_code == 1
    assert "registry-v3" in result.json()["error"]["hint"]


def test_session_cache_is_created_in_the_seed_format(swarm_cli, fake_skills, synthesis_file, tmp_path):
    from ruamel.yaml import YAML

    session = tmp_path / "session"
    session.mkdir()
    result = swarm_cli("rank", "--synthesis", synthesis_file, "--cwd", str(tmp_path), "--session", str(session))
    assert result.exit_code == 0
    data = YAML(typ="safe").load((session / "available-workflows.yaml").read_text())
    assert data["discovery"]["ttl_minutes"] == 30
    assert data["discovery"]["timestamp"].endswith("Z")
    scores = {w["skill"]: w["relevance_score"] for w in data["workflows"]}
    assert len(scores) == 7  # every candidate, not only the menu's five
    assert scores["lit-pm"] == 7
    assert set(data["workflows"][0]) == {
        "skill",
        "scope",
        "priority",
        "categories",
        "description",
        "trigger",
        "relevance_score",
    }


def test_session_cache_round_trip_keeps_comments_and_other_entries(swarm_cli, fake_skills, synthesis_file, tmp_path):
    session = tmp_path / "session"
    session.mkdir()
    cache = session / "available-workflows.yaml"
    cache.write_text(
        "discovery:\n"
        "  timestamp: '2026-02-07T18:30:00Z'  # when Stage 1 ran\n"
        "  ttl_minutes: 30\n"
        "workflows:\n"
        "  - skill: lit-pm\n"
        "    scope: global\n"
        '    description: "kept quoted"\n'
        "    relevance_score: null\n"
        "  - skill: gone-skill  # not found any more\n"
        "    relevance_score: 4\n"
    )
    result = swarm_cli(
        "rank", "--synthesis", synthesis_file, "--cwd", str(tmp_path), "--session", str(session), "-f", "json"
    )
    assert result.exit_code == 0
    text = cache.read_text()
    assert "# when Stage 1 ran" in text
    assert "# not found any more" in text
    assert 'description: "kept quoted"' in text
    assert "relevance_score: 7" in text
    assert "relevance_score: 4" in text  # an entry that was not ranked keeps its score
    session_info = result.json()["session"]
    assert session_info["created"] is False
    assert session_info["updated"] == ["lit-pm"]
    assert len(session_info["added"]) == 6
    assert not [p for p in session.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("content", ["workflows: 3\n", "- a\n", "a: [unclosed\n"])
def test_a_broken_session_cache_is_not_overwritten(swarm_cli, fake_skills, synthesis_file, tmp_path, content):
    session = tmp_path / "s"
    session.mkdir()
    cache = session / "available-workflows.yaml"
    cache.write_text(content)
    result = swarm_cli(
        "rank", "--synthesis", synthesis_file, "--cwd", str(tmp_path), "--session", str(session), "-f", "json"
    )
    assert result.exit_code == 1
    assert result.json()["error"]["code"] == "SESSION_CACHE_INVALID"
    assert cache.read_text() == content


def test_a_missing_session_folder_is_a_structured_error(swarm_cli, fake_skills, synthesis_file, tmp_path):
    result = swarm_cli(
        "rank", "--synthesis", synthesis_file, "--cwd", str(tmp_path), "--session", str(tmp_path / "no"), "-f", "json"
    )
    assert result.exit_code == 1
    assert result.json()["error"]["code"] == "SESSION_NOT_FOUND"


def test_workflows_file_is_ranked_instead_of_discovery(swarm_cli, synthesis_file, tmp_path):
    path = tmp_path / "available-workflows.json"
    path.write_text(
        json.dumps(
            {
                "workflows": [
                    {"skill": "a", "scope": "project", "categories": ["research"]},
                    {"skill": "b", "categories": "research", "meta": {"estimated_duration": "2h"}},
                    {"skill": "c", "scope": "nowhere", "categories": ["x"]},
                    {"categories": ["x"]},
                ]
            }
        )
    )
    result = swarm_cli("rank", "--synthesis", synthesis_file, "--workflows", str(path), "-f", "json")
    assert result.exit_code == 0
    data = result.json()
    assert [(w["skill"], w["score"]) for w in data["workflows"]] == [("a", 8), ("b", 7)]
    assert data["workflows"][1]["estimated_duration"] == "2h"
    messages = [p["message"] for p in data["problems"]]
    assert len(messages) == 2
    assert "scope 'nowhere'" in messages[0]
    assert "workflows[3]" in messages[1]


def test_no_workflows_is_an_empty_menu_not_an_error(swarm_cli, synthesis_file, tmp_path):
    result = swarm_cli("rank", "--synthesis", synthesis_file, "--cwd", str(tmp_path), "-f", "json")
    assert result.exit_code == 0
    assert result.json()["workflows"] == []
