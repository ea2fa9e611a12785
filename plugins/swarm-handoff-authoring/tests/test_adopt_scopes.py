"""`adopt` writes only the user's own skills, and only through the folders it checked (issue 25, 7).

Findings: it wrote through a symlinked `.claude` out of the project, through a skill folder swapped
for a link during the run, into a pip-installed pack's SKILL.md and a Claude Code plugin's cached
copy, and over a `SKILL.md.bak` it had not made.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from swarm_handoff.api import SwarmError
from swarm_handoff.testing import SkillTree
from swarm_handoff_authoring import adopt as adopt_module
from swarm_handoff_authoring.adopt import adopt

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX links and descriptor-relative opens")

PLAIN = "---\nname: plain\ndescription: A plain skill.\n---\nBody.\n"


@pytest.fixture
def tree(tmp_path, make_swarm_host, monkeypatch):
    make_swarm_host(["frontmatter", "authoring"])
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    return SkillTree(tmp_path / "project")


def _skill(folder: Path, text: str = PLAIN) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(text)
    return path


def test_a_symlinked_claude_folder_out_of_the_project_is_refused(tree, tmp_path):
    outside = tmp_path / "outside" / "dot-claude"
    real = _skill(outside / "skills" / "plain")
    tree.root.mkdir()
    (tree.root / ".claude").symlink_to(outside, target_is_directory=True)
    with pytest.raises(SwarmError) as caught:
        adopt(tree.skills_dir / "plain" / "SKILL.md")
    assert caught.value.code == "ADOPT_SYMLINK"
    assert ".claude" in str(caught.value)
    assert real.read_text() == PLAIN
    assert not (real.parent / "SKILL.md.bak").exists()


def test_a_skill_folder_swapped_for_a_link_during_the_run_is_not_written_through(tree, tmp_path, monkeypatch):
    path = tree.add("plain", raw=PLAIN)
    elsewhere = _skill(tmp_path / "elsewhere" / "plain")
    moved = tmp_path / "moved-away"
    reading = adopt_module.reading
    swapped = []

    def swap_then_read(text, name, where):
        if not swapped:  # after adopt opened and read the file, before it writes
            path.parent.rename(moved)
            path.parent.symlink_to(elsewhere.parent, target_is_directory=True)
            swapped.append(True)
        return reading(text, name, where)

    monkeypatch.setattr(adopt_module, "reading", swap_then_read)
    adopt(path)
    assert elsewhere.read_text() == PLAIN  # the link's target was never written
    assert not (elsewhere.parent / "SKILL.md.bak").exists()
    assert "accepts-from" in (moved / "SKILL.md").read_text()  # the folder that was checked got it


def _assert_refused_as_someone_elses(path):
    """adopt refuses `path` as not the user's own skill, names it, and leaves the folder as it was."""
    with pytest.raises(SwarmError) as caught:
        adopt(path)
    assert caught.value.code == "ADOPT_NOT_OWN_SKILL"
    assert str(path) in str(caught.value)
    assert path.read_text() == PLAIN
    assert not (path.parent / "SKILL.md.bak").exists()


@pytest.mark.parametrize(
    "where",
    [
        "venv/lib/python3.12/site-packages/acme_pack/skills/plain",  # a pip-installed pack
        "config/plugins/cache/market/acme/1.0.0/skills/plain",  # a Claude Code plugin's cached copy
        "loose/plain",  # not in a skills folder at all
    ],
)
def test_skills_outside_the_project_git_root_and_global_scopes_are_refused(tree, tmp_path, where):
    _assert_refused_as_someone_elses(_skill(tmp_path / where))


def test_a_global_skill_is_adopted(tree, tmp_path):
    path = _skill(tmp_path / "config" / "skills" / "plain")
    report = adopt(path)
    assert report.changed
    assert "accepts-from" in path.read_text()


def test_an_existing_backup_is_kept_and_the_new_one_takes_the_next_free_name(tree):
    path = tree.add("plain", raw=PLAIN)
    (path.parent / "SKILL.md.bak").write_text("someone's own backup\n")
    (path.parent / "SKILL.md.bak.1").write_text("another\n")
    report = adopt(path)
    assert (path.parent / "SKILL.md.bak").read_text() == "someone's own backup\n"
    assert (path.parent / "SKILL.md.bak.1").read_text() == "another\n"
    assert report.backup == str(path.parent / "SKILL.md.bak.2")
    assert (path.parent / "SKILL.md.bak.2").read_text() == PLAIN


def test_a_backup_name_held_by_a_link_is_not_written_through(tree, tmp_path):
    path = tree.add("plain", raw=PLAIN)
    victim = tmp_path / "victim.txt"
    victim.write_text("untouched\n")
    (path.parent / "SKILL.md.bak").symlink_to(victim)
    report = adopt(path)
    assert victim.read_text() == "untouched\n"
    assert (path.parent / "SKILL.md.bak").is_symlink()
    assert report.backup == str(path.parent / "SKILL.md.bak.1")


