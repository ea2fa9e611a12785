"""`pip install ./core` and nothing else (but one skill pack): the minimal core runs the main job.

Issue 13, point 7: optional features are plugin distributions, so the core alone must still
discover, rank, hand off and verify, and a plugin's command must say which distribution adds it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_only_the_core_plugins_load(core_env):
    data = core_env.json("plugins")
    assert {p["distribution"] for p in data["plugins"]} == {"swarm-handoff-core"}
    assert data["failures"] == []


def test_the_core_alone_discovers_ranks_hands_off_and_verifies(core_env, tmp_path):
    session = tmp_path / "session"
    shutil.copytree(ROOT / "examples" / "session", session)
    synthesis = str(session / "synthesis.yaml")
    found = core_env.json("discover", cwd=tmp_path)
    assert [w["skill"] for w in found["workflows"]] == ["evidence-review"]
    ranked = core_env.json("rank", "--synthesis", synthesis, cwd=tmp_path)
    assert ranked["workflows"][0]["skill"] == "evidence-review"
    handed = core_env.json(
        "handoff", "evidence-review", "--synthesis", synthesis, "--session", str(session), cwd=tmp_path
    )
    verified = core_env.json("verify", handed["payload_path"], cwd=tmp_path)
    assert verified


def test_skills_link_without_its_plugin_says_what_to_install(core_env, tmp_path):
    result = core_env.run("skills", "link", "--format", "json", cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "COMMAND_NOT_INSTALLED"
    assert "swarm-handoff-link" in error["message"]
    assert not (Path(tmp_path) / ".claude").exists()
