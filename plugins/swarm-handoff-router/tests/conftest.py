"""The router's tests keep their analysis memo in a folder of their own, never the user's cache; and the
three-skill project that `route()` and `swarm-handoff route` are tried on."""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest


@pytest.fixture(autouse=True)
def own_cache(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.delenv("SWARM_HANDOFF_NO_CACHE", raising=False)
    return cache


HOUR_AGO = time.time() - 3600
HANDOFF = """handoff:
  accepts_handoff: true
  handoff_categories: [analysis]
  handoff_description: "Structured reasoning to a decision"
  handoff_trigger: "--handoff {payload_path}"
  requires:
    - context.original_prompt
"""


def write_skill(root: Path, name: str, description: str, extra: str = "") -> None:
    """A project skill's SKILL.md, an hour old (settled, as discovery's caches expect)."""
    path = root / ".claude" / "skills" / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n{extra}---\n# {name}\n", encoding="utf-8")
    os.utime(path, (HOUR_AGO, HOUR_AGO))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project of three skills (one accepts hand-offs), with HOME in `tmp_path`."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = tmp_path / "project"
    write_skill(root, "pdf-filler", "Fill in PDF forms from a spreadsheet of answers")
    write_skill(root, "regex-helper", "Write and test a regular expression for log lines")
    write_skill(root, "decision-helper", "Weigh the options of a hard decision step by step", HANDOFF)
    return root


BENCH_DIR = Path(__file__).resolve().parents[3] / "bench"


def load_bench_script(name: str) -> ModuleType:
    """A script of bench/ loaded as a module (bench/ is no package), to test the functions it holds."""
    spec = importlib.util.spec_from_file_location(name, BENCH_DIR / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def bench_script() -> Callable[[str], ModuleType]:
    """Any script of bench/, loaded as a module when called with its name."""
    return load_bench_script


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    """bench/bench_routing.py, loaded once per test module."""
    return load_bench_script("bench_routing")


@pytest.fixture(scope="module")
def trainer() -> ModuleType:
    """bench/train_rerank.py, loaded once per test module."""
    return load_bench_script("train_rerank")
