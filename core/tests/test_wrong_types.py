"""Issue 18: a `name` or `description` YAML reads as another type is a wrong type, reported once, everywhere."""

from __future__ import annotations

import pytest

from swarm_handoff.lint import lint


@pytest.mark.parametrize(
    ("field", "value", "code"),
    [
        ("name", "123", "SPEC_NAME_TYPE"),
        ("name", "[a, b]", "SPEC_NAME_TYPE"),
        ("name", "true", "SPEC_NAME_TYPE"),
        ("name", "null", "SPEC_NAME_TYPE"),
        ("description", "{a: 1}", "SPEC_DESCRIPTION_TYPE"),
        ("description", "42", "SPEC_DESCRIPTION_TYPE"),
    ],
)
def test_lint_reports_a_wrong_type_once_with_its_line_and_never_as_missing(tmp_path, field, value, code):
    folder = tmp_path / "tool"
    folder.mkdir()
    other = "description: x" if field == "name" else "name: tool"
    (folder / "SKILL.md").write_text(f"---\n{field}: {value}\n{other}\n---\n", encoding="utf-8")
    found = [p for p in lint([folder]).files[0].problems if p.code.startswith("SPEC_")]
    codes = [p.code for p in found]
    assert codes.count(code) == 1
    assert "SPEC_NAME_MISSING" not in codes
    assert "SPEC_DESCRIPTION_MISSING" not in codes
    [problem] = [p for p in found if p.code == code]
    assert problem.line == 2
    assert "must be text" in problem.message