def test_a_skill_folder_another_writer_holds_is_waited_for_a_bounded_time(tree, monkeypatch):
    import threading

    from swarm_handoff.api import FolderBusy, locked

    monkeypatch.setenv("SWARM_HANDOFF_LOCK_TIMEOUT", "0")
    path = tree.add("plain", raw=PLAIN)
    outcome: list = []

    def run():
        try:
            outcome.append(adopt(path))
        except FolderBusy as busy:
            outcome.append(busy)

    with locked(path.parent):  # another writer: its own open file description of the folder
        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        worker.join(120)  # only a safety net: before the fix adopt's flock never returned
    assert outcome, "it waited forever"
    assert isinstance(outcome[0], FolderBusy)  # the CLI reports it as FOLDER_BUSY
    assert outcome[0].folder == str(path.parent)
    assert path.read_text() == PLAIN
    assert not (path.parent / "SKILL.md.bak").exists()


# -- the user's own config folder may be a link; installed copies are never theirs (review, #5 #6) ---


def test_a_global_skill_under_a_symlinked_config_folder_is_adopted(tmp_path, make_swarm_host, monkeypatch):
    make_swarm_host(["frontmatter", "authoring"])
    dotfiles = tmp_path / "dotfiles" / "claude"
    real = _skill(dotfiles / "skills" / "plain")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".claude").symlink_to(dotfiles, target_is_directory=True)  # dotfiles managed by stow & co
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.setenv("HOME", str(home))
    report = adopt(home / ".claude" / "skills" / "plain" / "SKILL.md")
    assert report.changed
    assert "accepts-from" in real.read_text()
    assert (real.parent / "SKILL.md.bak").read_text() == PLAIN


def test_a_link_below_the_config_folder_is_still_refused(tmp_path, make_swarm_host, monkeypatch):
    make_swarm_host(["frontmatter", "authoring"])
    config = tmp_path / "config-link"
    (tmp_path / "real-config" / "skills").mkdir(parents=True)
    config.symlink_to(tmp_path / "real-config", target_is_directory=True)
    elsewhere = _skill(tmp_path / "elsewhere" / "plain")
    (tmp_path / "real-config" / "skills" / "plain").symlink_to(elsewhere.parent, target_is_directory=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    with pytest.raises(SwarmError) as caught:
        adopt(config / "skills" / "plain" / "SKILL.md")
    assert caught.value.code == "ADOPT_SYMLINK"
    assert elsewhere.read_text() == PLAIN


@pytest.mark.parametrize(
    "where",
    [
        "venv/lib/python3.12/site-packages/acme_pack/.claude/skills/plain",  # a pack shipping a .claude folder
        "usr/lib/python3/dist-packages/acme_pack/.claude/skills/plain",
        "prefix/share/acme/.claude/skills/plain",  # anywhere under the interpreter's prefix
        "config/plugins/cache/market/acme/1.0.0/.claude/skills/plain",  # a Claude Code plugin's cached copy
    ],
)
def test_a_project_shaped_skill_inside_an_installed_copy_is_refused(tree, tmp_path, monkeypatch, where):
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "prefix"))
    _assert_refused_as_someone_elses(_skill(tmp_path / where))


# -- a disk that refuses the write (review, #7) -------------------------------------------------------


def _failing_fsync(monkeypatch, fail_on: int, code: int):
    """Let the first fail_on-1 fsyncs through, then fail with `code` (a full disk, a refused write)."""
    import errno as _errno
    import os as _os

    calls: list[int] = []
    real = _os.fsync

    def fsync(fd):
        calls.append(fd)
        if len(calls) >= fail_on:
            raise OSError(code, _os.strerror(code))
        return real(fd)

    monkeypatch.setattr(adopt_module.os, "fsync", fsync)
    assert _errno.errorcode[code]
    return calls


@pytest.mark.parametrize(("fail_on", "culprit"), [(1, "SKILL.md.bak"), (2, "SKILL.md")])
def test_a_write_the_disk_refuses_is_a_coded_error_and_leaves_nothing_half_made(tree, monkeypatch, fail_on, culprit):
    import errno

    path = tree.add("plain", raw=PLAIN)
    _failing_fsync(monkeypatch, fail_on, errno.ENOSPC)
    with pytest.raises(SwarmError) as caught:
        adopt(path)
    assert caught.value.code == "ADOPT_WRITE_FAILED"
    assert str(path.parent / culprit) in caught.value.message
    assert "No space left on device" in caught.value.message
    assert path.read_text() == PLAIN
    assert sorted(p.name for p in path.parent.iterdir()) == ["SKILL.md"]  # no backup, no temporary


def test_a_refused_write_through_the_cli_is_not_internal_error(tree, monkeypatch, swarm_cli):
    import errno

    path = tree.add("plain", raw=PLAIN)
    _failing_fsync(monkeypatch, 1, errno.EACCES)
    result = swarm_cli("adopt", str(path), "-f", "json")
    assert result.exit_code == 1
    assert result.json()["error"]["code"] == "ADOPT_WRITE_FAILED"
