"""`skills unlink` acts only on direct children of the skills folder: the manifest's names are checked.

A cloned repository controls `.claude/skills/.swarm-handoff-links.json`. Whatever it records,
`unlink` never touches a path outside the skills folder, and a bad entry is a coded problem
naming the file and the entry while the others proceed.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading

import pytest

from swarm_handoff_link import linking
from swarm_handoff_link.linking import MANIFEST_NAME, read_manifest, unlink_skills


def write_manifest(folder, entries):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MANIFEST_NAME).write_text(json.dumps({"version": 1, "entries": entries}))


def hashes(root):
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def victim(tmp_path):
    """Files outside the project that a hostile manifest points at, recorded as if `link` made them."""
    outside = tmp_path / "outside"
    (outside / "docs").mkdir(parents=True)
    (outside / "docs" / "notes.md").write_text("precious")
    os.symlink(outside / "docs", outside / "shortcut")
    return outside


def test_unlink_never_follows_a_manifest_entry_out_of_the_skills_folder(tmp_path, victim):
    folder = tmp_path / "project" / ".claude" / "skills"
    copy = {"kind": "copy", "files": hashes(victim / "docs")}  # the recorded content matches
    link = {"kind": "link", "target": str(victim / "docs")}
    write_manifest(
        folder,
        {
            str(victim / "docs"): copy,  # an absolute path
            "../../../outside/docs": copy,  # climbing out
            "../../../outside/shortcut": link,
            "sub/../..": copy,  # a separator
            "..": copy,
            ".": copy,
            "": copy,
            "ok-name": {"kind": "weird"},  # a name that is fine with a record that is not
            "mine": link,  # a good entry: it still proceeds
        },
    )
    os.symlink(victim / "docs", folder / "mine")
    before = hashes(victim)
    report = unlink_skills(folder)
    assert hashes(victim) == before
    assert os.path.islink(victim / "shortcut")
    assert [(e.name, e.status) for e in report.entries] == [("mine", "removed")]
    assert not os.path.lexists(folder / "mine")  # the link itself, never its target
    bad = [p for p in report.problems if p.code == linking.LINK_MANIFEST_ENTRY_INVALID]
    assert len(bad) == 8
    assert {p.path for p in bad} == {str(folder / MANIFEST_NAME)}
    assert any("'../../../outside/docs'" in p.message for p in bad)
    assert any(str(victim / "docs") in p.message and "absolute" in p.message for p in bad)
    # The bad entries are kept as they were (never acted on, never silently dropped).
    kept = json.loads((folder / MANIFEST_NAME).read_text())["entries"]
    assert "mine" not in kept
    assert "../../../outside/docs" in kept
    assert len(kept) == 8


def test_unlink_of_a_named_path_is_refused(tmp_path, victim):
    folder = tmp_path / ".claude" / "skills"
    write_manifest(folder, {"../../outside/docs": {"kind": "copy", "files": hashes(victim / "docs")}})
    report = unlink_skills(folder, ["../../outside/docs"])
    assert [e.problem.code for e in report.entries] == [linking.LINK_NOT_RECORDED]
    assert (victim / "docs" / "notes.md").read_text() == "precious"


def test_read_manifest_sets_bad_entries_aside(tmp_path):
    folder = tmp_path / "skills"
    write_manifest(folder, {"/etc": {"kind": "link", "target": "/etc"}, "good": {"kind": "link", "target": "/x"}})
    manifest = read_manifest(folder)
    assert dict(manifest) == {"good": {"kind": "link", "target": "/x"}}
    assert [p.code for p in manifest.problems] == [linking.LINK_MANIFEST_ENTRY_INVALID]


@pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW"), reason="no O_NOFOLLOW")
def test_a_manifest_that_is_a_link_is_not_followed(tmp_path, victim, swarm_cli):
    folder = tmp_path / ".claude" / "skills"
    folder.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps({"version": 1, "entries": {"x": {"kind": "link", "target": "/x"}}}))
    os.symlink(elsewhere, folder / MANIFEST_NAME)
    result = swarm_cli("skills", "unlink", "--cwd", str(tmp_path), "--format", "json")
    assert result.exit_code == 1
    assert result.json()["error"]["code"] == linking.LINK_MANIFEST_INVALID


@pytest.mark.skipif(os.name != "posix", reason="FIFOs are POSIX")
def test_a_fifo_as_the_manifest_stops_the_command_without_blocking(tmp_path):
    folder = tmp_path / ".claude" / "skills"
    folder.mkdir(parents=True)
    os.mkfifo(folder / MANIFEST_NAME)
    out: list = []

    def run():
        try:
            unlink_skills(folder)
        except Exception as exc:
            out.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(30)  # safety net: without the fix, reading the FIFO never returns
    assert out
    assert getattr(out[0], "code", None) == linking.LINK_MANIFEST_INVALID


@pytest.mark.parametrize("linked", [".claude", ".claude/skills"])
def test_a_project_skills_folder_that_links_out_of_the_project_is_refused(tmp_path, victim, swarm_cli, linked):
    project = tmp_path / "project"
    (project / linked).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(victim / "docs", project / linked)  # the repository's `.claude` leads to the user's files
    write_manifest(victim / "docs" / ("skills" if linked == ".claude" else ""), {})
    before = hashes(victim)
    for command in ("link", "unlink"):
        result = swarm_cli("skills", command, "--cwd", str(project), "--format", "json")
        assert result.exit_code == 1
        assert result.json()["error"]["code"] == linking.LINK_FOLDER_OUTSIDE
    assert hashes(victim) == before
    assert not (victim / "docs" / "skills" / "review").exists()
