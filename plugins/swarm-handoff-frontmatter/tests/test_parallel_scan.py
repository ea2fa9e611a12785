"""A parallel cold scan gives exactly the serial answer: same records, same order, same problems.

The fork helper itself (`swarm_handoff.parallel`) is tested in core/tests/test_parallel.py.

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

COMPARE = r"""
import json, os, sys
from swarm_handoff import parallel  # a subprocess's script: patches the core's fork to count children
from swarm_handoff.api import Scope
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
