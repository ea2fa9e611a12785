"""The distribution installs from its own folder into a fresh environment and shows in `plugins`."""

from __future__ import annotations

import json
import os
import subprocess
import venv
from pathlib import Path

import pytest

PLUGIN = Path(__file__).resolve().parents[1]
CORE = PLUGIN.parents[1] / "core"


@pytest.mark.e2e
def test_a_regular_install_registers_the_bm25_scorer(tmp_path):
    if not (CORE / "pyproject.toml").exists():
        pytest.skip("needs the repository checkout (core/ next to plugins/)")
    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", str(CORE), str(PLUGIN)], capture_output=True, text=True
    )
    if install.returncode != 0:
        pytest.skip(f"cannot install here (no package index?): {install.stderr[-500:]}")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SWARM_HANDOFF_")}
    listed = subprocess.run(
        [str(bindir / "swarm-handoff"), "plugins", "--format", "json"], capture_output=True, text=True, env=env
    )
    assert listed.returncode == 0, listed.stderr
    plugins = {p["name"]: p for p in json.loads(listed.stdout)["plugins"]}
    assert plugins["bm25"]["distribution"] == "swarm-handoff-bm25"
    assert plugins["bm25"]["components"][0]["name"] == "bm25"
