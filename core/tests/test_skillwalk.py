"""The one walker of skill folders (issue 27 point 3) and the reads it must never block on (issue 25).

Trust of other users' folders is tested end to end with the sources in
plugins/swarm-handoff-agents/tests/test_trust.py; here: the walker's own rules, lint's folder
listing, and SKILL.md files that are kernel pseudo-files.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from swarm_handoff import skilltrust, skillwalk
from swarm_handoff.lint import lint
from swarm_handoff.records import Scope
from swarm_handoff.skillmd import SKILL_NOT_A_FILE, SKILL_SYMLINK_LOOP, UNREADABLE, load_skill_md
from swarm_handoff.skilltrust import ENV_TRUSTED, SKILLS_OWNER_UNTRUSTED
from swarm_handoff.skillwalk import SKILLS_DIR_TOO_MANY, SkillsPlace, walk_skills
from swarm_handoff.testing import write_skill

posix_only = pytest.mark.skipif(os.name != "posix", reason="owners, links and /proc are POSIX")


def place(folder: Path) -> SkillsPlace:
    return SkillsPlace(folder, Scope.GLOBAL)


def codes(walked) -> dict[str, list[str]]:
    return {r.name: [p.code for p in r.problems] for r in walked.records}


def test_an_unforeseen_error_on_one_entry_is_that_skill_s_problem(tmp_path, monkeypatch):
    write_skill(tmp_path, "alpha")
    write_skill(tmp_path, "beta")
    real = skillwalk._Walk.entry

    def entry(self, item, *args):
        if item.name == "beta":
            raise OSError(errno.ELOOP, "Too many levels of symbolic links", item.path)
        return real(self, item, *args)

    monkeypatch.setattr(skillwalk._Walk, "entry", entry)
    walked = walk_skills([place(tmp_path)], source="t", env={})
    assert codes(walked) == {"alpha": [], "beta": [SKILL_SYMLINK_LOOP]}


@posix_only
def test_who_you_are_is_asked_in_one_place(tmp_path, monkeypatch):
    write_skill(tmp_path, "helper")
    owner = os.stat(tmp_path).st_uid
    if owner == 0:
        # root's folders are trusted whoever runs; give the folder to a stranger, then become them
        try:
            os.chown(tmp_path, 12345, 12345)
        except PermissionError:
            pytest.skip("cannot give a folder away")
        owner = 12345
    monkeypatch.setattr(skilltrust, "current_uid", lambda: owner + 1)
    assert codes(walk_skills([place(tmp_path)], source="t", env={})) == {"helper": [SKILLS_OWNER_UNTRUSTED]}
    monkeypatch.setattr(skilltrust, "current_uid", lambda: owner)
    assert codes(walk_skills([place(tmp_path)], source="t", env={})) == {"helper": []}


@posix_only
def test_a_trusted_folder_entry_covers_the_folders_under_it(tmp_path, monkeypatch):
    skills = tmp_path / "team" / "skills"
    write_skill(skills, "helper")
    monkeypatch.setattr(skilltrust, "current_uid", lambda: 4242)
    if os.stat(skills).st_uid == 0:
        os.chown(skills, 12345, 12345)
    env = {ENV_TRUSTED: str(tmp_path / "team")}
    assert codes(walk_skills([place(skills)], source="t", env=env)) == {"helper": []}
    vouched = SkillsPlace(skills, Scope.GLOBAL, vouched=True)
    assert codes(walk_skills([vouched], source="t", env={})) == {"helper": []}


def test_past_the_entry_limit_the_walk_says_so(tmp_path):
    for name in ("a", "b", "c"):
        write_skill(tmp_path, name)
    walked = walk_skills([place(tmp_path)], source="t", env={}, limit=2)
    assert [r.name for r in walked.records] == ["a", "b"]
    assert [p.code for p in walked.problems] == [SKILLS_DIR_TOO_MANY]
    assert "2 entries" in walked.problems[0].message


# -- lint on a folder of skills (issue 25, LOW) -------------------------------------------------------------


@posix_only
def test_lint_of_a_folder_with_one_looping_link_reports_that_link_and_lints_the_rest(tmp_path):
    write_skill(tmp_path, "good")
    os.symlink(tmp_path / "loop", tmp_path / "loop")
    report = lint([tmp_path])
    found = {r.name: [p.code for p in r.problems if p.severity.value == "error"] for r in report.files}
    assert found == {"good": [], "loop": [SKILL_SYMLINK_LOOP]}


def test_lint_past_the_entry_limit_says_the_limit_was_hit_not_no_skill(tmp_path, monkeypatch):
    from swarm_handoff import lint as lint_module

    monkeypatch.setattr(lint_module, "MAX_SKILLS_PER_FOLDER", 3)
    monkeypatch.setattr(lint_module._skills_inside, "__defaults__", (3,))
    for index in range(5):
        (tmp_path / f"file-{index}.txt").write_text("not a skill")
    write_skill(tmp_path, "zz-last")  # past the limit, by name
    report = lint([tmp_path])
    assert [p.code for r in report.files for p in r.problems] == [SKILLS_DIR_TOO_MANY]
    assert report.errors == 1


# -- kernel pseudo-files (issue 25, LOW) ---------------------------------------------------------------------


@posix_only
@pytest.mark.skipif(not os.path.exists("/proc/version"), reason="needs /proc/version (a size-0 procfs file)")
def test_a_skill_md_linked_into_proc_is_one_coded_problem_and_the_rest_are_found(tmp_path):
    # /proc/version reads without blocking; /proc/kmsg, the file of the report, is never read by a test.
    write_skill(tmp_path, "good")
    (tmp_path / "kernel").mkdir()
    os.symlink("/proc/version", tmp_path / "kernel" / "SKILL.md")
    walked = walk_skills([place(tmp_path)], source="t", env={})
    assert codes(walked) == {"good": [], "kernel": [SKILL_NOT_A_FILE]}
    [problem] = next(r for r in walked.records if r.name == "kernel").problems
    assert "pseudo-file" in problem.message
    front = load_skill_md(str(tmp_path / "kernel" / "SKILL.md"))  # the reader refuses it too
    assert [p.code for p in front.problems] == [SKILL_NOT_A_FILE]
    assert [p.code for r in lint([tmp_path / "kernel"]).files for p in r.problems] == [SKILL_NOT_A_FILE]


def test_a_read_that_would_block_is_one_coded_problem(tmp_path, monkeypatch):
    # What /proc/kmsg does under O_NONBLOCK with nothing to say: the read fails with EAGAIN.
    path = write_skill(tmp_path, "waits")
    real = os.fdopen

    class Waits:  # a buffered reader over a non-blocking descriptor with nothing to read gives None
        def __init__(self, fd, *args):
            self.handle = real(fd, *args)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def read(self, size=-1):
            return None

    monkeypatch.setattr(os, "fdopen", Waits)
    front = load_skill_md(str(path))
    assert [p.code for p in front.problems] == [UNREADABLE]
    assert "would block" in front.problems[0].message


@posix_only
def test_under_sudo_the_invoking_user_s_folders_are_trusted(tmp_path, monkeypatch):
    write_skill(tmp_path, "helper")
    if os.stat(tmp_path).st_uid == 0:
        try:
            os.chown(tmp_path, 12345, 12345)
        except PermissionError:
            pytest.skip("cannot give a folder away")
    owner = os.stat(tmp_path).st_uid
    monkeypatch.setattr(skilltrust, "current_uid", lambda: 0)
    assert codes(walk_skills([place(tmp_path)], source="t", env={})) == {"helper": [SKILLS_OWNER_UNTRUSTED]}
    assert codes(walk_skills([place(tmp_path)], source="t", env={"SUDO_UID": str(owner)})) == {"helper": []}


def test_an_untrusted_root_is_said_once_however_many_of_its_folders_are_listed(tmp_path):
    from swarm_handoff.errors import Problem

    root = Problem(SKILLS_OWNER_UNTRUSTED, "the repository /x (its .git) is owned by user 12345", path="/x/.git")
    places = []
    for name in ("a", "b"):
        write_skill(tmp_path / name, "helper")
        places.append(SkillsPlace(tmp_path / name, Scope.PROJECT, untrusted=root))
    walked = walk_skills(places, source="t", env={})
    assert [p.code for p in walked.problems] == [SKILLS_OWNER_UNTRUSTED]
    assert [p.code for r in walked.records for p in r.problems] == [SKILLS_OWNER_UNTRUSTED] * 2


@posix_only
def test_who_you_are_is_asked_once_per_walk_not_per_skill(tmp_path, monkeypatch):
    # Plain `discover` judges every skill folder and SKILL.md: the user (and sudo) behind the
    # judgement is the same for all of them, so it is asked once.
    for name in ("a", "b", "c"):
        write_skill(tmp_path, name)
    asked: list[int] = []
    uid = os.geteuid()

    def counted() -> int:
        asked.append(uid)
        return uid

    monkeypatch.setattr(skilltrust, "current_uid", counted)
    assert codes(walk_skills([place(tmp_path)], source="t", env={})) == {"a": [], "b": [], "c": []}
    assert len(asked) == 1


def test_a_name_the_source_refuses_is_skipped_before_anything_in_it_is_read(tmp_path, monkeypatch):
    from swarm_handoff.errors import Problem

    for name in ("good", "bad name"):
        write_skill(tmp_path, name)
    (tmp_path / "also bad").mkdir()  # no SKILL.md
    read: list[str] = []
    real = skillwalk.read_skills

    def reading(files, **kwargs):
        read.extend(path for path, _, _ in files)
        return real(files, **kwargs)

    monkeypatch.setattr(skillwalk, "read_skills", reading)

    def check(name: str) -> Problem | None:
        return None if " " not in name else Problem("NAME_UNSAFE", f"{name} is skipped", path=name)

    walked = walk_skills([SkillsPlace(tmp_path, Scope.GLOBAL, name_check=check)], source="t", env={})
    assert codes(walked) == {"good": []}
    assert walked.scanned == 1
    assert [p.path for p in walked.problems] == ["also bad", "bad name"]
    assert read == [str(tmp_path / "good" / "SKILL.md")]
