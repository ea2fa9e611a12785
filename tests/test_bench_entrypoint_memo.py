"""bench/bench_entrypoint_memo.py times only commands that succeeded: a failure is no figure."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "bench_entrypoint_memo.py"


def load() -> ModuleType:
    """The script as a module (bench/ is no package)."""
    spec = importlib.util.spec_from_file_location("bench_entrypoint_memo", BENCH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_command_that_fails_stops_the_cpu_measure_naming_it() -> None:
    bench = load()
    failing = [sys.executable, "-c", "raise SystemExit(3)"]
    with pytest.raises(SystemExit) as stopped:
        bench.cpu_ms(failing, dict(os.environ), 1)
    assert "raise SystemExit(3)" in str(stopped.value)
    assert "failed (3)" in str(stopped.value)


def test_a_command_that_succeeds_gives_a_cpu_figure() -> None:
    assert load().cpu_ms([sys.executable, "-c", "pass"], dict(os.environ), 1) >= 0
