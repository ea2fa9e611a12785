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


@pytest.mark.parametrize(
    "where",
    [
        "venv/lib/python3.12/site-packages/acme_pack/skills/plain",  # a pip-installed pack
        "config/plugins/cache/market/acme/1.0.0/skills/plain",  # a Claude Code plugin's cached copy
        "loose/plain",  # not in a skills folder at all
    ],
)
def test_skills_outside_the_project_git_root_and_global_scopes_are_refused(tree, tmp_path, where):
    path = _skill(tmp_path / where)
    with pytest.raises(SwarmError) as caught:
        adopt(path)
    assert caught.value.code == "ADOPT_NOT_OWN_SKILL"
    assert str(path) in str(caught.value)
    assert path.read_text() == PLAIN
    assert not (path.parent / "SKILL.md.bak").exists()


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
