"""The scan with the user-level caches: only changed files are parsed, and the answer is never stale."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swarm_handoff.api import discover, make_context
from swarm_handoff.testing import SkillTree


@pytest.fixture
def host(make_swarm_host):
    return make_swarm_host(["frontmatter"])


def ctx(root, ceiling=None, **env):
    ceiling = ceiling or root.parent
    return make_context(root, {"HOME": str(root / "home"), "GIT_CEILING_DIRECTORIES": str(ceiling), **env})


def view(result):
    return (
        sorted((r.name, r.scope.value, r.categories, r.description) for r in result.workflows),
        sorted((r.name, tuple(p.code for p in r.problems)) for r in result.ineligible),
    )


def test_only_changed_files_are_parsed_again(tmp_path, host, monkeypatch):
    tree = SkillTree(tmp_path)
    paths = [tree.add_handoff(f"s{i}") for i in range(5)]
    parsed = []
    # The core parses for the scan (`read_skills`), reusing unchanged files: count what it parses.
    import sys

    skillmd = sys.modules["swarm_handoff.skillmd"]  # loaded by discovery; named, not imported (api only)
    real = skillmd.load_skill_md
    monkeypatch.setattr(skillmd, "load_skill_md", lambda p, **kw: parsed.append(p) or real(p, **kw))
    discover(ctx(tmp_path), host)
    assert len(parsed) == 5
    parsed.clear()
    discover(ctx(tmp_path), host)
    assert parsed == []  # the whole answer came from the result cache
    paths[2].write_text(paths[2].read_text().replace("Hand s2", "Give s2"))
    result = discover(ctx(tmp_path), host)
    assert parsed == [str(paths[2])]
    assert result.named("s2").description == "Give s2 the work."


def test_an_edit_in_place_with_the_same_size_is_seen(tmp_path, host):
    tree = SkillTree(tmp_path)
    path = tree.add_handoff("s", categories=["aaaa"])
    discover(ctx(tmp_path), host)
    stat = path.stat()
    path.write_text(path.read_text().replace("aaaa", "bbbb"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert discover(ctx(tmp_path), host).named("s").categories == ("bbbb",)


def test_a_skill_md_added_to_an_existing_folder_is_seen(tmp_path, host):
    tree = SkillTree(tmp_path)
    tree.add_handoff("a")
    (tree.skills_dir / "later").mkdir()
    assert [r.name for r in discover(ctx(tmp_path), host).workflows] == ["a"]
    tree.add_handoff("later")
    assert [r.name for r in discover(ctx(tmp_path), host).workflows] == ["a", "later"]


def test_a_new_git_repository_above_cwd_is_seen(tmp_path, host):
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = SkillTree(tmp_path / "repo")
    repo.add_handoff("repo-skill")
    work = tmp_path / "repo" / "sub"
    work.mkdir()
    assert discover(ctx(work, tmp_path), host).workflows == ()
    subprocess.run(["git", "init", "-q"], cwd=repo.root, check=True)
    assert [r.name for r in discover(ctx(work, tmp_path), host).workflows] == ["repo-skill"]


OPS = st.lists(
    st.tuples(
        st.sampled_from(["add", "edit", "break", "delete", "mkdir"]),
        st.sampled_from(["a", "b", "c"]),
        st.sampled_from(["project", "global"]),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_cached_discovery_always_equals_a_fresh_scan(tmp_path_factory, host, ops):
    root = tmp_path_factory.mktemp("never-stale")
    trees = {"project": SkillTree(root), "global": SkillTree(root / "home")}
    (root / "home" / ".claude" / "skills").mkdir(parents=True)
    tick = [1_700_000_000_000_000_000]
    for op, name, where in ops:
        tree = trees[where]
        path = tree.skills_dir / name / "SKILL.md"
        if op == "add":
            tree.add_handoff(name, categories=[where])
        elif op == "edit" and path.is_file():
            path.write_text(path.read_text().replace("Hand", "Pass"))
        elif op == "break" and path.is_file():
            path.write_text("---\ndescription: Use when: broken\n---\n")
        elif op == "delete" and path.is_file():
            path.unlink()
        elif op == "mkdir":
            (tree.skills_dir / name).mkdir(parents=True, exist_ok=True)
        for changed in (path, path.parent, tree.skills_dir):
            if changed.exists():  # file systems with coarse mtimes: make every change visible
                tick[0] += 10_000_000
                os.utime(changed, ns=(tick[0], tick[0]))
        cached = discover(ctx(root), host, show_all=True)
        fresh = discover(ctx(root), host, show_all=True, cache=False)
        assert view(cached) == view(fresh)
