"""Issue 26, point 10: every convention the skills-system seed names is packaged, in our own words."""

from __future__ import annotations

import pytest

from swarm_handoff.workflow import SessionResources

# The universal conventions skills-system.md names ("Resources as authoritative sources").
SEED_CONVENTIONS = ("structural", "temporal", "severity", "intent-markers", "documentation", "diff-format")


@pytest.mark.parametrize("name", SEED_CONVENTIONS)
def test_every_convention_the_seed_names_is_packaged(tmp_path, name):
    found = SessionResources(tmp_path).convention(name)
    assert found.source == "package"
    assert found.name == f"convention:{name}"
    lines = found.text.splitlines()
    assert lines[0].startswith("# ")
    assert len(lines) > 5


def test_a_project_copy_overrides_any_of_them(tmp_path):
    folder = tmp_path / ".claude" / "conventions"
    folder.mkdir(parents=True)
    (folder / "diff-format.md").write_text("# Ours\n")
    assert SessionResources(tmp_path).convention("diff-format").text == "# Ours\n"
