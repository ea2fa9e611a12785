"""A parallel cold scan gives exactly the serial answer: same records, same order, same problems.

Each comparison runs in a fresh interpreter, because forking is only used by a single-threaded
process (pytest and its plugins may run threads), and the test checks that children really ran.
Nothing here is timed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from swarm_handoff import parallel

COMPARE = r"""
import json, os, sys
from swarm_handoff import parallel
from swarm_handoff.records import Scope
from swarm_handoff_frontmatter.scan import scan_folder

forks = []
real_fork = parallel._fork
def counting_fork(work, chunk):
    forks.append(len(chunk))
    return real_fork(work, chunk)
parallel._fork = counting_fork

def digest(result):
    return json.dumps([[r.to_data() for r in result.records], [p.to_data() for p in result.problems],
                       result.scanned], sort_keys=True, default=str)

serial = scan_folder(sys.argv[1], Scope.PROJECT, jobs=1)
assert not forks
both = scan_folder(sys.argv[1], Scope.PROJECT, jobs=int(sys.argv[2]), min_parallel=1)
print(json.dumps({"same": digest(serial) == digest(both), "forks": forks,
                  "records": len(serial.records), "problems": sum(len(r.problems) for r in serial.records)}))
"""


def _tree(root: Path) -> Path:
    skills = root / ".claude" / "skills"
    for i in range(23):
        folder = skills / f"s{i:02d}"
        folder.mkdir(parents=True)
        if i % 5 == 2:
            (folder / "SKILL.md").write_text(f"---\nname: s{i:02d}\ndescription: Use when: broken\n---\n")
        elif i % 7 == 3:
            continue  # no SKILL.md at all
        elif i % 6 == 4:
            (folder / "SKILL.md").write_text("no frontmatter here\n")
        else:
            (folder / "SKILL.md").write_text(
                f"---\nname: s{i:02d}\ndescription: Skill {i}\nhandoff:\n  accepts_handoff: true\n"
                f"  handoff_categories: [c{i % 3}]\n  handoff_description: does {i}\n---\n# body\n"
            )
    (skills / "zz-dangling").symlink_to(root / "nowhere")
    return skills


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="forking is POSIX-only (not macOS)")
@pytest.mark.parametrize("jobs", [2, 3])
def test_parallel_and_serial_scans_agree(tmp_path: Path, jobs: int) -> None:
    skills = _tree(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", COMPARE, str(skills), str(jobs)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert len(out["forks"]) == jobs - 1  # children really parsed part of the tree
    assert out["records"] == 24
    assert out["problems"] > 0
    assert out["same"]


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
