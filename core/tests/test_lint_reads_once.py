"""`lint` reads each SKILL.md's frontmatter once: the parse and the key line numbers share the bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from swarm_handoff import skillmd
from swarm_handoff.api import lint


def test_each_frontmatter_is_opened_and_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: A skill.\nextra: [a, b]\n---\n# {name}\n", encoding="utf-8"
        )
    opened: list[str] = []
    parsed: list[str] = []
    real_open, real_parse = skillmd.open_regular, skillmd.parse_frontmatter
    monkeypatch.setattr(skillmd, "open_regular", lambda path, **kw: opened.append(str(path)) or real_open(path, **kw))
    monkeypatch.setattr(skillmd, "parse_frontmatter", lambda raw, path: parsed.append(path) or real_parse(raw, path))
    import swarm_handoff.lint as lint_module

    monkeypatch.setattr(lint_module, "parse_frontmatter", skillmd.parse_frontmatter)
    report = lint([tmp_path])
    # The findings that need the text (line numbers) and the parse are both there...
    lines = {p.code: p.line for r in report.files for p in r.problems}
    assert lines["SPEC_UNKNOWN_FIELD"] == 4
    assert "SPEC_STRICT_YAML" in lines
    # ...from one open and one parse per file.
    assert sorted(opened) == sorted(str(tmp_path / n / "SKILL.md") for n in ("one", "two"))
    assert len(parsed) == 2
