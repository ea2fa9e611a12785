"""Real virtual environments with plain (non-editable) installs, driven through the executable.

These tests are marked `e2e`: they build wheels and install them, which takes a minute or two.
Deselect them locally with `-m "not e2e"`; the nox session `e2e` runs them (once, on one Python).
"""

from __future__ import annotations

import json
import os
import subprocess
import venv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESEARCH_PACK = "skills-examples/swarm-pack-research"
IMPLEMENTATION_PACK = "skills-examples/swarm-pack-implementation"
DEFAULTS = ("frontmatter", "registry", "formatters", "qr", "link", "router")  # the meta-distribution's plugins
CORE_AND_DEFAULTS = ["core", *(f"plugins/swarm-handoff-{p}" for p in DEFAULTS)]


class Env:
    """One virtual environment: install local distributions, run its `swarm-handoff`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.bin = path / ("Scripts" if os.name == "nt" else "bin")
        self.home = path.parent / "home"
        self.home.mkdir(exist_ok=True)
        self.launcher: list[str] = []  # e.g. [python, "-X", "importtime"] to run the script through it

    def pip(self, *args: str) -> None:
        """Run pip in the environment, failing the test with pip's output if it fails."""
        result = subprocess.run(
            [str(self.bin / "python"), "-m", "pip", "--disable-pip-version-check", *args],
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stdout + result.stderr

    def install_throwaway(self, folder: Path, name: str, group: str, entry: str, init: str) -> None:
        """Build and pip-install a one-module distribution `name` declaring `entry` in `group`."""
        package = name.replace("-", "_")
        (folder / "src" / package).mkdir(parents=True)
        (folder / "src" / package / "__init__.py").write_text(init)
        (folder / "pyproject.toml").write_text(
            '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'
            f'[project]\nname = "{name}"\nversion = "0.0.1"\n'
            f'[project.entry-points."{group}"]\n{entry}\n'
            f'[tool.hatch.build.targets.wheel]\npackages = ["src/{package}"]\n'
        )
        self.pip("install", "--quiet", str(folder))

    def install(self, *folders: str) -> None:
        """Install distributions from their repository folders, as users would (not editable)."""
        self.pip("install", "--quiet", *(str(ROOT / f) for f in folders))

    def run(
        self, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run `swarm-handoff ARGS` in a clean environment whose HOME is a fresh folder."""
        base = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_"))}
        base.update(HOME=str(self.home), XDG_CACHE_HOME=str(self.home / ".cache"), **(env or {}))
        return subprocess.run(
            [*self.launcher, str(self.bin / "swarm-handoff"), *args],
            capture_output=True,
            text=True,
            cwd=cwd or self.home,
            env=base,
        )

    def json(self, *args: str, **kwargs: Any) -> Any:
        """Run a command with `--format json` and parse its one document."""
        result = self.run(*args, "--format", "json", **kwargs)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)


@pytest.fixture(scope="session")
def e2e_env(tmp_path_factory: pytest.TempPathFactory) -> Env:
    """A venv with the core, the default plugins and the research and implementation packs, from the repo.

    One build for the whole session keeps CI fast; a test that uninstalls something reinstalls it.
    """
    path = tmp_path_factory.mktemp("e2e") / "venv"
    venv.EnvBuilder(with_pip=True).create(path)
    env = Env(path)
    env.install(*CORE_AND_DEFAULTS, RESEARCH_PACK, IMPLEMENTATION_PACK)
    return env


@pytest.fixture(scope="session")
def core_env(tmp_path_factory: pytest.TempPathFactory) -> Env:
    """A venv with the core alone and the research pack (a pack needs no plugin: packs are a built-in source)."""
    path = tmp_path_factory.mktemp("core-alone") / "venv"
    venv.EnvBuilder(with_pip=True).create(path)
    env = Env(path)
    env.install("core", RESEARCH_PACK)
    return env


def pytest_collection_modifyitems(items: Sequence[pytest.Item]) -> None:
    """Mark every test in this folder `e2e`, so one `-m "not e2e"` skips them all."""
    for item in items:
        if Path(str(item.fspath)).is_relative_to(Path(__file__).parent):
            item.add_marker(pytest.mark.e2e)
