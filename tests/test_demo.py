"""`swarm-handoff demo`: the main job over the installed example packs, stage by stage."""

from __future__ import annotations

import os
from pathlib import Path

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


@pytest.fixture
def user_folders(tmp_path, monkeypatch):
    """A user's real config (with one recorded hand-off), cache and temporary folders, all watched."""
    import tempfile

    from swarm_handoff.history import db_path, open_history

    config, cache, scratch = tmp_path / "config", tmp_path / "user-cache", tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    session = tmp_path / "earlier"
    session.mkdir()
    with open_history(config) as history:
        history.record(session / "handoff-payload.yaml", {"handoff": {"target": {"skill": "x"}}}, status="written")
    return {"history": db_path(config), "cache": cache, "tmp": scratch}


def _history_rows(path):
    import sqlite3

    with sqlite3.connect(path) as db:
        return db.execute("SELECT COUNT(*) FROM handoffs").fetchone()[0]


def test_the_demo_leaves_no_trace(demo_host, user_folders, swarm_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(user_folders["history"].parents[1]))  # demo_host unset it
    before = _history_rows(user_folders["history"])
    result = swarm_cli("demo", "--cwd", str(tmp_path), "--format", "json")
    assert result.exit_code == 0, result.stderr
    data = result.json()
    assert data["session_kept"] is False
    assert not Path(data["session"]).exists()
    assert _history_rows(user_folders["history"]) == before
    assert list(user_folders["tmp"].iterdir()) == []  # no swarm-session-*, no sandbox
    assert not (user_folders["cache"] / "swarm-handoff" / "results").exists()
    assert os.environ["CLAUDE_CONFIG_DIR"] == str(user_folders["history"].parents[1])  # restored


def test_demo_keep_keeps_only_the_session(demo_host, user_folders, swarm_cli, tmp_path):
    result = swarm_cli("demo", "--keep", "--cwd", str(tmp_path), "--format", "json")
    assert result.exit_code == 0, result.stderr
    data = result.json()
    session = Path(data["session"])
    assert data["session_kept"] is True
    assert (session / "handoff-payload.yaml").is_file()
    assert [p.name for p in user_folders["tmp"].iterdir()] == [session.name]
    assert session.name.startswith("swarm-session-")


def test_demo_text_explains_the_menu_letters_and_where_the_session_went(demo_host, swarm_cli, tmp_path):
    result = swarm_cli("demo", "--cwd", str(tmp_path))
    assert result.exit_code == 0, result.stderr
    assert "A) accept and B) refine" in result.stdout
    assert "the session folder was removed; run again with --keep" in result.stdout


def test_next_steps_use_the_venv_path_when_the_command_is_not_on_path(tmp_path, monkeypatch):
    from swarm_handoff.demo import command_name

    script = tmp_path / ".venv" / "bin" / "swarm-handoff"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", "/nonexistent")
    assert command_name(str(script), cwd=tmp_path) == ".venv/bin/swarm-handoff"
    assert command_name(".venv/bin/swarm-handoff") == ".venv/bin/swarm-handoff"
    assert command_name(str(script), cwd=tmp_path / "elsewhere") == str(script)
    monkeypatch.setenv("PATH", str(script.parent))  # activated: the bare name finds this very script
    assert command_name(str(script), cwd=tmp_path) == "swarm-handoff"
    assert command_name("/usr/bin/python3") == "swarm-handoff"  # `python -m`, tests: nothing to spell out


def test_the_printed_next_step_runs_as_written(demo_host, swarm_cli, tmp_path, monkeypatch):
    import swarm_handoff.demo as demo

    monkeypatch.setattr(demo, "command_name", lambda: ".venv/bin/swarm-handoff")
    result = swarm_cli("demo", "--cwd", str(tmp_path))
    assert result.exit_code == 0, result.stderr
    assert "next: .venv/bin/swarm-handoff workflow step evidence-review grade" in result.stdout


@pytest.mark.parametrize(
    "path", [None, "", "{bin}", "{bin}:{bin}", "/nonexistent:{bin}", "{dir}:{bin}", ":", "/nonexistent"]
)
def test_the_name_lookup_finds_what_shutil_which_finds(tmp_path, monkeypatch, path):
    import shutil

    from swarm_handoff.command_name import _which

    script = tmp_path / "bin" / "swarm-handoff"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    (tmp_path / "dir" / "swarm-handoff").mkdir(parents=True)  # a folder of that name is not the command
    (tmp_path / "noexec").mkdir()
    (tmp_path / "noexec" / "swarm-handoff").write_text("")  # nor is a file that cannot be run
    monkeypatch.chdir(tmp_path / "noexec")
    if path is None:
        monkeypatch.delenv("PATH", raising=False)
    else:
        monkeypatch.setenv("PATH", path.format(bin=script.parent, dir=tmp_path / "dir"))
    assert _which("swarm-handoff") == shutil.which("swarm-handoff")


@pytest.mark.skipif(os.name != "posix", reason="symbolic links")
def test_demo_dir_never_writes_through_a_dangling_link(tmp_path):
    """`demo --dir` with links planted in the session: nothing is created at their targets (review, #8)."""
    from swarm_handoff.demo import SYNTHESIS_FILE, prepare_session

    session = tmp_path / "session"
    session.mkdir()
    victim = tmp_path / "victim"
    (session / SYNTHESIS_FILE).symlink_to(victim / "synthesis.yaml")
    victim.mkdir()
    (session / "perspectives").symlink_to(tmp_path / "nowhere", target_is_directory=True)
    prepare_session(session)
    assert list(victim.iterdir()) == []  # the link's target was never created
    assert not (tmp_path / "nowhere").exists()
    assert (session / SYNTHESIS_FILE).is_symlink()
