"""A tmp world: a git repository with a package folder, and the testing kit's `temp_home`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from swarm_handoff.testing import TempHome, write_skill


def write_json(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def world(tmp_path: Path, temp_home: TempHome, make_swarm_host, trust_fresh_files) -> dict[str, object]:
    """`repo` (with `.git`) holding `repo/packages/app/src` as the working directory."""
    repo = tmp_path / "repo"
    repo.mkdir()
    # A real repository: the frontmatter source asks git for the root, these sources look for `.git`.
    subprocess.run(["git", "init", "-q", str(repo)], check=True, capture_output=True)
    cwd = repo / "packages" / "app" / "src"
    cwd.mkdir(parents=True)
    host = make_swarm_host(["frontmatter", "agents"])
    return {
        "repo": repo,
        "cwd": cwd,
        "home": temp_home.home,
        "config": temp_home.config,
        "env": temp_home.env,
        "host": host,
    }


@pytest.fixture
def skill():
    """`skill(folder, name, text=None) -> SKILL.md path`."""
    return write_skill


@pytest.fixture
def jsonfile():
    """`jsonfile(path, data) -> path`."""
    return write_json
