"""`lint`: hand-off rule errors exit 1; Agent Skills spec conformance is reported as warnings."""

from __future__ import annotations

from swarm_handoff.lint import lint


def test_a_clean_skill_folder_and_a_file_pass(skill_tree, swarm_cli, swarm_host):
    folder = skill_tree.add_handoff("good-skill").parent
    out = swarm_cli("lint", str(folder), str(folder / "SKILL.md"), "-f", "json")
    assert out.exit_code == 0
    data = out.json()
    assert (data["errors"], data["warnings"]) == (0, 0)
    assert [f["eligible"] for f in data["files"]] == [True, True]


def test_errors_exit_1_and_spec_warnings_do_not(skill_tree, swarm_cli, swarm_host):
    broken = skill_tree.add("broken", raw="---\nname: broken\ndescription: Use when: x\n---\n")
    odd = skill_tree.add("odd", {"name": "Odd_Name", "description": "x" * 1025})
    warned = swarm_cli("lint", str(odd), "-f", "json")
    assert warned.exit_code == 0
    codes = {p["code"] for p in warned.json()["files"][0]["problems"]}
    assert {"SPEC_NAME_FORMAT", "SPEC_NAME_MISMATCH", "SPEC_DESCRIPTION_LENGTH"} <= codes
    failed = swarm_cli("lint", str(broken), str(odd))
    assert failed.exit_code == 1
    assert "3:22: error SKILL_UNQUOTED_COLON" in failed.stdout


def test_handoff_rule_violations_are_errors(skill_tree):
    path = skill_tree.add("half", {"handoff": {"accepts_handoff": True}})
    report = lint([path])
    assert report.errors == 1
    # The top-level `handoff:` is also reported, as info, as outside the Agent Skills spec (issue 18).
    assert [p.code for p in report.files[0].problems if p.severity == "error"] == ["HANDOFF_NO_CATEGORIES"]


def test_a_folder_without_skill_md_is_an_error(tmp_path):
    report = lint([tmp_path])
    assert report.errors == 1
    assert report.files[0].problems[0].code == "LINT_NOT_A_SKILL"
