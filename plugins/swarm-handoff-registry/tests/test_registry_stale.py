"""Issue 17, point 6: the registry the seed describes: user-level skills (and packs on request), stale entries."""

from __future__ import annotations

import sys

import pytest
from ruamel.yaml import YAML

from swarm_handoff.api import Scope, SkillRecord, discover, make_context
from swarm_handoff_registry.commands import synced_records
from swarm_handoff_registry.registry import REGISTRY_FILE, entry_record
from swarm_handoff_registry.sync import sync


@pytest.fixture
def world(registry_world, monkeypatch):
    project = registry_world["tmp"] / "project"
    (project / ".claude" / "skills").mkdir(parents=True)
    monkeypatch.chdir(project)
    return {**registry_world, "project": project}


def add_skill(folder, name, description="Local text"):
    (folder / name).mkdir(parents=True)
    path = folder / name / "SKILL.md"
    path.write_text(f"---\nname: {name}\ndescription: {description}\nhandoff: {{accepts_from: ['*']}}\n---\n")
    return path


def entries(config):
    return {e["name"]: e for e in YAML(typ="safe").load((config / REGISTRY_FILE).read_text())["workflows"]}


def test_sync_writes_user_level_skills_never_a_projects(world, swarm_cli):
    add_skill(world["config"] / "skills", "mine")
    add_skill(world["config"] / "skills", "both", "the user-level one")
    add_skill(world["project"] / ".claude" / "skills", "project-only")
    add_skill(world["project"] / ".claude" / "skills", "both", "the project's")
    out = swarm_cli("registry", "sync", "--format", "json")
    assert out.exit_code == 0, out.stdout + out.stderr
    written = entries(world["config"])
    assert set(written) == {"mine", "both"}
    assert written["both"]["skill_path"] == str(world["config"] / "skills" / "both" / "SKILL.md")


def test_packs_are_synced_on_request_with_their_environment():
    installed = SkillRecord(name="packed", scope=Scope.INSTALLED, source="packs", path="/env/pack/SKILL.md")
    mine = SkillRecord(name="mine", scope=Scope.GLOBAL, source="fm", path="/home/u/.claude/skills/mine/SKILL.md")

    class Result:
        workflows = (installed, mine)
        shadowed = ()

    assert [r.name for r in synced_records(Result(), packs=False)] == ["mine"]
    assert [r.name for r in synced_records(Result(), packs=True)] == ["packed", "mine"]


def test_a_pack_entry_of_another_environment_is_not_a_target_here(tmp_path):
    path = tmp_path / REGISTRY_FILE
    (tmp_path / "SKILL.md").write_text("---\nname: packed\n---\n")  # the skill is here: only the environment differs
    record = SkillRecord(
        name="packed",
        scope=Scope.INSTALLED,
        source="packs",
        path=str(tmp_path / "SKILL.md"),
        description="A packed skill",
        accepts_from=("*",),
    )
    sync(path, (record,))
    [entry] = YAML(typ="safe").load(path.read_text())["workflows"]
    assert entry["environment"] == sys.prefix
    assert entry_record(entry, path).eligible
    elsewhere = entry_record({**entry, "environment": "/other/venv"}, path)
    assert not elsewhere.eligible
    assert elsewhere.problems[-1].code == "REGISTRY_OTHER_ENVIRONMENT"


def test_a_gone_skill_is_marked_stale_kept_shown_never_a_target_and_pruned(world, swarm_cli):
    skill = add_skill(world["config"] / "skills", "fleeting")
    assert swarm_cli("registry", "sync").exit_code == 0
    text = (world["config"] / REGISTRY_FILE).read_text()
    (world["config"] / REGISTRY_FILE).write_text(text.replace("name: fleeting", "name: fleeting\n    owner: me"))
    skill.unlink()
    skill.parent.rmdir()
    report = swarm_cli("registry", "sync", "--format", "json").json()
    assert report["stale"] == ["fleeting"]
    entry = entries(world["config"])["fleeting"]
    assert entry["stale"] is True
    assert entry["owner"] == "me"  # the manual edit is kept
    assert "is gone" in entry["stale_reason"]
    assert "not a target" in swarm_cli("registry", "show").stdout
    result = discover(make_context(world["project"]))
    assert result.named("fleeting") is None
    tmp = world["tmp"]
    args = ["handoff", "fleeting", "--synthesis", str(tmp / "synthesis.yaml"), "--session", str(tmp / "session")]
    error = swarm_cli(*args, "--format", "json").json()["error"]
    assert error["code"] == "TARGET_NOT_FOUND"
    assert "stale" in error["details"]["reason"]
    pruned = swarm_cli("registry", "prune", "--format", "json").json()
    assert pruned["removed"] == ["fleeting"]
    assert "fleeting" not in entries(world["config"])
    assert swarm_cli("registry", "prune", "--format", "json").json()["removed"] == []


def test_a_skill_that_comes_back_is_no_longer_stale(world, swarm_cli):
    skill = add_skill(world["config"] / "skills", "returning")
    swarm_cli("registry", "sync")
    text = skill.read_text()
    skill.unlink()
    swarm_cli("registry", "sync")
    assert entries(world["config"])["returning"]["stale"] is True
    skill.write_text(text)
    report = swarm_cli("registry", "sync", "--format", "json").json()
    assert report["updated"] == ["returning"]
    assert "stale" not in entries(world["config"])["returning"]


def test_handoff_verifies_a_registry_target_still_exists(world, swarm_cli):
    gone = world["tmp"] / "gone" / "SKILL.md"
    (world["config"]).mkdir(parents=True, exist_ok=True)
    (world["config"] / REGISTRY_FILE).write_text(
        f"workflows:\n  - name: ghost\n    skill_path: {gone}\n    handoff: {{accepts_from: ['*']}}\n"
    )
    tmp = world["tmp"]
    args = ["handoff", "ghost", "--synthesis", str(tmp / "synthesis.yaml"), "--session", str(tmp / "session")]
    error = swarm_cli(*args, "--format", "json").json()["error"]
    assert error["code"] == "TARGET_NOT_FOUND"
    assert str(gone) in error["details"]["reason"]


def test_an_entry_whose_skill_is_gone_is_stale_in_discover_before_any_sync(world, swarm_cli, monkeypatch):
    """Issue 26 point 7: `discover` offers no target `handoff` refuses; it says why, as `registry show` does."""
    monkeypatch.delenv("SWARM_HANDOFF_NO_CACHE")  # the cached answer must notice the folder going too
    skill = add_skill(world["tmp"] / "elsewhere", "ghost")
    (world["config"]).mkdir(parents=True, exist_ok=True)
    (world["config"] / REGISTRY_FILE).write_text(
        f"workflows:\n  - name: ghost\n    skill_path: {skill}\n    handoff: {{accepts_from: ['*']}}\n"
    )
    listed = swarm_cli("discover", "--format", "json").json()
    assert "ghost" in [w["skill"] for w in listed["workflows"]]
    skill.unlink()
    skill.parent.rmdir()
    listed = swarm_cli("discover", "--all", "--format", "json").json()
    assert "ghost" not in [w["skill"] for w in listed["workflows"]]
    [ghost] = [s for s in listed["ineligible"] if s["skill"] == "ghost"]
    assert ghost["problems"][-1]["code"] == "REGISTRY_ENTRY_STALE"
    assert str(skill) in ghost["problems"][-1]["message"]
    assert "stale" in swarm_cli("discover", "--all").stdout
    assert "not a target" in swarm_cli("registry", "show").stdout
