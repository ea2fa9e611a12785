"""The testing kit's `temp_home` and `write_skill`: a home of the test's own and an eligible skill anywhere."""

from __future__ import annotations

import os
from pathlib import Path

from swarm_handoff.api import load_skill_md, record_from_frontmatter
from swarm_handoff.testing import TempHome, write_skill


def test_temp_home_is_the_tests_own_and_leaves_the_environment_alone(temp_home: TempHome, tmp_path: Path) -> None:
    before = dict(os.environ)
    assert temp_home.home.is_dir()
    assert temp_home.config.is_dir()
    assert all(Path(value).is_relative_to(tmp_path) for value in temp_home.env.values())
    assert temp_home.env["CLAUDE_CONFIG_DIR"] == str(temp_home.config)
    assert dict(os.environ) == before


def test_write_skill_writes_an_eligible_skill(tmp_path: Path) -> None:
    path = write_skill(tmp_path / "skills", "review", "Reviews the change.")
    assert path == tmp_path / "skills" / "review" / "SKILL.md"
    front = load_skill_md(str(path))
    record = record_from_frontmatter(front.data, name="review", scope="project", source="t", path=str(path))
    assert (front.problems, record.eligible, record.description) == ((), True, "Reviews the change.")
    assert record.categories == ("review",)
