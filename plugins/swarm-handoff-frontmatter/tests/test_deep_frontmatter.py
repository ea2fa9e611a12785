"""A SKILL.md whose frontmatter is nested too deep is one skill with a coded problem, in every format."""

from __future__ import annotations

import pytest

from swarm_handoff.testing import SkillTree


def block_list(depth: int) -> str:
    """A block sequence `depth` levels deep under `field:` (`- - - leaf`: block nesting on one line)."""
    return "field:\n  " + "- " * depth + "leaf\n"


@pytest.mark.parametrize("fmt", ["json", "yaml", "xml", "text"])
def test_discover_survives_a_skill_with_a_1000_deep_block_list(tmp_path, make_swarm_host, swarm_cli, fmt):
    make_swarm_host(["frontmatter", "formatters"])
    project = SkillTree(tmp_path / "project")
    project.add_handoff("good")
    project.add("deep", raw="---\nname: deep\ndescription: Deep.\n" + block_list(1000) + "---\n# deep\n")
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": "", "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    result = swarm_cli("discover", "--cwd", str(project.root), "--all", "--format", fmt, env=env)
    assert result.exit_code == 0, result.stderr
    assert "good" in result.stdout
    assert "YAML_TOO_DEEP" in result.stdout
    if fmt == "json":
        [deep] = [r for r in result.json()["ineligible"] if r["skill"] == "deep"]
        assert [p["code"] for p in deep["problems"]] == ["YAML_TOO_DEEP"]
