"""`skills link` / `skills unlink`: pack skills shown as `.claude/skills/<name>/`, never at the user's expense."""

from __future__ import annotations

import json
import os
import shutil
import zipfile

import pytest

from swarm_handoff_link import linking
from swarm_handoff_link.linking import MANIFEST_NAME, link_skills, read_manifest, skills_dir, unlink_skills

SKILLS_ENTRY_POINT_GROUP = "swarm_handoff.skills"  # the pack group, as pack authors spell it

SKILL_MD = "---\nname: review\ndescription: Review code.\n---\n# Review\n"
MODULE = "from importlib.resources import files\nSKILL_MD = files(__name__) / 'SKILL.md'\n"


@pytest.fixture
def packs(fake_distributions):
    """Two packs with real SKILL.md files on disk: `review` (with a helper script) and `plan`."""
    site = fake_distributions.install(
        "review-pack",
        version="1.2",
        modules={"revpack.review.__init__": MODULE, "revpack.plan.__init__": MODULE},
        files={
            "revpack/review/SKILL.md": SKILL_MD,
            "revpack/review/scripts/check.sh": "echo ok\n",
            "revpack/plan/SKILL.md": SKILL_MD.replace("review", "plan"),
        },
        entry_points={SKILLS_ENTRY_POINT_GROUP: {"review": "revpack.review", "plan": "revpack.plan"}},
    )
    fake_distributions.modules.append("revpack")  # packages written as `pkg.__init__`: forget them all after
    return site


@pytest.fixture
def folder(tmp_path):
    return tmp_path / "project" / ".claude" / "skills"


def by_name(report):
    return {e.name: e for e in report.entries}


def test_link_makes_a_symlink_to_each_pack_skill_folder_and_records_it(packs, folder):
    report = link_skills(folder)
    entries = by_name(report)
    assert {n: e.action for n, e in entries.items()} == {"plan": "linked", "review": "linked"}
    assert (folder / "review").is_symlink()
    assert os.readlink(folder / "review") == str((packs / "revpack" / "review").resolve())
    assert (folder / "review" / "SKILL.md").read_text() == SKILL_MD
    assert (folder / "review" / "scripts" / "check.sh").is_file()  # the whole folder, not just SKILL.md
    manifest = read_manifest(folder)
    assert manifest["review"]["kind"] == "link"
    assert manifest["review"]["distribution"] == "review-pack"
    assert manifest["review"]["version"] == "1.2"


def test_names_narrow_the_set(packs, folder):
    report = link_skills(folder, ["plan"])
    assert [e.name for e in report.entries] == ["plan"]
    assert not os.path.lexists(folder / "review")


def test_relinking_is_idempotent(packs, folder):
    link_skills(folder)
    before = (folder / MANIFEST_NAME).read_bytes()
    again = link_skills(folder)
    assert {e.status for e in again.entries} == {"unchanged"}
    assert (folder / MANIFEST_NAME).read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == [MANIFEST_NAME, "plan", "review"]


def test_an_existing_user_folder_of_the_same_name_is_left_alone_and_reported(packs, folder):
    mine = folder / "review"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_text("my own review skill\n")
    entries = by_name(link_skills(folder))
    skipped = entries["review"]
    assert skipped.action == "skipped"
    assert skipped.problem.code == linking.LINK_EXISTS
    assert skipped.problem.path == str(mine)
    assert skipped.problem.hint
    assert (mine / "SKILL.md").read_text() == "my own review skill\n"
    assert "review" not in read_manifest(folder)
    assert entries["plan"].action == "linked"  # one refusal does not stop the others
    # ... and unlink does not touch it either, by default or by name.
    report = unlink_skills(folder, ["review"])
    assert by_name(report)["review"].problem.code == linking.LINK_NOT_RECORDED
    unlink_skills(folder)
    assert (mine / "SKILL.md").read_text() == "my own review skill\n"


