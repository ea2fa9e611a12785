"""`lint` as Agent Skills conformance (skills-ref's rules, located) plus hand-off checks (issue 18)."""

from __future__ import annotations

from pathlib import Path

import pytest

from swarm_handoff.lint import lint
from swarm_handoff.lint_spec import key_lines
from swarm_handoff.skillmd import load_skill_md


def write(root: Path, name: str, text: str | bytes) -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def problems(path: Path, strict: bool = False) -> dict[str, tuple[str, int | None]]:
    report = lint([path], strict_spec=strict)
    return {p.code: (p.severity.value, p.line) for p in report.files[0].problems}


def test_unknown_top_level_field_is_a_located_warning(tmp_path: Path) -> None:
    path = write(tmp_path, "tool", "---\nname: tool\ndescription: Does things.\nversion: 1.0\n---\n")
    assert problems(path)["SPEC_UNKNOWN_FIELD"] == ("warning", 4)


def test_strict_spec_makes_spec_findings_errors(tmp_path: Path) -> None:
    path = write(tmp_path, "tool", "---\nname: tool\ndescription: Does things.\nversion: 1.0\n---\n")
    assert problems(path, strict=True)["SPEC_UNKNOWN_FIELD"] == ("error", 4)
    assert lint([path], strict_spec=True).errors == 1


def test_project_extensions_are_info_not_errors_unless_strict(tmp_path: Path) -> None:
    text = "---\nname: tool\ndescription: Does things.\ncategories: [research]\nhandoff:\n  accepts_from: ['*']\n---\n"
    path = write(tmp_path, "tool", text)
    report = lint([path])
    extensions = [p for p in report.files[0].problems if p.code == "SPEC_EXTENSION_FIELD"]
    assert [(p.severity.value, p.line) for p in extensions] == [("info", 4), ("info", 5)]
    assert report.errors == 0
    assert "SPEC_UNKNOWN_FIELD" not in problems(path)
    assert lint([path], strict_spec=True).errors >= 2


def test_spec_conformant_file_has_no_spec_findings(tmp_path: Path) -> None:
    text = (
        "---\nname: tool\ndescription: Does things.\nlicense: MIT\nallowed-tools: Read\n"
        "compatibility: Python 3.10+\nmetadata:\n  owner: me\n  handoff-categories: research\n---\n"
    )
    assert not [c for c in problems(write(tmp_path, "tool", text)) if c.startswith("SPEC_")]


def test_non_string_metadata_values_are_reported_on_their_line(tmp_path: Path) -> None:
    text = "---\nname: tool\ndescription: Does things.\nmetadata:\n  owner: me\n  version: 2\n  tags: [a, b]\n---\n"
    report = lint([write(tmp_path, "tool", text)])
    found = [(p.line, p.message) for p in report.files[0].problems if p.code == "SPEC_METADATA_VALUE"]
    assert [line for line, _ in found] == [6, 7]
    assert "a number" in found[0][1]
    assert "a list" in found[1][1]


def test_metadata_that_is_not_a_mapping(tmp_path: Path) -> None:
    path = write(tmp_path, "tool", "---\nname: tool\ndescription: Does things.\nmetadata: [a]\n---\n")
    assert problems(path)["SPEC_METADATA_NOT_MAPPING"] == ("warning", 4)


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("my-skill", True),
        ("café", True),  # skills-ref allows Unicode letters
        ("My-Skill", False),
        ("-edge", False),
        ("double--hyphen", False),
        ("under_score", False),
        ("a" * 65, False),
    ],
)
def test_name_rules_follow_skills_ref(tmp_path: Path, name: str, ok: bool) -> None:
    path = write(tmp_path, name if len(name) < 60 else "long", f'---\nname: "{name}"\ndescription: x\n---\n')
    assert ("SPEC_NAME_FORMAT" not in problems(path)) is ok


def test_name_must_match_folder_and_the_line_is_given(tmp_path: Path) -> None:
    path = write(tmp_path, "folder", "---\ndescription: x\nname: other\n---\n")
    assert problems(path)["SPEC_NAME_MISMATCH"] == ("warning", 3)


@pytest.mark.parametrize(("value", "kind"), [("123", "a number"), ("[a, b]", "a list"), ("true", "a boolean")])
def test_non_text_name_is_a_wrong_type_not_a_missing_field(tmp_path: Path, value: str, kind: str) -> None:
    found = lint([write(tmp_path, "tool", f"---\nname: {value}\ndescription: x\n---\n")]).files[0].problems
    codes = {p.code: p for p in found}
    assert "SPEC_NAME_MISSING" not in codes
    assert kind in codes["SPEC_NAME_TYPE"].message
    assert codes["SPEC_NAME_TYPE"].line == 2


def test_non_text_description_is_a_wrong_type(tmp_path: Path) -> None:
    path = write(tmp_path, "tool", "---\nname: tool\ndescription: [a, b]\n---\n")
    assert problems(path)["SPEC_DESCRIPTION_TYPE"] == ("warning", 3)
    assert "SPEC_DESCRIPTION_MISSING" not in problems(path)


def test_description_and_compatibility_lengths(tmp_path: Path) -> None:
    text = f"---\nname: tool\ndescription: {'d' * 1025}\ncompatibility: {'c' * 501}\n---\n"
    found = problems(write(tmp_path, "tool", text))
    assert found["SPEC_DESCRIPTION_LENGTH"] == ("warning", 3)
    assert found["SPEC_COMPATIBILITY"] == ("warning", 4)


