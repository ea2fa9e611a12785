"""Many real `swarm-handoff` processes at once into one session and one history: nothing is lost.

Each test starts its processes, lets every one of them finish importing, then releases them all
at the same moment (a "go" file), so their writes really overlap. Figures (for docs/security.md):
50 v2.0 and 50 v3.0 hand-offs into one session, 60 `ack`s on 11 payloads at once (ten of them
on a payload the history never saw), and 10 `skills link` then 10 `skills unlink` into one project.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from swarm_handoff.payload.io import load_payload_file
from swarm_handoff.payload.verify import verify_file
from swarm_handoff.testing import SkillTree

pytestmark = [
    pytest.mark.stress,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes and file semantics"),
]

RUNS = 50
# Import everything first, wait for the go file, then run the command exactly as the console script does.
LAUNCH = """
import os, sys, time
from swarm_handoff.cli.entry import main
import swarm_handoff.cli.app, swarm_handoff.payload.lifecycle, swarm_handoff.history  # noqa: F401
go = sys.argv[1]
open(go + "." + str(os.getpid()), "w").close()  # ready
while not os.path.exists(go):
    time.sleep(0.005)
sys.argv = ["swarm-handoff", *sys.argv[2:]]
main()
"""
SYNTHESIS = {
    "original_prompt": "Should we expand into Europe?",
    "problem_type": "strategic",
    "synthesis_summary": "Regulation is the main risk.",
    "convergence_level": "medium",
}


@pytest.fixture(scope="module")
def pycache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One bytecode cache for every process of the suite: each would otherwise compile every import."""
    return tmp_path_factory.mktemp("pycache")


@pytest.fixture
def world(tmp_path: Path, pycache: Path) -> dict[str, object]:
    """A project with one skill accepting hand-offs, a session, syntheses, and an isolated environment."""
    tree = SkillTree(tmp_path / "project")
    tree.add_handoff("summarise", categories=("writing",))
    session = tmp_path / "session"
    (session / "perspectives").mkdir(parents=True)
    (session / "perspectives" / "optimist.md").write_text("optimist")
    small = tmp_path / "synthesis.json"
    small.write_text(json.dumps(SYNTHESIS))
    # Big enough that every v3.0 payload moves its session tier into a side file of its own.
    many = [{"theme": f"theme {i} " + "detail " * 20, "confidence_score": 5} for i in range(60)]
    big = tmp_path / "big-synthesis.json"
    big.write_text(json.dumps({**SYNTHESIS, "insights": {"convergent": many}}))
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "signals").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_", "XDG_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(
        HOME=str(home),
        CLAUDE_CONFIG_DIR=str(tmp_path / "config"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg-config"),
        PYTHONPYCACHEPREFIX=str(pycache),
    )
    return {
        "project": tree.root,
        "session": session,
        "small": small,
        "big": big,
        "config": tmp_path / "config",
        "env": env,
        "go": tmp_path / "signals" / "go",
    }


def _go_file(world: dict[str, object]) -> Path:
    go = Path(str(world["go"]))
    go.unlink(missing_ok=True)
    for marker in go.parent.glob(go.name + ".*"):
        marker.unlink()
    return go


def storm(world: dict[str, object], commands: Sequence[Sequence[str]]) -> list[subprocess.CompletedProcess[str]]:
    """Start one process per command, release them together, and collect what each printed."""
    go = _go_file(world)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", LAUNCH, str(go), *command],
            cwd=str(world["project"]),
            env=dict(world["env"]),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for command in commands
    ]
    deadline = time.monotonic() + 240  # a safety net only: normally every process is ready in seconds
    while time.monotonic() < deadline and any(p.poll() is None for p in procs):
        ready = {int(m.name.rsplit(".", 1)[1]) for m in go.parent.glob(go.name + ".*")}
        if all(p.pid in ready or p.poll() is not None for p in procs):
            break
        time.sleep(0.02)
    go.touch()  # every process is past its imports: release them all at once
    done = []
    for proc, command in zip(procs, commands, strict=True):
        out, err = proc.communicate(timeout=300)
        done.append(subprocess.CompletedProcess([*command], proc.returncode, out, err))
    return done


def handoffs(
    world: dict[str, object], schema: str, synthesis: str, runs: int = RUNS
) -> list[subprocess.CompletedProcess[str]]:
    """Run `runs` hand-offs at once into the one session; run i says `--reason run-i`."""
    base = ["handoff", "summarise", "--session", str(world["session"]), "--schema", schema, "--format", "json"]
    return storm(world, [[*base, "--synthesis", str(world[synthesis]), "--reason", f"run-{i}"] for i in range(runs)])


def history_rows(config: object) -> list[tuple[int, str, str]]:
    """(id, payload_path, status) of every recorded hand-off, read straight from the database."""
    db = sqlite3.connect(Path(str(config)) / "swarm-handoff" / "history.sqlite3")
    try:
        return list(db.execute("SELECT id, payload_path, status FROM handoffs ORDER BY id"))
    finally:
        db.close()


def check_each_run_kept_its_payload(done: list[subprocess.CompletedProcess[str]]) -> dict[str, int]:
    """Every run exited 0 and its reported file holds its own payload, which verifies; path -> run."""
    for i, run in enumerate(done):
        assert run.returncode == 0, f"run {i}: {run.stderr}"
    reported = {json.loads(run.stdout)["payload_path"]: i for i, run in enumerate(done)}
    assert len(reported) == RUNS  # a distinct path for every run
    for path, i in reported.items():
        payload = load_payload_file(Path(path))
        assert payload["handoff"]["meta"]["handoff_reason"] == f"run-{i}"  # this run's payload, nobody else's
        assert verify_file(Path(path)).to_data()["ok"] is True
    return reported


