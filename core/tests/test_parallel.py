"""The fork helper: a child that fails or is killed costs time, never results; jobs follow the environment.

Moved from the frontmatter plugin's tests, which now reach this helper only through `swarm_handoff.api`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from swarm_handoff import parallel


def test_a_failing_child_costs_time_not_results(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "can_fork", lambda: True)
    monkeypatch.setattr(parallel, "_fork", lambda work, chunk: (None, -1, chunk))  # no child could start
    assert parallel.map_chunks(lambda xs: [x * 2 for x in xs], list(range(10)), 3) == [x * 2 for x in range(10)]


@pytest.mark.parametrize(("value", "expected"), [("1", 1), ("4", 4), ("0", 1), ("-3", 1), ("many", 1), (" 2 ", 2)])
def test_jobs_from_the_environment(value: str, expected: int) -> None:
    assert parallel.jobs_from({parallel.ENV_JOBS: value}) == expected


def test_jobs_default_to_the_idle_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "usable_cpus", lambda: 4)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.2, 0.0, 0.0))
    assert parallel.jobs_from({}) == 4
    monkeypatch.setattr(os, "getloadavg", lambda: (2.5, 0.0, 0.0))  # two cores busy elsewhere
    assert parallel.jobs_from({}) == 2
    monkeypatch.setattr(os, "getloadavg", lambda: (9.0, 0.0, 0.0))  # a saturated machine: serial
    assert parallel.jobs_from({}) == 1
    assert parallel.jobs_from({parallel.ENV_JOBS: "3"}) == 3  # an explicit number is obeyed


CRASH = r"""
import json, os
from swarm_handoff import parallel
parent = os.getpid()
def work(xs):
    if os.getpid() != parent:
        os.kill(os.getpid(), 9)  # a child killed mid-way (out of memory, say)
    return [x + 1 for x in xs]
print(json.dumps(parallel.map_chunks(work, list(range(7)), 3)))
"""


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="forking is POSIX-only (not macOS)")
def test_a_killed_child_costs_time_not_results() -> None:
    done = subprocess.run([sys.executable, "-c", CRASH], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [x + 1 for x in range(7)]


def test_a_number_of_jobs_above_the_cap_is_capped_with_a_warning_naming_the_variable(capsys):
    """`SWARM_HANDOFF_JOBS=100000` would fork that many children (a pipe each): capped, and said once."""
    parallel._warned_jobs.clear()
    assert parallel.jobs_from({parallel.ENV_JOBS: str(parallel.MAX_SET_JOBS)}) == parallel.MAX_SET_JOBS
    assert capsys.readouterr().err == ""
    assert parallel.jobs_from({parallel.ENV_JOBS: "100000"}) == parallel.MAX_SET_JOBS
    assert parallel.jobs_from({parallel.ENV_JOBS: "100000"}) == parallel.MAX_SET_JOBS
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"SWARM_HANDOFF_JOBS=100000 is more than {parallel.MAX_SET_JOBS}" in err
    assert parallel.jobs_from({parallel.ENV_JOBS: "9" * 5000}) == parallel.MAX_SET_JOBS  # no int() of a huge text
    assert len(capsys.readouterr().err) < 300
