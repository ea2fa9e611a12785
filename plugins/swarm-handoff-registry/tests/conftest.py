"""The world a registry test runs in: its own config folder, home and session, no cache."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from swarm_handoff.api import PluginHost

SYNTHESIS = "original_prompt: Expand?\nproblem_type: strategic\nsynthesis_summary: Risky.\n"


@pytest.fixture
def registry_world(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_swarm_host: Callable[..., PluginHost]
) -> dict[str, Any]:
    """Frontmatter and registry plugins, a config folder, a session and a synthesis, in `tmp_path`."""
    make_swarm_host(["frontmatter", "registry"])
    (tmp_path / "session").mkdir()
    (tmp_path / "synthesis.yaml").write_text(SYNTHESIS)
    env = {
        "CLAUDE_CONFIG_DIR": str(tmp_path / "config"),
        "HOME": str(tmp_path / "home"),
        "GIT_CEILING_DIRECTORIES": str(tmp_path),
        "SWARM_HANDOFF_NO_CACHE": "1",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return {"config": tmp_path / "config", "tmp": tmp_path, "env": env}
