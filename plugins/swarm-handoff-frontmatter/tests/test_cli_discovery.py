"""`discover`, `why` and `lint` through the CLI, with the frontmatter source loaded."""

from __future__ import annotations

import pytest

from swarm_handoff.api import NO_SKILLS_MESSAGE
from swarm_handoff.testing import SkillTree


@pytest.fixture
def trees(tmp_path, make_swarm_host):
    make_swarm_host(["frontmatter"])
    home = SkillTree(tmp_path / "home")
    project = SkillTree(tmp_path / "project")
    home.add_handoff("shared", categories=["research"])
    home.add_handoff("analyst", categories=["analysis"])
    home.add("plain")  # no handoff block
    project.add_handoff("shared", categories=["research", "implementation"])
    project.add("broken", raw="---\nname: broken\ndescription: Use when: it breaks\n---\n")
    env = {"HOME": str(home.root), "CLAUDE_CONFIG_DIR": "", "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    return home, project, env


def test_discover_lists_eligible_workflows_in_priority_order(trees, swarm_cli):
    _home, project, env = trees
    out = swarm_cli("discover", "--cwd", str(project.root), "--format", "json", env=env)
    assert out.exit_code == 0, out.stderr
    data = out.json()
    assert [(w["skill"], w["scope"]) for w in data["workflows"]] == [("shared", "project"), ("analyst", "global")]
    assert data["scanned"] == 5
    assert "ineligible" not in data


def test_discover_all_shows_skipped_with_codes_and_shadowed_with_winner(trees, swarm_cli):
    _home, project, env = trees
    data = swarm_cli("discover", "--cwd", str(project.root), "--all", "-f", "json", env=env).json()
    skipped = {r["skill"]: [p["code"] for p in r["problems"]] for r in data["ineligible"]}
    assert skipped == {"broken": ["SKILL_UNQUOTED_COLON"], "plain": ["HANDOFF_ABSENT"]}
    [shadowed] = data["shadowed"]
    assert shadowed["scope"] == "global"
    assert shadowed["shadowed_by"] == str(project.skills_dir / "shared" / "SKILL.md")
    text = swarm_cli("discover", "--cwd", str(project.root), "--all", env=env).stdout
    assert "skipped:" in text
    assert "SKILL_UNQUOTED_COLON" in text
    assert "shadowed:" in text


def test_discover_filters_by_category_and_scope(trees, swarm_cli):
    _home, project, env = trees
    base = ("discover", "--cwd", str(project.root), "-f", "json")
    by_category = swarm_cli(*base, "--category", "analysis", env=env).json()
    assert [w["skill"] for w in by_category["workflows"]] == ["analyst"]
    by_scope = swarm_cli(*base, "--scope", "project", env=env).json()
    assert [w["skill"] for w in by_scope["workflows"]] == ["shared"]
    bad = swarm_cli(*base, "--scope", "nowhere", env=env)
    assert bad.exit_code == 2


def test_ec01_messages_distinguish_nothing_installed_from_none_accepting(tmp_path, make_swarm_host, swarm_cli):
    make_swarm_host(["frontmatter"])
    env = {"HOME": str(tmp_path / "home"), "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    empty = swarm_cli("discover", "--cwd", str(tmp_path), "-f", "json", env=env).json()
    assert empty["message"] == NO_SKILLS_MESSAGE
    tree = SkillTree(tmp_path)
    tree.add("one")
    tree.add("two")
    none = swarm_cli("discover", "--cwd", str(tmp_path), env=env)
    assert none.exit_code == 0
    assert none.stdout.startswith("2 skills found, none accept handoffs.\n")
    assert "add `handoff:` metadata to SKILL.md" in none.stdout


def test_why_walks_every_location(trees, swarm_cli):
    _home, project, env = trees
    data = swarm_cli("why", "shared", "--cwd", str(project.root), "-f", "json", env=env).json()
    statuses = [(s["scope"], s["status"]) for s in data["looked"]]
    assert statuses[0] == ("project", "chosen")
    assert statuses[1][0] == "git-root"
    assert statuses[1][1].startswith("skipped")
    assert statuses[2] == ("global", f"shadowed by {project.skills_dir / 'shared' / 'SKILL.md'}")
    assert statuses[3] == ("installed", "not present")
    broken = swarm_cli("why", "broken", "--cwd", str(project.root), "-f", "json", env=env).json()
    assert broken["looked"][0]["status"] == "invalid YAML at 3:22"
    assert "SKILL_UNQUOTED_COLON" in broken["looked"][0]["detail"]
    plain = swarm_cli("why", "plain", "--cwd", str(project.root), env=env).stdout
    assert "[global]" in plain
    assert "not eligible" in plain
    missing = swarm_cli("why", "nothing", "--cwd", str(project.root), "-f", "json", env=env).json()
    assert missing["verdict"] == "not found in any discovery location"


def test_why_names_a_missing_field(tmp_path, make_swarm_host, swarm_cli):
    make_swarm_host(["frontmatter"])
    tree = SkillTree(tmp_path)
    tree.add("nocat", {"handoff": {"accepts_handoff": True}})
    env = {"HOME": str(tmp_path / "home"), "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    data = swarm_cli("why", "nocat", "--cwd", str(tmp_path), "-f", "json", env=env).json()
    assert data["looked"][0]["status"] == "missing field"
    assert "HANDOFF_NO_CATEGORIES" in data["looked"][0]["detail"]


def test_discover_with_a_session_writes_and_reuses_the_session_file(trees, swarm_cli, tmp_path):
    _home, project, env = trees
    session = tmp_path / "session"
    base = ("discover", "--cwd", str(project.root), "--session", str(session), "-f", "json")
    first = swarm_cli(*base, env=env).json()
    path = session / "available-workflows.yaml"
    text = path.read_text()
    assert text.startswith("discovery:\n  timestamp: ")
    assert "relevance_score: null" in text
    path.write_text(text.replace("relevance_score: null", "relevance_score: 5", 1))
    again = swarm_cli(*base, env=env).json()
    assert [w["skill"] for w in again["workflows"]] == [w["skill"] for w in first["workflows"]]
    assert "relevance_score: 5" in path.read_text()  # a valid file is not rewritten
    project.add_handoff("fresh")
    changed = swarm_cli(*base, env=env).json()
    assert "fresh" in [w["skill"] for w in changed["workflows"]]
    assert "relevance_score: 5" not in path.read_text()
    swarm_cli(*base, "--refresh", env=env)
    with_all = swarm_cli(*base, "--all", env=env).json()
    assert {r["skill"] for r in with_all["ineligible"]} == {"broken", "plain"}


def test_a_missing_cwd_is_a_usage_error(tmp_path, make_swarm_host, swarm_cli):
    make_swarm_host(["frontmatter"])
    out = swarm_cli("discover", "--cwd", str(tmp_path / "nope"), "-f", "json")
    assert out.exit_code == 2
    assert out.json()["error"]["code"] == "USAGE"
    assert swarm_cli("why", "x", "--cwd", str(tmp_path / "nope")).exit_code == 2


def test_why_finds_a_skill_by_its_frontmatter_name(tmp_path, make_swarm_host, swarm_cli):
    # issue 18: 120 real skills have a frontmatter name that differs from their folder.
    make_swarm_host(["frontmatter"])
    tree = SkillTree(tmp_path)
    path = tree.add_handoff("folder-name")
    path.write_text(path.read_text(encoding="utf-8").replace("name: folder-name", "name: pretty-name"))
    env = {"HOME": str(tmp_path / "home"), "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    data = swarm_cli("why", "pretty-name", "--cwd", str(tmp_path), "-f", "json", env=env).json()
    assert "frontmatter name of folder 'folder-name'" in data["verdict"]
    assert "chosen" in data["verdict"]
    assert data["looked"][0]["status"] == "chosen"


def test_why_says_when_a_name_is_one_skills_folder_and_another_skills_frontmatter_name(
    tmp_path, make_swarm_host, swarm_cli
):
    # `why foo` with a folder `foo` and a folder `bar` whose frontmatter says `name: foo`: two skills.
    make_swarm_host(["frontmatter"])
    tree = SkillTree(tmp_path)
    tree.add_handoff("foo")
    path = tree.add_handoff("bar")
    path.write_text(path.read_text(encoding="utf-8").replace("name: bar", "name: foo"))
    env = {"HOME": str(tmp_path / "home"), "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    data = swarm_cli("why", "foo", "--cwd", str(tmp_path), "-f", "json", env=env).json()
    assert data["skill"] == "foo"
    assert data["verdict"].startswith("chosen from project")
    assert "also the frontmatter name of folder 'bar', a different skill" in data["verdict"]
    assert data["frontmatter_name_of"] == ["bar"]
    assert [step["where"] for step in data["looked"] if step["status"] == "chosen"] == [
        str(tree.root / ".claude/skills/foo/SKILL.md")
    ]
    # and by the other skill's folder name, its own report
    bar = swarm_cli("why", "bar", "--cwd", str(tmp_path), "-f", "json", env=env).json()
    assert bar["verdict"].startswith("chosen from project")
    assert "frontmatter_name_of" not in bar


def test_why_by_folder_name_and_by_frontmatter_name_give_the_same_skill(tmp_path, make_swarm_host, swarm_cli):
    make_swarm_host(["frontmatter"])
    tree = SkillTree(tmp_path)
    path = tree.add_handoff("folder-name")
    path.write_text(path.read_text(encoding="utf-8").replace("name: folder-name", "name: pretty-name"))
    env = {"HOME": str(tmp_path / "home"), "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    by_folder = swarm_cli("why", "folder-name", "--cwd", str(tmp_path), "-f", "json", env=env).json()
    by_name = swarm_cli("why", "pretty-name", "--cwd", str(tmp_path), "-f", "json", env=env).json()
    assert by_folder["looked"] == by_name["looked"]
    assert by_name["frontmatter_name_of"] == ["folder-name"]


def test_discover_and_why_report_a_name_of_another_type_as_a_wrong_type(tmp_path, make_swarm_host, swarm_cli):
    make_swarm_host(["frontmatter"])
    tree = SkillTree(tmp_path)
    tree.add("listed", raw="---\nname: [a, b]\ndescription: d\n---\n")
    env = {"HOME": str(tmp_path / "home"), "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    data = swarm_cli("discover", "--all", "--cwd", str(tmp_path), "-f", "json", env=env).json()
    [record] = [r for r in data["ineligible"] if r["skill"] == "listed"]
    [problem] = [p for p in record["problems"] if p["code"] == "SPEC_NAME_TYPE"]
    assert "not a list" in problem["message"]
    assert 'quote it: name: "listed"' in problem["hint"]
    why = swarm_cli("why", "listed", "--cwd", str(tmp_path), "-f", "json", env=env).json()
    assert any("SPEC_NAME_TYPE: name must be text, not a list" in w for w in why["looked"][0]["warnings"])
    text = swarm_cli("why", "listed", "--cwd", str(tmp_path), env=env).stdout
    assert "warning SPEC_NAME_TYPE" in text