def test_50_v2_handoffs_at_once_each_keep_their_payload(world):
    reported = check_each_run_kept_its_payload(handoffs(world, "2.0", "small"))
    session = Path(str(world["session"]))
    names = {Path(p).name for p in reported}
    assert names == {"handoff-payload.yaml", *(f"handoff-payload-{n}.yaml" for n in range(2, RUNS + 1))}
    assert sorted(p.name for p in session.iterdir()) == sorted([*names, "perspectives"])  # no temporaries left
    rows = history_rows(world["config"])
    assert len(rows) == RUNS
    assert {path for _, path, _ in rows} == set(reported)
    assert {status for _, _, status in rows} == {"written"}


def test_50_v3_handoffs_at_once_each_keep_their_payload_and_side_file(world):
    done = handoffs(world, "3.0", "big")
    reported = check_each_run_kept_its_payload(done)
    side_files = [json.loads(run.stdout)["side_files"] for run in done]
    assert all(len(files) == 1 for files in side_files)
    assert len({files[0] for files in side_files}) == RUNS  # a side file of its own for every run
    for path, i in reported.items():
        references = load_payload_file(Path(path))["handoff"]["payload"]["references"]["files"]
        assert side_files[i][0] in {r["path"] for r in references}
        assert Path(side_files[i][0]).is_file()
    handoffs_dir = Path(str(world["session"])) / "handoffs"
    assert len(list(handoffs_dir.iterdir())) == 2 * RUNS  # payloads and side files, no temporaries
    rows = history_rows(world["config"])
    assert len(rows) == RUNS
    assert {path for _, path, _ in rows} == set(reported)


def test_an_ack_storm_records_every_acknowledgment_once(world):
    statuses = ("received", "processed", "success", "failure", "received")
    done = handoffs(world, "2.0", "small", runs=10)
    paths = [json.loads(run.stdout)["payload_path"] for run in done]
    # One payload the history never saw (written with another config folder): ten acks at once
    # must record it once, not ten times.
    other = {**dict(world["env"]), "CLAUDE_CONFIG_DIR": str(Path(str(world["config"])).with_name("other"))}
    signals = str(Path(str(world["go"])).parent)  # exists: this one run starts at once
    unseen = subprocess.run(
        [sys.executable, "-c", LAUNCH, signals, "handoff", "summarise", "--session", str(world["session"]),
         "--synthesis", str(world["small"]), "--format", "json"],
        cwd=str(world["project"]), env=other, capture_output=True, text=True, check=True,
    )  # fmt: skip
    unseen_path = json.loads(unseen.stdout)["payload_path"]
    commands = [["ack", p, "--status", s, "--format", "json"] for p in paths for s in statuses]
    commands += [["ack", unseen_path, "--status", "received", "--format", "json"] for _ in range(10)]
    acked = storm(world, commands)
    for run in acked:
        assert run.returncode == 0, run.stderr
    db = sqlite3.connect(Path(str(world["config"])) / "swarm-handoff" / "history.sqlite3")
    try:
        handoff_rows = dict(db.execute("SELECT payload_path, id FROM handoffs"))
        acks = Counter(dict(db.execute("SELECT handoff_id, COUNT(*) FROM acks GROUP BY handoff_id")))
    finally:
        db.close()
    assert len(handoff_rows) == len(paths) + 1  # the unseen payload was recorded exactly once
    assert all(acks[handoff_rows[p]] == len(statuses) for p in paths)
    assert acks[handoff_rows[unseen_path]] == 10
    assert sum(acks.values()) == len(commands)


PACK_SKILLS = ("evidence-review", "implement-change", "think-through")  # the example packs this session installs


def _manifest(project: object) -> dict[str, object]:
    path = Path(str(project)) / ".claude" / "skills" / ".swarm-handoff-links.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def test_ten_links_then_ten_unlinks_at_once_leave_a_true_manifest(world):
    """10 `skills link` at once, then 10 `skills unlink`: the manifest always says what is on disk."""
    skills = Path(str(world["project"])) / ".claude" / "skills"
    names = [PACK_SKILLS[i % len(PACK_SKILLS)] for i in range(10)]
    for run in storm(world, [["skills", "link", name, "--format", "json"] for name in names]):
        assert run.returncode in (0, 1), run.stderr  # a second link of one skill may be refused, never crash
        assert "Traceback" not in run.stderr
    recorded = _manifest(world["project"])
    text = json.dumps(recorded)
    for name in PACK_SKILLS:  # each linked once, and recorded: no run lost another's entry
        assert (skills / name / "SKILL.md").is_file(), name
        assert name in text, name
    for run in storm(world, [["skills", "unlink", name, "--format", "json"] for name in names]):
        assert run.returncode in (0, 1), run.stderr
        assert "Traceback" not in run.stderr
    for name in PACK_SKILLS:
        assert not os.path.lexists(skills / name), name
        assert name not in json.dumps(_manifest(world["project"])), name
    assert (skills / "summarise" / "SKILL.md").is_file()  # the project's own skill is never touched
