"""Installable anywhere: wheels of every released distribution, installed with `--find-links` only.

The lines run here are read from the docs (docs/development.md, "Installing from wheels", and the
skill-pack tutorial), so the documented commands are the tested ones.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RELEASED = [
    "core",
    *(str(p.parent.relative_to(ROOT)) for p in sorted(ROOT.glob("plugins/*/pyproject.toml"))),
    *(str(p.parent.relative_to(ROOT)) for p in sorted(ROOT.glob("skills-examples/*/pyproject.toml"))),
    ".",
]
PLACEHOLDER = "/path/to/swarm-handoff/dist"
BLOCK = re.compile(r"```console\n(?P<body>.*?)^```", re.S | re.M)


def documented(page: str, needle: str) -> str:
    """The commands of the console block of `page` that contains `needle` (`$ ` prompts removed)."""
    (body,) = [m["body"] for m in BLOCK.finditer((ROOT / page).read_text(encoding="utf-8")) if needle in m["body"]]
    return "".join(line.removeprefix("$ ") + "\n" for line in body.splitlines())


def shell(script: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """Run `script` in bash as a user with a fresh HOME would, outside any virtual environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_", "PYTEST_"))}
    env.pop("VIRTUAL_ENV", None)
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
    result = subprocess.run(
        ["bash", "-c", "set -euo pipefail\n" + script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=900,
    )
    assert result.returncode == 0, f"{script}\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A `dist/` folder with a wheel of every released distribution, as `nox -s build` makes it."""
    base = tmp_path_factory.mktemp("wheels")
    builder = base / "builder"
    venv.EnvBuilder(with_pip=True).create(builder)
    out = base / "dist"
    folders = [str(ROOT / f) for f in RELEASED]
    result = subprocess.run(
        [str(builder / "bin" / "python"), "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), *folders],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def test_every_released_distribution_has_a_wheel(wheelhouse: Path) -> None:
    names = {p.name.split("-")[0] for p in wheelhouse.glob("*.whl")}
    assert {"swarm_handoff", "swarm_handoff_core", "swarm_pack_research"} <= names
    assert len(names) == len(RELEASED)


def test_the_documented_find_links_install_works_in_a_fresh_venv(wheelhouse: Path, tmp_path: Path) -> None:
    """docs/development.md's lines, as written: `dist` is the wheel folder, `~` a fresh HOME."""
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "clone"
    work.mkdir()
    (work / "dist").symlink_to(wheelhouse, target_is_directory=True)
    result = shell(documented("docs/development.md", "--find-links dist swarm-handoff"), work, home)
    assert "swarm-handoff 0.1.0" in result.stdout
    assert "evidence-review" in result.stdout  # `discover` found the pack installed from the wheel


def test_the_tutorial_install_and_test_lines_work(wheelhouse: Path, tmp_path: Path) -> None:
    """The skill-pack tutorial's sections 6 and 7, from a copy of the pack's folder."""
    home = tmp_path / "home"
    home.mkdir()
    pack = tmp_path / "swarm-pack-research"
    source = ROOT / "skills-examples" / "swarm-pack-research"
    shutil.copytree(source, pack, ignore=shutil.ignore_patterns("__pycache__", ".venv"))
    for needle in ("-e '.[test]'", "discover --scope installed"):
        script = documented("docs/tutorial-skill-pack.md", needle).replace(PLACEHOLDER, str(wheelhouse))
        result = shell(script, pack, home)
    assert "evidence-review" in result.stdout
