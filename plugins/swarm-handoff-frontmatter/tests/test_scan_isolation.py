"""One bad entry is one skipped skill: loops, FIFOs, sockets, devices and folders named SKILL.md.

Each gives that one skill a coded problem (visible in `discover --all` and `why`), and every other
skill of the same folder is still found. Nothing that is not a regular file is ever opened.
"""

from __future__ import annotations

import errno
import os
import socket
import threading

import pytest

from swarm_handoff.api import (
    SKILL_NOT_A_FILE,
    SKILL_SYMLINK_LOOP,
    SOURCE_FAILED,
    UNREADABLE,
    discover,
    lint,
    make_context,
)
from swarm_handoff_frontmatter.scan import scan_folder

posix_only = pytest.mark.skipif(os.name != "posix", reason="FIFOs, sockets and flock are POSIX")


def _hostile(skill_tree, tmp_path):
    """A skills folder with two good skills around every kind of bad entry."""
    skill_tree.add_handoff("alpha")
    skill_tree.add_handoff("zulu")
    skills = skill_tree.skills_dir
    os.symlink("loop", skills / "loop")  # a folder entry that loops on itself
    (skills / "loopmd").mkdir()
    os.symlink("SKILL.md", skills / "loopmd" / "SKILL.md")
    (skills / "fifo").mkdir()
    os.mkfifo(skills / "fifo" / "SKILL.md")
    (skills / "folder" / "SKILL.md").mkdir(parents=True)
    (skills / "sock").mkdir()
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(skills / "sock" / "SKILL.md"))
    (skills / "device").mkdir()
    os.symlink(os.devnull, skills / "device" / "SKILL.md")  # a character device through a link
    return skills, server


def _codes(result):
    return {r.name: [p.code for p in r.problems] for r in (*result.workflows, *result.ineligible)}


@posix_only
def test_each_bad_entry_is_its_own_problem_and_every_good_skill_is_found(skill_tree, tmp_path, make_swarm_host):
    _skills, server = _hostile(skill_tree, tmp_path)
    host = make_swarm_host(["frontmatter"])
    env = {"HOME": str(tmp_path / "home"), "GIT_CEILING_DIRECTORIES": str(tmp_path), "PATH": os.environ["PATH"]}
    try:
        result = discover(make_context(tmp_path, env), host, show_all=True, cache=False)
    finally:
        server.close()
    assert SOURCE_FAILED not in {p.code for p in result.problems}
    assert {r.name for r in result.workflows} == {"alpha", "zulu"}
    codes = _codes(result)
    assert codes["loop"] == [SKILL_SYMLINK_LOOP]
    assert codes["loopmd"] == [SKILL_SYMLINK_LOOP]
    for name in ("fifo", "folder", "sock", "device"):
        assert codes[name] == [SKILL_NOT_A_FILE], name
    messages = {r.name: r.problems[0].message for r in result.ineligible}
    assert "FIFO" in messages["fifo"]
    assert "socket" in messages["sock"]
    assert "character device" in messages["device"]
    assert "folder" in messages["folder"]


@posix_only
def test_why_names_the_broken_skill_and_still_finds_the_others(
    skill_tree, tmp_path, make_swarm_host, swarm_cli, monkeypatch
):
    skill_tree.add_handoff("alpha")
    os.symlink("loop", skill_tree.skills_dir / "loop")
    make_swarm_host(["frontmatter"])
    env = {"HOME": str(tmp_path / "home"), "GIT_CEILING_DIRECTORIES": str(tmp_path), "SWARM_HANDOFF_NO_CACHE": "1"}
    monkeypatch.chdir(tmp_path)
    why = swarm_cli("why", "loop", "--format", "json", env=env)
    looked = why.json()["looked"]
    assert any(SKILL_SYMLINK_LOOP in str(step) for step in looked), looked
    why_alpha = swarm_cli("why", "alpha", "--format", "json", env=env)
    assert why_alpha.json()["looked"][0]["status"] == "chosen"


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="names a descriptor's folder through /proc/self/fd")
def test_an_entry_that_cannot_be_looked_into_costs_only_that_skill(skill_tree, monkeypatch):
    skill_tree.add_handoff("alpha")
    (skill_tree.skills_dir / "secret").mkdir()
    real_stat = os.stat

    def stat(path, *args, **kwargs):
        # the walker looks into a skill folder through its descriptor: name that folder by it too
        where = kwargs.get("dir_fd")
        folder = os.readlink(f"/proc/self/fd/{where}") if where is not None else ""
        if "secret" in os.fspath(path) or folder.endswith("secret"):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)  # as a folder without search permission answers (root ignores modes)
    result = scan_folder(skill_tree.skills_dir)
    codes = {r.name: [p.code for p in r.problems] for r in result.records}
    assert codes == {"alpha": [], "secret": [UNREADABLE]}


@posix_only
@pytest.mark.parametrize("target", ["SKILL.md", "folder"])
def test_lint_of_a_fifo_named_skill_md_returns_instead_of_blocking(tmp_path, target):
    (tmp_path / "skill").mkdir()
    os.mkfifo(tmp_path / "skill" / "SKILL.md")
    path = tmp_path / "skill" / "SKILL.md" if target == "SKILL.md" else tmp_path / "skill"
    done: list = []
    worker = threading.Thread(target=lambda: done.append(lint([path])), daemon=True)
    worker.start()
    worker.join(30)  # a safety net: without the fix the open() never returns
    assert done, "lint blocked on a FIFO"
    [record] = done[0].files
    assert [p.code for p in record.problems] == [SKILL_NOT_A_FILE]
