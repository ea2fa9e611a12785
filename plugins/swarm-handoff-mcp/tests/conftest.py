"""Each test gets a world in tmp_path: two project skills, a session, a home of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from swarm_handoff.testing import SkillTree
from swarm_handoff_mcp.testing import World, make_world


@pytest.fixture
def world(tmp_path: Path) -> World:
    """Two project skills, a session with two perspectives, and HOME/CLAUDE_CONFIG_DIR/XDG_* in tmp."""
    return make_world(tmp_path, SkillTree(tmp_path / "project"))
