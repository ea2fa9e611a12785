"""The folder scan: project > git root > global, git failures, hidden folders, folders reached twice."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from swarm_handoff.api import Scope, discover, make_context
from swarm_handoff.testing import SkillTree
from swarm_handoff_frontmatter import scan
from swarm_handoff_frontmatter.scan import FrontmatterSource, git_root

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(cwd, *args):
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@t"
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def context(cwd, home):
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "")}
    return make_context(cwd, env)


@pytest.fixture
def layout(tmp_path):
    """A home with global skills and a repository with a sub-folder the user works in."""
    home = SkillTree(tmp_path / "home")
    repo = SkillTree(tmp_path / "repo")
    work = SkillTree(tmp_path / "repo" / "pkg")
    for tree in (repo, work):
        tree.skills_dir.mkdir(parents=True)
    return home, repo, work


@needs_git
def test_project_beats_git_root_beats_global_and_losers_are_kept(layout, make_swarm_host):
    host = make_swarm_host(["frontmatter"])
    home, repo, work = layout
    git(repo.root, "init", "-q")
    home.add_handoff("shared")
    home.add_handoff("only-global")
    repo.add_handoff("shared")
    repo.add_handoff("only-repo")
    work.add_handoff("shared")
    result = discover(context(work.root, home.root), host)
    scopes = {r.name: r.scope for r in result.workflows}
    assert scopes == {"shared": Scope.PROJECT, "only-repo": Scope.GIT_ROOT, "only-global": Scope.GLOBAL}
    assert [r.name for r in result.workflows] == ["shared", "only-repo", "only-global"]
    assert sorted(s.record.scope.value for s in result.shadowed) == ["git-root", "global"]
    assert all(s.winner.scope is Scope.PROJECT for s in result.shadowed)


@needs_git
def test_inside_a_submodule_the_superproject_root_is_used(tmp_path):
    sub = tmp_path / "subsrc"
    sub.mkdir()
    git(sub, "init", "-q")
    git(sub, "commit", "-q", "--allow-empty", "-m", "x")
    sup = tmp_path / "sup"
    sup.mkdir()
    git(sup, "init", "-q")
    git(sup, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "sm")
    root, note = git_root(sup / "sm", dict(os.environ))
    assert root is not None
    assert root.resolve() == sup.resolve()
    assert "submodule" in note


def test_no_git_and_not_a_repository_skip_the_git_root_silently(tmp_path):
    assert git_root(tmp_path, {"PATH": str(tmp_path / "empty")})[0] is None
    if shutil.which("git"):
        root, note = git_root(tmp_path, {"PATH": os.environ["PATH"], "GIT_CEILING_DIRECTORIES": str(tmp_path.parent)})
        assert root is None
        assert "not in a git repository" in note


def test_the_root_is_found_without_starting_git_so_nothing_can_time_out(tmp_path, monkeypatch):
    # The scan asked `git rev-parse` (5 s time-out, GIT_TIMEOUT); it now walks up as every source does.
    tree = SkillTree(tmp_path)
    tree.add_handoff("a")

    def refused(*args, **kwargs):
        raise AssertionError(f"git started: {args}")

    monkeypatch.setattr(subprocess, "run", refused)
    monkeypatch.setattr(subprocess, "Popen", refused)
    result = FrontmatterSource().discover(context(tmp_path, tmp_path / "home"))
    assert [r.name for r in result.records] == ["a"]
    assert result.problems == ()


def test_hidden_folders_are_skipped_and_a_folder_without_skill_md_is_an_info_record(tmp_path):
    tree = SkillTree(tmp_path)
    tree.add_handoff(".hidden")
    tree.add_handoff("ok")
    (tree.skills_dir / "empty").mkdir()
    (tree.skills_dir / "README.md").write_text("not a skill")
    result = scan.scan_folder(tree.skills_dir)
    assert [(r.name, r.eligible) for r in result.records] == [("empty", False), ("ok", True)]
    assert [p.severity.value for p in result.records[0].problems] == ["info"]
    assert result.scanned == 1


def test_home_as_working_directory_is_scanned_once_at_project_scope(tmp_path):
    home = SkillTree(tmp_path)
    home.add_handoff("mine")
    result = FrontmatterSource().discover(context(tmp_path, tmp_path))
    assert [(r.name, r.scope) for r in result.records] == [("mine", Scope.PROJECT)]
    assert result.scanned == 1


def test_a_symlinked_skill_folder_is_read_once_at_its_most_local_scope(tmp_path):
    home = SkillTree(tmp_path / "home")
    project = SkillTree(tmp_path / "project")
    target = home.add_handoff("linked").parent
    project.skills_dir.mkdir(parents=True)
    os.symlink(target, project.skills_dir / "linked")
    result = FrontmatterSource().discover(context(project.root, home.root))
    assert [(r.name, r.scope) for r in result.records] == [("linked", Scope.PROJECT)]


def test_broken_links_loops_and_skill_md_folders_are_records_with_codes(tmp_path):
    tree = SkillTree(tmp_path)
    tree.skills_dir.mkdir(parents=True)
    os.symlink(tmp_path / "missing", tree.skills_dir / "dangling-folder")
    (tree.skills_dir / "dangling-file").mkdir()
    os.symlink(tmp_path / "missing.md", tree.skills_dir / "dangling-file" / "SKILL.md")
    (tree.skills_dir / "loop").mkdir()
    os.symlink("SKILL.md", tree.skills_dir / "loop" / "SKILL.md")
    (tree.skills_dir / "folder" / "SKILL.md").mkdir(parents=True)
    tree.add("bad-yaml", raw="---\ndescription: Use when: a colon\n---\n")
    tree.add_handoff("good")
    result = scan.scan_folder(tree.skills_dir)
    found = {r.name: [p.code for p in r.problems] for r in result.records}
    assert found == {
        "bad-yaml": ["SKILL_UNQUOTED_COLON"],
        "dangling-file": ["SKILL_BROKEN_SYMLINK"],
        "dangling-folder": ["SKILL_BROKEN_SYMLINK"],
        "folder": ["SKILL_NOT_A_FILE"],
        "good": [],
        "loop": ["SKILL_SYMLINK_LOOP"],
    }
    assert result.scanned == 6


def test_crlf_and_bom_skills_are_as_eligible_as_plain_ones(tmp_path):
    tree = SkillTree(tmp_path)
    text = (
        "---\nname: s\nhandoff:\n  accepts_handoff: true\n"
        "  handoff_categories: [research]\n  handoff_description: d\n---\n"
    )
    tree.add("plain", raw=text)
    tree.add("windows", raw=b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    records = scan.scan_folder(tree.skills_dir).records
    assert [r.eligible for r in records] == [True, True]
    assert records[0].categories == records[1].categories == ("research",)


def test_the_plugin_registers_the_frontmatter_source(make_swarm_host, tmp_path):
    host = make_swarm_host(["frontmatter"])
    tree = SkillTree(tmp_path)
    tree.add_handoff("x")
    result = discover(context(tmp_path, tmp_path / "nohome"), host)
    assert [(r.name, r.source) for r in result.workflows] == [("x", "frontmatter")]


def test_an_unreadable_skills_folder_is_a_warning(tmp_path, monkeypatch):
    real = os.open  # the walker opens the folder once, then lists it through that descriptor

    def denied(path, *args, **kwargs):
        if isinstance(path, (str, os.PathLike)) and Path(path).name == "skills":
            raise PermissionError(13, "Permission denied")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(scan.os, "open", denied)
    (tmp_path / ".claude" / "skills").mkdir(parents=True)
    result = scan.scan_folder(tmp_path / ".claude" / "skills")
    assert [p.code for p in result.problems] == [scan.SKILLS_DIR_UNREADABLE]


def test_why_outside_a_repository_names_no_template_placeholder(tmp_path, swarm_cli):
    # `why` outside any git repository once printed a literal "{git_root}" as the place looked at.
    env = {"GIT_CEILING_DIRECTORIES": str(tmp_path.parent), "HOME": str(tmp_path / "home")}
    result = swarm_cli("why", "anything", "--cwd", str(tmp_path), "--format", "json", env=env)
    git_steps = [s for s in result.json()["looked"] if s["scope"] == "git-root"]
    assert git_steps
    assert all("{" not in step["where"] for step in git_steps)


def test_why_of_a_name_found_nowhere_fails_and_suggests_close_names(tmp_path, swarm_cli):
    tree = SkillTree(tmp_path)
    tree.add_handoff("code-review")
    env = {"GIT_CEILING_DIRECTORIES": str(tmp_path.parent), "HOME": str(tmp_path / "home")}
    missed = swarm_cli("why", "code-reveiw", "--cwd", str(tree.root), env=env)
    assert missed.exit_code == 1
    assert "not found in any discovery location" in missed.stdout  # the report still says where it looked
    assert missed.stderr.startswith("did you mean: code-review")
    found = swarm_cli("why", "code-review", "--cwd", str(tree.root), env=env)
    assert found.exit_code == 0
