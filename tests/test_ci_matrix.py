"""The default nox run (what CI runs) proves what the matrix must prove, without running a suite twice.

Every supported Python runs the core's suite and every plugin's suite; the top-level `tests/` runs
on the oldest and the newest; regular and editable installs are both exercised; lint, typecheck,
stress, e2e, docs and minimums are in the run. No suite runs twice on one Python (`all` already
holds the core's and every plugin's suite): that repetition is what took CI near its time limit.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

nox = pytest.importorskip("nox", reason="needs nox (`pip install nox`; the `all` sessions install it)")

ROOT = Path(__file__).resolve().parents[1]
ALWAYS = {"lint", "typecheck", "stress", "e2e", "docs", "minimums"}


@pytest.fixture(scope="module")
def noxfile() -> ModuleType:
    """The noxfile as a module, for the names it computes (distributions, Pythons, editable ones)."""
    spec = importlib.util.spec_from_file_location("swarm_noxfile", ROOT / "noxfile.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def default_run() -> list[dict[str, Any]]:
    """The sessions `nox` runs with no `-s`, as nox itself lists them."""
    env = {k: v for k, v in os.environ.items() if k != "CI"}  # CI would make a missing Python an error
    listed = subprocess.run(
        [sys.executable, "-m", "nox", "--list", "--json", "-f", str(ROOT / "noxfile.py")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    assert listed.returncode == 0, listed.stderr
    sessions: list[dict[str, Any]] = json.loads(listed.stdout)
    return sessions


def _suites(session: dict[str, Any], extensions: list[str]) -> list[str]:
    """The suites a session runs: `all` runs every one, `core` the core's, `plugin` its plugin's."""
    if session["name"] == "all":
        return ["core", *extensions, "tests"]
    if session["name"] == "core":
        return ["core"]
    if session["name"] == "plugin":
        return [session["call_spec"]["path"]]
    return []


def test_every_python_runs_the_core_and_every_plugin_suite(default_run, noxfile):
    for python in noxfile.PYTHONS:
        sessions = [session for session in default_run if session["python"] == python]
        ran = {suite for session in sessions for suite in _suites(session, noxfile.EXTENSIONS)}
        missing = {"core", *noxfile.EXTENSIONS} - ran
        assert not missing, f"Python {python} never runs {sorted(missing)}"


def test_the_top_level_tests_run_on_the_oldest_and_the_newest_python(default_run, noxfile):
    ran = {session["python"] for session in default_run if "tests" in _suites(session, noxfile.EXTENSIONS)}
    assert {noxfile.PYTHONS[0], noxfile.PYTHONS[-1]} <= ran


def test_no_suite_runs_twice_on_one_python(default_run, noxfile):
    runs = Counter(
        (session["python"], suite) for session in default_run for suite in _suites(session, noxfile.EXTENSIONS)
    )
    twice = sorted(key for key, count in runs.items() if count > 1)
    assert not twice, f"(python, suite) run more than once: {twice}"


def test_regular_and_editable_installs_are_both_exercised(default_run, noxfile):
    for name in ("all", "core", "plugin"):
        kinds = {session["python"] in noxfile.EDITABLE for session in default_run if session["name"] == name}
        assert kinds == {True, False}, f"{name} runs only {'editable' if True in kinds else 'regular'} installs"


def test_the_checks_beside_the_suites_stay_in_the_default_run(default_run):
    missing = ALWAYS - {session["name"] for session in default_run}
    assert not missing, f"not in the default run: {sorted(missing)}"
