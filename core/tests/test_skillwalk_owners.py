"""Whose folders the walker reads (review of issue 25): links, folders others can write, each skill's owner.

The tests run as root (root's own files are trusted, as git does) and give paths to STRANGER with
`chown`, as if another user had made them. A folder only root owns but everyone may write (/tmp,
/dev/shm) is as good as another user's.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from swarm_handoff import skilltrust, skillwalk
from swarm_handoff.errors import Problem
from swarm_handoff.records import Scope
from swarm_handoff.skilltrust import ENV_TRUSTED, SKILLS_OWNER_UNTRUSTED
from swarm_handoff.skillwalk import SkillsPlace, walk_skills
from swarm_handoff.testing import write_skill

STRANGER = 12345
needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a path to another user needs root (chown)"
)
pytestmark = needs_root


def give(*paths: Path) -> None:
    for path in paths:
        os.chown(path, STRANGER, STRANGER, follow_symlinks=False)


def codes(walked) -> dict[str, list[str]]:
    return {r.name: [p.code for p in r.problems] for r in walked.records}


def walk(*folders: Path, env: dict[str, str] | None = None, scope: Scope = Scope.GLOBAL):
    return walk_skills([SkillsPlace(f, scope) for f in folders], source="t", env=env or {})


def test_a_link_another_user_owns_is_not_followed_to_a_folder_root_owns(tmp_path):
    target = tmp_path / "usr-share"  # root's, nobody else can write it
    write_skill(target, "deploy")
    project = tmp_path / "project" / ".claude"
    project.mkdir(parents=True)
    os.symlink(target, project / "skills")
    give(project / "skills")
    walked = walk(project / "skills")
    assert codes(walked) == {"deploy": [SKILLS_OWNER_UNTRUSTED]}
    assert "the link" in walked.problems[0].message
    assert str(STRANGER) in walked.problems[0].message
    # the same link of yours is followed
    os.chown(project / "skills", 0, 0, follow_symlinks=False)
    assert codes(walk(project / "skills")) == {"deploy": []}


def test_a_link_above_the_skills_folder_counts_too(tmp_path):
    write_skill(tmp_path / "real" / "skills", "deploy")
    os.symlink(tmp_path / "real", tmp_path / "dot-claude")
    give(tmp_path / "dot-claude")
    assert codes(walk(tmp_path / "dot-claude" / "skills")) == {"deploy": [SKILLS_OWNER_UNTRUSTED]}


def test_a_folder_everyone_may_write_is_refused_even_when_root_owns_it(tmp_path):
    shared = tmp_path / "shared"  # like /tmp: root's, mode 1777
    shared.mkdir()
    shared.chmod(0o1777)
    skill = write_skill(shared, "deploy")
    give(skill.parent, skill)
    os.symlink(shared, tmp_path / "skills")  # your own link to it
    walked = walk(tmp_path / "skills")
    assert codes(walked) == {"deploy": [SKILLS_OWNER_UNTRUSTED]}
    assert "can be changed by other users" in walked.problems[0].message
    listed = walk(tmp_path / "skills", env={ENV_TRUSTED: str(shared)})
    assert codes(listed) == {"deploy": []}  # named by the user: read


def test_another_user_s_skill_folder_or_skill_md_in_your_folder_is_that_skill_s_problem(tmp_path):
    mine = tmp_path / "skills"
    write_skill(mine, "good")
    give(write_skill(mine, "their-folder").parent)
    give(write_skill(mine, "their-file"))
    write_skill(mine, "open-folder").parent.chmod(0o777)
    write_skill(mine, "open-file").chmod(0o666)
    walked = walk(mine)
    assert codes(walked) == {
        "good": [],
        "open-file": [SKILLS_OWNER_UNTRUSTED],
        "open-folder": [SKILLS_OWNER_UNTRUSTED],
        "their-file": [SKILLS_OWNER_UNTRUSTED],
        "their-folder": [SKILLS_OWNER_UNTRUSTED],
    }
    assert all(r.health_check is None and r.description in ("", None) for r in walked.records if r.name != "good")


def test_a_link_to_a_skill_folder_is_followed_only_when_you_own_the_link(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    write_skill(elsewhere, "shared")
    mine = tmp_path / "skills"
    mine.mkdir()
    os.symlink(elsewhere / "shared", mine / "shared")
    assert codes(walk(mine)) == {"shared": []}
    give(mine / "shared")
    assert codes(walk(mine)) == {"shared": [SKILLS_OWNER_UNTRUSTED]}
    os.chown(mine / "shared", 0, 0, follow_symlinks=False)
    give(elsewhere / "shared" / "SKILL.md")  # your link, their file
    assert codes(walk(mine)) == {"shared": [SKILLS_OWNER_UNTRUSTED]}


def test_an_untrusted_place_does_not_hide_the_folder_it_resolves_to(tmp_path):
    # Issue 25 review, MEDIUM: a planted `.claude/skills` linking to your global folder made the
    # walker mark that folder seen before refusing it, so your real global skills were never read.
    home_skills = tmp_path / "home" / ".claude" / "skills"
    write_skill(home_skills, "deploy")
    planted = tmp_path / "shared" / ".claude"
    planted.mkdir(parents=True)
    os.symlink(home_skills, planted / "skills")
    root = Problem(SKILLS_OWNER_UNTRUSTED, "the repository (its .git) is owned by user 12345", path="/x/.git")
    for first in (
        SkillsPlace(planted / "skills", Scope.PROJECT, untrusted=root),  # an untrusted repository's folder
        SkillsPlace(planted / "skills", Scope.PROJECT),  # another user's link
    ):
        give(planted / "skills")
        walked = walk_skills([first, SkillsPlace(home_skills, Scope.GLOBAL)], source="t", env={})
        found = [(r.scope, [p.code for p in r.problems]) for r in walked.records]
        assert found == [(Scope.PROJECT, [SKILLS_OWNER_UNTRUSTED]), (Scope.GLOBAL, [])]


def test_trusted_folders_match_a_link_by_its_own_place_and_ignore_relative_entries(tmp_path):
    target = tmp_path / "target"
    write_skill(target, "deploy")
    os.symlink(target, tmp_path / "skills")
    give(tmp_path / "skills")
    # listing the link's target does not vouch for another user's link to it; listing the link does
    assert codes(walk(tmp_path / "skills", env={ENV_TRUSTED: str(target)})) == {"deploy": [SKILLS_OWNER_UNTRUSTED]}
    assert codes(walk(tmp_path / "skills", env={ENV_TRUSTED: str(tmp_path / "skills")})) == {"deploy": []}
    # `~` is the context's HOME, not this process's
    env = {"HOME": str(tmp_path), ENV_TRUSTED: "~/skills"}
    assert codes(walk(tmp_path / "skills", env=env)) == {"deploy": []}
    assert skilltrust.trusted_entries({ENV_TRUSTED: "skills" + os.pathsep + "./x"}) == ()
    [problem] = skilltrust.trust_setting_problems({ENV_TRUSTED: "skills"})
    assert problem.code == SKILLS_OWNER_UNTRUSTED
    assert "'skills'" in problem.message


def test_a_skill_md_swapped_after_its_check_is_not_parsed(tmp_path, monkeypatch):
    # The walker judges each SKILL.md through its folder's descriptor; the parse (which may run in a
    # forked child, from the parse memo's list of paths) reopens it by path and must find that file.
    mine = tmp_path / "skills"
    path = write_skill(mine, "deploy")
    planted = tmp_path / "planted.md"
    planted.write_text(path.read_text().replace("handoff:\n", "handoff:\n  health_check: touch /tmp/pwned\n"))
    give(planted)
    real = skillwalk.read_skills

    def swap_then_read(files, **kwargs):
        os.replace(planted, path)  # between the walker's check and the parse
        return real(files, **kwargs)

    monkeypatch.setattr(skillwalk, "read_skills", swap_then_read)
    walked = walk(mine)
    assert codes(walked) == {"deploy": [SKILLS_OWNER_UNTRUSTED]}
    assert walked.records[0].health_check is None
    assert "replaced after its owner was checked" in walked.records[0].problems[0].message
