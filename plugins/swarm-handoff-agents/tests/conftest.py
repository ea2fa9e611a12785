"""A tmp world: a git repository with a package folder, a HOME and a Claude config folder."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

SKILL = """---
name: {name}
description: {text}
handoff:
  accepts_handoff: true
  handoff_categories: [review]
  handoff_description: {text}
---
# {name}
"""


def add_skill(folder: Path, name: str, text: str | None = None) -> Path:
    """Write `folder/name/SKILL.md` with an eligible hand-off block."""
    (folder / name).mkdir(parents=True, exist_ok=True)
    path = folder / name / "SKILL.md"
    path.write_text(SKILL.format(name=name, text=text or f"{name} text"))
    return path


def write_json(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def world(tmp_path: Path, make_swarm_host, trust_fresh_files) -> dict[str, object]:
    """`repo` (with `.git`) holding `repo/packages/app/src` as the working directory."""
    repo = tmp_path / "repo"
    repo.mkdir()
    # A real repository: the frontmatter source asks git for the root, these sources look for `.git`.
    subprocess.run(["git", "init", "-q", str(repo)], check=True, capture_output=True)
    cwd = repo / "packages" / "app" / "src"
    cwd.mkdir(parents=True)
    home = tmp_path / "home"
    home.mkdir()
    config = tmp_path / "config"
    config.mkdir()
    env = {
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(config),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "GIT_CEILING_DIRECTORIES": str(tmp_path),
    }
    host = make_swarm_host(["frontmatter", "agents"])
    return {"repo": repo, "cwd": cwd, "home": home, "config": config, "env": env, "host": host}


@pytest.fixture
def skill():
    """`skill(folder, name, text=None) -> SKILL.md path`."""
    return add_skill


@pytest.fixture
def jsonfile():
    """`jsonfile(path, data) -> path`."""
    return write_json