@pytest.mark.parametrize("key", ["handoffs", "hand-off", "hand_off", "handof", "handoff_categories", "accepts_from"])
def test_handoff_typos_get_a_did_you_mean(tmp_path: Path, key: str) -> None:
    path = write(tmp_path, "tool", f"---\nname: tool\ndescription: x\n{key}: research\n---\n")
    report = lint([path])
    hint = next(p for p in report.files[0].problems if p.code == "HANDOFF_DID_YOU_MEAN")
    assert hint.line == 4
    assert "did you mean" in hint.message + (hint.hint or "")


def test_spec_kit_handoffs_list_is_a_known_extension_not_a_typo(tmp_path: Path) -> None:
    text = "---\nname: tool\ndescription: x\nhandoffs:\n  - label: Plan\n    agent: speckit.plan\n---\n"
    found = {p.code: p for p in lint([write(tmp_path, "tool", text)]).files[0].problems}
    assert "HANDOFF_DID_YOU_MEAN" not in found
    assert "spec-kit" in found["SPEC_EXTENSION_FIELD"].message
    assert found["SPEC_EXTENSION_FIELD"].line == 4


@pytest.mark.parametrize(
    ("key", "meant"), [("accepts_from", "accepts-from"), ("handoff_categories", "handoff-categories")]
)
def test_metadata_form_typos_get_a_did_you_mean(tmp_path: Path, key: str, meant: str) -> None:
    path = write(tmp_path, "tool", f"---\nname: tool\ndescription: x\nmetadata:\n  {key}: research\n---\n")
    hint = next(p for p in lint([path]).files[0].problems if p.code == "HANDOFF_DID_YOU_MEAN")
    assert meant in hint.message
    assert hint.line == 5


def test_metadata_form_key_at_top_level_points_under_metadata(tmp_path: Path) -> None:
    path = write(tmp_path, "tool", "---\nname: tool\ndescription: x\naccepts-from: '*'\n---\n")
    hint = next(p for p in lint([path]).files[0].problems if p.code == "HANDOFF_DID_YOU_MEAN")
    assert "metadata" in hint.message


def test_metadata_form_is_accepted_by_lint(tmp_path: Path) -> None:
    text = '---\nname: tool\ndescription: x\nmetadata:\n  accepts-from: "*"\n  handoff-categories: "review"\n---\n'
    record = lint([write(tmp_path, "tool", text)]).files[0]
    assert record.eligible
    assert [p.code for p in record.problems] == []


def test_lint_on_a_missing_path_says_it_does_not_exist(tmp_path: Path) -> None:
    report = lint([tmp_path / "nope"])
    problem = report.files[0].problems[0]
    assert problem.code == "LINT_PATH_MISSING"
    assert "add a SKILL.md" not in (problem.hint or "")


def test_lint_on_an_unexpanded_glob_says_so(tmp_path: Path) -> None:
    report = lint([tmp_path / "*" / "SKILL.md"])
    assert report.files[0].problems[0].code == "LINT_GLOB_UNEXPANDED"


def test_lint_on_a_skills_folder_checks_every_skill_inside(tmp_path: Path) -> None:
    write(tmp_path, "alpha", "---\nname: alpha\ndescription: x\n---\n")
    write(tmp_path, "beta", "---\nname: beta\ndescription: Use when: y\n---\n")
    (tmp_path / "notes").mkdir()
    report = lint([tmp_path])
    assert [f.name for f in report.files] == ["alpha", "beta"]
    assert report.errors == 1  # beta's unquoted colon; not one LINT_NOT_A_SKILL


def test_an_empty_folder_is_still_not_a_skill(tmp_path: Path) -> None:
    assert lint([tmp_path]).files[0].problems[0].code == "LINT_NOT_A_SKILL"


def test_frontmatter_after_leading_html_comment_has_its_own_code(tmp_path: Path) -> None:
    text = "<!-- generated: do not edit -->\n<!-- second -->\n---\nname: tool\ndescription: x\n---\nbody\n"
    front = load_skill_md(str(write(tmp_path, "tool", text)))
    assert front.data is None
    problem = front.problems[0]
    assert problem.code == "SKILL_FRONTMATTER_AFTER_COMMENT"
    assert "line 3" in problem.message
    assert "move the comment below" in (problem.hint or "")


def test_a_comment_without_frontmatter_after_it_is_still_no_frontmatter(tmp_path: Path) -> None:
    front = load_skill_md(str(write(tmp_path, "tool", "<!-- a note -->\n# Title\n")))
    assert front.problems[0].code == "SKILL_NO_FRONTMATTER"


@pytest.mark.parametrize(
    ("encoding", "label"), [("utf-16", "UTF-16 LE"), ("utf-16-be", "UTF-16 BE"), ("utf-32", "UTF-32 LE")]
)
def test_utf16_and_utf32_are_encoding_errors(tmp_path: Path, encoding: str, label: str) -> None:
    text = "---\nname: tool\ndescription: x\n---\n"
    raw = text.encode(encoding)
    if encoding == "utf-16-be":
        raw = b"\xfe\xff" + raw
    front = load_skill_md(str(write(tmp_path, "tool", raw)))
    assert front.problems[0].code == "NOT_UTF8"
    assert label in front.problems[0].message


def test_key_lines_reads_top_level_and_metadata_keys() -> None:
    top, meta = key_lines("name: a\n# note\nmetadata:\n  x: '1'\n  y:\n    z: 2\nlicense: MIT\n")
    assert top == {"name": 2, "metadata": 4, "license": 8}
    assert meta == {"x": 5, "y": 6}


def test_strict_spec_cli_flag_exits_1(skill_tree, swarm_cli, swarm_host) -> None:  # type: ignore[no-untyped-def]
    path = skill_tree.add("tool", {"name": "tool", "description": "x", "version": "1"})
    assert swarm_cli("lint", str(path)).exit_code == 0
    assert swarm_cli("lint", "--strict-spec", str(path)).exit_code == 1
