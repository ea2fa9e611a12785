"""`swarm-handoff demo`: the main job over the installed example packs, stage by stage."""

from __future__ import annotations

import pytest

DEFAULT_PLUGINS = ("frontmatter", "registry", "formatters", "qr")
PACKS = ("evidence-review", "think-through", "implement-change")


@pytest.fixture
def demo_host(make_swarm_host, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return make_swarm_host(DEFAULT_PLUGINS, packs=PACKS)


def test_demo_discovers_ranks_hands_off_verifies_and_runs_the_first_step(demo_host, swarm_cli, tmp_path):
    session = tmp_path / "session"
    result = swarm_cli("demo", "--dir", str(session), "--cwd", str(tmp_path), "--format", "json")
    assert result.exit_code == 0, result.stderr
    data = result.json()
    assert {w["skill"] for w in data["discovery"]["workflows"]} == set(PACKS)
    assert data["ranking"]["workflows"][0]["skill"] == data["handoff"]["target"] == "evidence-review"
    assert data["handoff"]["payload_path"] == str(session / "handoff-payload.yaml")
    assert data["verification"]["ok"] is True
    assert data["first_step"]["step"] == "questions"
    assert (session / "available-workflows.yaml").is_file()
    assert len(list((session / "perspectives").iterdir())) == 3


def test_demo_text_tells_each_stage(demo_host, swarm_cli, tmp_path):
    result = swarm_cli("demo", "--dir", str(tmp_path / "s"), "--cwd", str(tmp_path))
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    for marker in (
        "1. discovered 3 skill(s)",
        "2. ranked",
        "3. handed off to evidence-review",
        "4. verified",
        "/evidence-review --handoff ",
        "5. first step of the evidence-review workflow",
    ):
        assert marker in text


def test_demo_keeps_a_synthesis_the_user_put_in_the_session(demo_host, swarm_cli, tmp_path):
    session = tmp_path / "mine"
    session.mkdir()
    (session / "synthesis.yaml").write_text("original_prompt: Pick a database\nproblem_type: creative\n")
    result = swarm_cli("demo", "--dir", str(session), "--cwd", str(tmp_path), "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert (session / "synthesis.yaml").read_text().startswith("original_prompt: Pick a database")


def test_demo_with_no_skill_installed_is_a_structured_error(make_swarm_host, swarm_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    make_swarm_host(DEFAULT_PLUGINS, packs=())
    result = swarm_cli("demo", "--dir", str(tmp_path / "s"), "--cwd", str(tmp_path), "--format", "json")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "TARGET_NOT_FOUND"
    assert "No skills installed" in error["message"]


def test_a_top_candidate_without_a_workflow_is_said_so(demo_host, swarm_cli, skill_tree, tmp_path):
    # A project skill in the research categories outranks the installed one (+1 for project scope).
    skill_tree.add_handoff("local-review", categories=("research", "analysis"))
    result = swarm_cli("demo", "--dir", str(tmp_path / "s"), "--cwd", str(skill_tree.root), "--format", "json")
    assert result.exit_code == 0, result.stderr
    data = result.json()
    assert data["handoff"]["target"] == "local-review"
    assert data["first_step"] is None
    assert data["workflow_note"] == "local-review defines no workflow; its SKILL.md instructions apply"
