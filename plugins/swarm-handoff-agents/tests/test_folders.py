"""`.agents/skills` up to the git root and in HOME, nested `.claude/skills`, shadowing and the cache."""

from __future__ import annotations

import json
import shutil

from swarm_handoff.api import CachedSource, LocatingSource, discover, explain, make_context
from swarm_handoff_agents.folders import AgentsSkillsSource, NestedClaudeSource


def run(world, **env):
    return discover(make_context(world["cwd"], {**world["env"], **env}), world["host"])


def winners(world, **env):
    return {r.name: (r.scope.value, r.description) for r in run(world, **env).workflows}


def test_both_sources_have_both_capabilities():
    for source in (AgentsSkillsSource(), NestedClaudeSource()):
        assert isinstance(source, CachedSource)
        assert isinstance(source, LocatingSource)


def test_agents_skills_from_the_cwd_up_to_the_git_root_and_home(skill, world):
    skill(world["cwd"] / ".agents" / "skills", "here")
    skill(world["repo"] / "packages" / ".agents" / "skills", "middle")
    skill(world["repo"] / ".agents" / "skills", "top")
    skill(world["repo"].parent / ".agents" / "skills", "above-the-root")  # outside the repository
    skill(world["home"] / ".agents" / "skills", "mine")
    found = winners(world)
    assert found == {
        "here": ("agents-project", "here text"),
        "middle": ("agents-project", "middle text"),
        "top": ("agents-project", "top text"),
        "mine": ("agents-global", "mine text"),
    }


def test_without_a_repository_only_the_cwd_is_read(skill, world):
    shutil.rmtree(world["repo"] / ".git")
    skill(world["cwd"] / ".agents" / "skills", "here")
    skill(world["repo"] / ".agents" / "skills", "top")
    assert set(winners(world)) == {"here"}


def test_nested_claude_skills_between_the_cwd_and_the_root_only(skill, world):
    skill(world["repo"] / "packages" / "app" / ".claude" / "skills", "app-skill")
    skill(world["cwd"] / ".claude" / "skills", "own")  # the frontmatter source's project scope
    skill(world["repo"] / ".claude" / "skills", "root")  # the frontmatter source's git-root scope
    result = run(world)
    by_name = {r.name: (r.scope.value, r.source) for r in result.workflows}
    assert by_name == {
        "app-skill": ("claude-nested", "claude-nested"),
        "own": ("project", "frontmatter"),
        "root": ("git-root", "frontmatter"),
    }


def test_claude_skills_shadow_agents_skills_by_precedence(skill, world):
    skill(world["cwd"] / ".claude" / "skills", "review", "claude project")
    skill(world["cwd"] / ".agents" / "skills", "review", "agents project")
    skill(world["repo"] / ".claude" / "skills", "plan", "claude git root")
    skill(world["repo"] / ".agents" / "skills", "plan", "agents at the root")
    skill(world["config"] / "skills", "deploy", "claude global")
    skill(world["home"] / ".agents" / "skills", "deploy", "agents global")
    result = run(world)
    found = {r.name: (r.scope.value, r.description) for r in result.workflows}
    assert found == {
        "review": ("project", "claude project"),  # 1 beats 1.5
        "plan": ("agents-project", "agents at the root"),  # 1.5 beats git-root 2
        "deploy": ("global", "claude global"),  # 3 beats 3.5
    }
    lost = {(s.record.name, s.record.scope.value) for s in result.shadowed}
    assert lost == {("review", "agents-project"), ("plan", "git-root"), ("deploy", "agents-global")}


def test_discover_all_shows_the_scope_of_each(skill, world, swarm_cli, monkeypatch):
    # make_swarm_host (in `world`) made its host the CLI's current one.
    skill(world["cwd"] / ".claude" / "skills", "review", "claude project")
    skill(world["cwd"] / ".agents" / "skills", "review", "agents project")
    monkeypatch.chdir(world["cwd"])
    out = swarm_cli("discover", "--all", "--format", "json", env=world["env"])
    assert out.exit_code == 0, out.stderr
    data = json.loads(out.stdout)
    assert [(w["skill"], w["scope"]) for w in data["workflows"]] == [("review", "project")]
    assert [(s["skill"], s["scope"]) for s in data["shadowed"]] == [("review", "agents-project")]


def test_discover_scope_filter_takes_a_plugins_scope(skill, world, swarm_cli, monkeypatch):
    # `--scope` is checked after the sources ran, so the scopes this plugin declares are known.
    skill(world["cwd"] / ".claude" / "skills", "review", "claude project")
    skill(world["cwd"] / ".agents" / "skills", "helper", "agents project")
    monkeypatch.chdir(world["cwd"])
    out = swarm_cli("discover", "--scope", "agents-project", "--format", "json", env=world["env"])
    assert out.exit_code == 0, out.stderr
    assert [w["skill"] for w in json.loads(out.stdout)["workflows"]] == ["helper"]
    bad = swarm_cli("discover", "--scope", "agents-projct", env=world["env"])
    assert bad.exit_code == 2
    assert "agents-project" in bad.stderr  # the hint lists every declared scope


def test_a_changed_skill_invalidates_the_cache_and_an_unchanged_one_does_not(skill, world, monkeypatch):
    path = skill(world["cwd"] / ".agents" / "skills", "here", "v1")
    runs = []
    real = AgentsSkillsSource.discover
    monkeypatch.setattr(AgentsSkillsSource, "discover", lambda self, c: runs.append(1) or real(self, c))
    assert winners(world)["here"][1] == "v1"
    assert winners(world)["here"][1] == "v1"
    assert len(runs) == 1  # answered from the store
    path.write_text(path.read_text().replace("v1", "v2 longer"))
    assert winners(world)["here"][1] == "v2 longer"
    assert len(runs) == 2
    skill(world["repo"] / ".agents" / "skills", "new")  # a new folder farther up is seen too
    assert "new" in winners(world)


def test_switched_off_all_or_by_name(skill, world):
    skill(world["cwd"] / ".agents" / "skills", "here")
    skill(world["repo"] / "packages" / ".claude" / "skills", "nested")
    assert set(winners(world)) == {"here", "nested"}
    assert set(winners(world, SWARM_HANDOFF_AGENTS_SOURCES="off")) == set()
    assert set(winners(world, SWARM_HANDOFF_AGENTS_SOURCES="claude-nested")) == {"nested"}
    assert set(winners(world, SWARM_HANDOFF_AGENTS_SOURCES="agents-skills,skill-roots")) == {"here"}


def test_why_lists_the_agents_folders(skill, world):
    skill(world["repo"] / ".agents" / "skills", "top")
    context = make_context(world["cwd"], world["env"])
    text = str(explain("top", context, world["host"]).to_data())
    assert str(world["repo"] / ".agents" / "skills" / "top" / "SKILL.md") in text
    assert str(world["home"] / ".agents" / "skills" / "top" / "SKILL.md") in text


def test_a_git_file_marks_the_root_and_home_inside_the_repository_is_read_once(skill, world):
    shutil.rmtree(world["repo"] / ".git")
    (world["repo"] / ".git").write_text("gitdir: /elsewhere\n")  # a worktree's or submodule's marker
    skill(world["repo"] / ".agents" / "skills", "top")
    skill(world["repo"].parent / ".agents" / "skills", "above")
    env = {"HOME": str(world["repo"]), "GIT_CEILING_DIRECTORIES": ""}
    result = run(world, **env)
    assert [(r.name, r.scope.value) for r in result.workflows] == [("top", "agents-project")]
    assert result.shadowed == ()  # the home folder is the root: read once, at the more local scope