def test_a_user_symlink_even_a_dangling_one_is_never_replaced(packs, folder, tmp_path):
    folder.mkdir(parents=True)
    os.symlink(tmp_path / "nowhere", folder / "review")
    assert by_name(link_skills(folder))["review"].problem.code == linking.LINK_EXISTS
    assert os.readlink(folder / "review") == str(tmp_path / "nowhere")


def test_unlink_removes_exactly_what_link_created(packs, folder):
    (folder / "other").mkdir(parents=True)
    link_skills(folder)
    report = unlink_skills(folder)
    assert {e.name: (e.action, e.status) for e in report.entries} == {
        "plan": ("unlinked", "removed"),
        "review": ("unlinked", "removed"),
    }
    assert sorted(p.name for p in folder.iterdir()) == ["other"]  # manifest gone too
    assert (packs / "revpack" / "review" / "SKILL.md").read_text() == SKILL_MD  # the target is untouched


def test_unlink_keeps_a_link_the_user_repointed(packs, folder, tmp_path):
    link_skills(folder, ["review"])
    (folder / "review").unlink()
    os.symlink(tmp_path, folder / "review")
    [entry] = unlink_skills(folder).entries
    assert entry.problem.code == linking.LINK_MODIFIED
    assert os.readlink(folder / "review") == str(tmp_path)
    assert read_manifest(folder) == {}  # no longer ours


def test_copy_mode_copies_the_folder_and_records_hashes(packs, folder):
    [entry] = link_skills(folder, ["review"], copy=True).entries
    assert entry.action == "copied"
    assert not (folder / "review").is_symlink()
    assert (folder / "review" / "scripts" / "check.sh").read_text() == "echo ok\n"
    assert not (folder / "review" / "__pycache__").exists()
    assert set(read_manifest(folder)["review"]["files"]) == {"SKILL.md", "__init__.py", "scripts/check.sh"}
    assert link_skills(folder, ["review"], copy=True).entries[0].status == "unchanged"


def test_unlink_after_the_user_edited_a_copy_keeps_it(packs, folder):
    link_skills(folder, copy=True)
    (folder / "review" / "SKILL.md").write_text("edited\n")
    report = by_name(unlink_skills(folder))
    assert report["review"].action == "skipped"
    assert report["review"].problem.code == linking.LINK_MODIFIED
    assert (folder / "review" / "SKILL.md").read_text() == "edited\n"
    assert report["plan"].action == "removed"
    assert not (folder / "plan").exists()


def test_a_file_the_user_added_to_a_copy_counts_as_an_edit(packs, folder):
    link_skills(folder, ["review"], copy=True)
    (folder / "review" / "notes.md").write_text("mine\n")
    assert by_name(link_skills(folder, ["review"], copy=True))["review"].problem.code == linking.LINK_MODIFIED
    assert (folder / "review" / "notes.md").exists()
    assert unlink_skills(folder).entries[0].problem.code == linking.LINK_MODIFIED
    assert (folder / "review" / "notes.md").exists()


def test_a_failed_symlink_falls_back_to_a_copy(packs, folder, monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("symbolic links are not allowed here")

    monkeypatch.setattr(linking.os, "symlink", refuse)
    [entry] = link_skills(folder, ["review"]).entries
    assert entry.action == "copied"
    assert "not allowed" in entry.note
    assert (folder / "review" / "SKILL.md").read_text() == SKILL_MD


def test_a_skill_inside_a_zip_is_copied(fake_distributions, folder, tmp_path, monkeypatch):
    archive = tmp_path / "zpack.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("zpack/__init__.py", "")
        zf.writestr("zpack/skill/__init__.py", MODULE)
        zf.writestr("zpack/skill/SKILL.md", SKILL_MD.replace("review", "zipped"))
        zf.writestr("zpack/skill/refs/guide.md", "a guide\n")
    monkeypatch.syspath_prepend(str(archive))
    fake_distributions.install("zip-pack", entry_points={SKILLS_ENTRY_POINT_GROUP: {"zipped": "zpack.skill"}})
    fake_distributions.modules.append("zpack")
    [entry] = link_skills(folder).entries
    assert entry.action == "copied"
    assert (folder / "zipped" / "SKILL.md").read_text() == SKILL_MD.replace("review", "zipped")
    assert (folder / "zipped" / "refs" / "guide.md").read_text() == "a guide\n"
    assert unlink_skills(folder).entries[0].action == "removed"
    assert not (folder / "zipped").exists()


def test_a_link_whose_pack_moved_is_replaced_when_it_was_unchanged(packs, folder, tmp_path):
    link_skills(folder, ["review"])
    manifest = read_manifest(folder)
    old = tmp_path / "old-install"
    old.mkdir()
    (folder / "review").unlink()
    os.symlink(old, folder / "review")  # as if created by an earlier link from an older install
    manifest["review"]["target"] = str(old)
    linking.write_manifest(folder, manifest)
    [entry] = link_skills(folder, ["review"]).entries
    assert entry.status == "updated"
    assert os.readlink(folder / "review") == str((packs / "revpack" / "review").resolve())


def test_a_recorded_link_the_user_deleted_is_made_again(packs, folder):
    link_skills(folder, ["review"])
    (folder / "review").unlink()
    assert link_skills(folder, ["review"]).entries[0].status == "created"
    assert (folder / "review").is_symlink()


def test_unknown_names_bad_packs_and_mapping_only_packs_are_reported(fake_distributions, packs, folder):
    fake_distributions.install(
        "odd-pack",
        modules={"oddpack.broken": "raise ImportError('gone')\n", "oddpack.meta": "SKILL = {'description': 'x'}\n"},
        entry_points={SKILLS_ENTRY_POINT_GROUP: {"broken": "oddpack.broken", "meta": "oddpack.meta"}},
    )
    fake_distributions.modules.append("oddpack")
    report = link_skills(folder, ["meta", "nosuch", "review"])
    entries = by_name(report)
    assert entries["meta"].problem.code == linking.LINK_NO_SKILL_FILE
    assert entries["nosuch"].problem.code == linking.LINK_UNKNOWN_SKILL
    assert entries["review"].action == "linked"
    assert [p.code for p in report.problems] == ["PACK_LOAD_FAILED"]
    assert "gone" in report.problems[0].message


def test_skills_dir_scopes(tmp_path):
    assert skills_dir("project", tmp_path) == tmp_path.resolve() / ".claude" / "skills"
    assert skills_dir("global", env={"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}) == tmp_path / "cfg" / "skills"
    assert skills_dir("global", env={"HOME": str(tmp_path)}) == tmp_path / ".claude" / "skills"


# -- the command ----------------------------------------------------------------------------------


def test_cli_link_and_unlink_in_json(packs, swarm_cli, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    result = swarm_cli("skills", "link", "--cwd", str(project), "--format", "json")
    assert result.exit_code == 0, result.stderr
    data = result.json()
    assert data["operation"] == "link"
    assert data["scope"] == "project"
    assert [e["name"] for e in data["linked"]] == ["plan", "review"]
    assert data["copied"] == []
    assert data["skipped"] == []
    result = swarm_cli("skills", "unlink", "--cwd", str(project), "--format", "json")
    assert [e["name"] for e in result.json()["unlinked"]] == ["plan", "review"]
    assert not (project / ".claude" / "skills").exists() or not any((project / ".claude" / "skills").iterdir())


def test_cli_global_scope_uses_the_config_dir(packs, swarm_cli, tmp_path):
    cfg = tmp_path / "cfg"
    result = swarm_cli("skills", "link", "review", "--scope", "global", "--format", "yaml",
                       env={"CLAUDE_CONFIG_DIR": str(cfg)})  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "operation: link" in result.stdout
    assert (cfg / "skills" / "review").is_symlink()


def test_cli_text_reports_skipped_with_code_path_and_fix(packs, swarm_cli, tmp_path):
    mine = tmp_path / ".claude" / "skills" / "review"
    mine.mkdir(parents=True)
    result = swarm_cli("skills", "link", "--cwd", str(tmp_path))
    assert result.exit_code == 0
    assert "linked   plan" in result.stdout
    assert "skipped  review" in result.stdout
    assert f"{mine}: LINK_EXISTS" in result.stdout
    assert "fix:" in result.stdout


def test_cli_a_corrupt_manifest_stops_before_touching_anything(packs, swarm_cli, tmp_path):
    folder = tmp_path / ".claude" / "skills"
    folder.mkdir(parents=True)
    (folder / MANIFEST_NAME).write_text("{not json")
    for command in ("link", "unlink"):
        result = swarm_cli("skills", command, "--cwd", str(tmp_path), "--format", "json")
        assert result.exit_code == 1
        assert result.json()["error"]["code"] == linking.LINK_MANIFEST_INVALID
    assert sorted(p.name for p in folder.iterdir()) == [MANIFEST_NAME]


def test_cli_rejects_an_unknown_scope(swarm_cli, tmp_path):
    result = swarm_cli("skills", "link", "--scope", "galaxy", "--cwd", str(tmp_path), "--format", "json")
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"]["code"] == "USAGE"


def test_a_copy_that_cannot_be_written_is_reported_and_not_recorded(packs, folder, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(linking, "_write_copy", full)
    report = by_name(link_skills(folder, copy=True))
    assert {e.problem.code for e in report.values()} == {linking.LINK_FAILED}
    assert "No space left" in report["review"].problem.message
    assert read_manifest(folder) == {}


# -- the safety rules hold for any sequence of commands and user actions ----------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

NAMES = ("plan", "review")
ACTIONS = st.lists(
    st.one_of(
        st.tuples(st.just("link"), st.lists(st.sampled_from(NAMES), max_size=2), st.booleans()),
        st.tuples(st.just("unlink"), st.lists(st.sampled_from(NAMES), max_size=2), st.just(False)),
        st.tuples(st.sampled_from(["user-create", "user-edit", "user-delete"]), st.sampled_from(NAMES), st.just(False)),
    ),
    max_size=12,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(actions=ACTIONS)
def test_no_sequence_of_commands_loses_a_user_file_or_touches_the_pack(packs, tmp_path_factory, actions):
    folder = tmp_path_factory.mktemp("prop") / ".claude" / "skills"
    source = {p: p.read_bytes() for p in (packs / "revpack").rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    user_files: dict = {}
    for n, (action, arg, copy) in enumerate(actions):
        if action == "link":
            link_skills(folder, arg, copy=copy)
        elif action == "unlink":
            unlink_skills(folder, arg)
        else:
            dest = folder / arg
            if action == "user-create" and not os.path.lexists(dest):
                dest.mkdir(parents=True)
                user_files[dest / "USER.md"] = f"mine {n}"
            elif action == "user-edit" and dest.is_dir() and not dest.is_symlink():
                user_files[dest / f"EDIT-{n}.md"] = f"edit {n}"
            elif action == "user-delete" and os.path.lexists(dest):
                if dest.is_symlink():
                    dest.unlink()
                else:
                    shutil.rmtree(dest)
                user_files = {p: t for p, t in user_files.items() if dest not in p.parents}
            for path, text in user_files.items():
                if not path.exists():
                    path.write_text(text)
        for path, text in user_files.items():
            assert path.read_text() == text, f"{path} lost after {action} {arg}"
        for path, data in source.items():
            assert path.read_bytes() == data
    unlink_skills(folder)
    # What remains is the user's: nothing link created and nobody changed survives an unlink of all.
    for child in folder.iterdir() if folder.exists() else ():
        assert any(child in p.parents for p in user_files), child


def test_after_the_pack_goes_link_warns_and_unlink_removes_the_dangling_link(packs, folder, monkeypatch):
    link_skills(folder)
    monkeypatch.setenv("SWARM_HANDOFF_DISABLE_PACKS", "review")  # as if uninstalled
    (packs / "revpack" / "review").rename(packs / "revpack" / "moved")  # the link now dangles
    report = link_skills(folder)
    [stale] = report.problems
    assert stale.code == linking.LINK_STALE
    assert stale.hint == "swarm-handoff skills unlink review"
    assert [e.status for e in report.entries] == ["unchanged"]  # plan
    [entry] = unlink_skills(folder, ["review"]).entries
    assert entry.status == "removed"
    assert not os.path.lexists(folder / "review")


def test_a_skill_file_with_another_name_is_copied_as_skill_md(fake_distributions, folder):
    site = fake_distributions.install("named-pack", entry_points={SKILLS_ENTRY_POINT_GROUP: {"named": "namedpack"}})
    (site / "namedpack").mkdir()
    (site / "namedpack" / "review.md").write_text(SKILL_MD)
    (site / "namedpack" / "__init__.py").write_text(f"SKILL_MD = {str(site / 'namedpack' / 'review.md')!r}\n")
    fake_distributions.modules.append("namedpack")
    [entry] = link_skills(folder).entries
    assert entry.action == "copied"  # a link would show a folder without SKILL.md
    assert sorted(p.name for p in (folder / "named").iterdir()) == ["SKILL.md"]
    assert (folder / "named" / "SKILL.md").read_text() == SKILL_MD


@pytest.mark.skipif(os.name != "posix", reason="the manifest lock is an flock, POSIX only")
def test_a_second_run_waits_for_the_first_instead_of_losing_its_manifest_entries(packs, folder, monkeypatch):
    import threading

    from swarm_handoff_link.manifest import locked

    reading = threading.Event()
    real_read = linking.read_manifest

    def read(path):
        reading.set()
        return real_read(path)

    monkeypatch.setattr(linking, "read_manifest", read)
    folder.mkdir(parents=True)
    with locked(folder):  # another `skills link` is half-way through its read-change-write
        worker = threading.Thread(target=link_skills, args=(folder, ["plan"]))
        worker.start()
        assert not reading.wait(0.5)  # it waits: it has not even read the manifest yet
        linking.write_manifest(folder, {"mine": {"kind": "link", "target": "/elsewhere"}})  # the holder's write
    worker.join()
    assert reading.is_set()
    assert set(read_manifest(folder)) == {"mine", "plan"}  # neither run's entry was lost


def test_a_mistyped_name_fails_the_run_with_did_you_mean(packs, swarm_cli, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    result = swarm_cli("skills", "link", "reveiw", "plan", "--cwd", str(project), "--format", "json")
    assert result.exit_code == 1
    data = result.json()
    assert [e["name"] for e in data["linked"]] == ["plan"]  # the good name still acts
    assert data["skipped"][0]["hint"] == "did you mean: review?"
    result = swarm_cli("skills", "unlink", "pln", "--cwd", str(project), "--format", "json")
    assert result.exit_code == 1
    assert result.json()["skipped"][0]["hint"] == "did you mean: plan?"
    assert swarm_cli("skills", "unlink", "plan", "--cwd", str(project)).exit_code == 0


def test_link_into_a_folder_another_writer_holds_is_folder_busy(packs, tmp_path, swarm_cli, monkeypatch):
    import threading

    from swarm_handoff.api import locked

    monkeypatch.setenv("SWARM_HANDOFF_LOCK_TIMEOUT", "0")
    project = tmp_path / "project"
    skills = project / ".claude" / "skills"
    skills.mkdir(parents=True)
    results: list = []
    with locked(skills):
        worker = threading.Thread(
            target=lambda: results.append(swarm_cli("skills", "link", "--cwd", str(project), "--format", "json"))
        )
        worker.start()
        worker.join(120)
    assert results, "it waited forever"
    error = results[0].json()["error"]
    assert error["code"] == "FOLDER_BUSY"
    assert str(skills) in error["message"]
    assert list(skills.iterdir()) == []
