"""Parallel hand-offs into one session, side by side with a minimal durable write of the same payloads.

Issue 27: 50 `swarm-handoff handoff` runs at once into one session must take at most twice as
long as the least a durable hand-off can do in as many processes: write the payload to a temporary
file, fsync it, rename it to a name of its own, and insert one row into a SQLite database in WAL
mode (the baseline). Both sides start one Python process per payload, all at once, and are timed
from the first start to the last exit, so both pay one interpreter start-up per payload; the table
also times `python -c pass` in as many processes, to show which share of the baseline is start-up
alone. The baseline writes the same bytes the hand-off writes (a payload made by a warm-up run).

A second pair of columns takes start-up out: the same processes import what they need (the
hand-off: the CLI, the lifecycle and the history; the baseline: `os` and `sqlite3`), say they are
ready, and wait for a "go" file; the clock runs from "go" to the last exit. That is the work of the
hand-off itself (discovery, building, checking, writing, recording) against the write alone.

Every round checks what it measures: each hand-off exited 0 and reported a payload of its own,
holding its own `--reason`, and the history holds one row per payload; the baseline's files and
rows are counted too. Rounds alternate baseline and hand-offs, so a burst of load hits both; each
figure is the median of `--rounds`.

Run: `python bench/bench_parallel_handoff.py [--parallel 1,10,50] [--rounds 3] [--schema 2.0]`
(also run by `nox -s bench`); never a unit test. The ratio is baseline / hand-off (1.0: as fast
as the baseline; the target is >= 0.5).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from swarm_handoff.testing import SkillTree

SYNTHESIS = {
    "original_prompt": "Should we expand into Europe?",
    "problem_type": "strategic",
    "synthesis_summary": "Regulation is the main risk.",
    "convergence_level": "medium",
}
# Released runs: import, say "ready", wait for the go file (argv[1], taken out of argv), then work.
WAIT = """
import os, sys, time
go = sys.argv.pop(1)
open(go + "." + str(os.getpid()), "w").close()
while not os.path.exists(go):
    time.sleep(0.002)
"""
HANDOFF = """
import sys
from swarm_handoff.cli.entry import main
import swarm_handoff.cli.app, swarm_handoff.payload.lifecycle, swarm_handoff.history
WAIT
sys.argv = ["swarm-handoff", *sys.argv[1:]]
main()
"""
# The minimal durable write: temporary file, fsync, rename, one SQLite insert (into a WAL database
# made beforehand: the history too is made once, on first use).
BASELINE = """
import os, sqlite3, sys
WAIT
folder, db, i, source = sys.argv[1:5]
with open(source, "rb") as handle:
    data = handle.read()
tmp = os.path.join(folder, ".payload-%s.tmp" % i)
fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
os.write(fd, data)
os.fsync(fd)
os.close(fd)
os.rename(tmp, os.path.join(folder, "payload-%s.yaml" % i))
connection = sqlite3.connect(db, timeout=30, isolation_level=None)
connection.execute("INSERT INTO handoffs (payload_path) VALUES (?)", ("payload-%s.yaml" % i,))
connection.close()
"""


def _world(root: Path) -> tuple[Path, Path, dict[str, str]]:
    """A project with one skill accepting hand-offs, a synthesis, and an environment of its own."""
    tree = SkillTree(root / "project")
    tree.add_handoff("summarise", categories=("writing",))
    synthesis = root / "synthesis.json"
    synthesis.write_text(json.dumps(SYNTHESIS))
    (root / "home").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_", "XDG_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # users have their .pyc files
    env.update(
        HOME=str(root / "home"),
        XDG_CACHE_HOME=str(root / "cache"),
        XDG_CONFIG_HOME=str(root / "xdg-config"),
        PYTHONPYCACHEPREFIX=str(root / "pycache"),
    )
    return tree.root, synthesis, env


def _session(root: Path, name: str) -> Path:
    session = root / name / "session"
    (session / "perspectives").mkdir(parents=True)
    (session / "perspectives" / "optimist.md").write_text("optimist")
    return session


def _script(text: str, go: Path | None) -> list[str]:
    """`python -c TEXT [GO]`: released by the go file when one is given, else at once."""
    if go is None:
        return [sys.executable, "-c", text.replace("WAIT", "")]
    return [sys.executable, "-c", text.replace("WAIT", WAIT), str(go)]


def _go(folder: Path) -> Path:
    signals = folder / "signals"
    signals.mkdir(parents=True)
    return signals / "go"


def _all_at_once(
    commands: list[list[str]], cwd: Path, env: dict[str, str], go: Path | None = None
) -> tuple[float, list[tuple[int, str]]]:
    """Start every command at once; the wall time until the last exits, and each one's (exit code, output).

    With `go`, the clock starts once every process said it is ready, when the go file is made.
    """
    start = time.perf_counter()
    procs = [
        subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for command in commands
    ]
    if go is not None:
        while len(list(go.parent.glob(go.name + ".*"))) < len(procs) and all(p.poll() is None for p in procs):
            time.sleep(0.01)
        start = time.perf_counter()
        go.touch()
    outputs = [proc.communicate() for proc in procs]
    elapsed = time.perf_counter() - start
    return elapsed, [(proc.returncode, out + err) for proc, (out, err) in zip(procs, outputs, strict=True)]


def _handoffs(
    n: int, root: Path, project: Path, synthesis: Path, env: dict[str, str], schema: str, *, released: bool = False
) -> float:
    session, config = _session(root, "handoff"), root / "handoff" / "config"
    env = {**env, "CLAUDE_CONFIG_DIR": str(config)}
    go = _go(root / "handoff") if released else None
    start = _script(HANDOFF, go) if released else [shutil.which("swarm-handoff") or "swarm-handoff"]
    base = [*start, "handoff", "summarise"]
    base += ["--session", str(session), "--synthesis", str(synthesis), "--schema", schema, "--format", "json"]
    elapsed, done = _all_at_once([[*base, "--reason", f"run-{i}"] for i in range(n)], project, env, go)
    paths = set()
    for i, (code, out) in enumerate(done):
        if code != 0:
            raise SystemExit(f"hand-off {i} failed ({code}): {out[-2000:]}")
        path = Path(json.loads(out[: out.rindex("}") + 1])["payload_path"])
        if f"run-{i}" not in path.read_text():
            raise SystemExit(f"{path} does not hold run {i}'s payload")
        paths.add(path)
    db = sqlite3.connect(config / "swarm-handoff" / "history.sqlite3")
    rows = {Path(row[0]) for row in db.execute("SELECT payload_path FROM handoffs")}
    db.close()
    if len(paths) != n or rows != paths:
        raise SystemExit(f"{n} hand-offs: {len(paths)} payloads, {len(rows)} history rows")
    return elapsed


def _baseline(n: int, root: Path, payload: Path, env: dict[str, str], *, released: bool = False) -> float:
    folder = _session(root, "baseline")
    db = root / "baseline" / "history.sqlite3"
    setup = sqlite3.connect(db, isolation_level=None)  # made once, in WAL mode, as the history is on first use
    setup.execute("PRAGMA journal_mode = WAL")
    setup.execute("CREATE TABLE handoffs (id INTEGER PRIMARY KEY, payload_path TEXT NOT NULL)")
    setup.close()
    go = _go(root / "baseline") if released else None
    commands = [[*_script(BASELINE, go), str(folder), str(db), str(i), str(payload)] for i in range(n)]
    elapsed, done = _all_at_once(commands, root, env, go)
    if any(code != 0 for code, _ in done):
        raise SystemExit(f"baseline failed: {[out for code, out in done if code][:1]}")
    written = sorted(p.name for p in folder.iterdir() if p.name.startswith("payload-"))
    count = sqlite3.connect(db).execute("SELECT count(*) FROM handoffs").fetchone()[0]
    if len(written) != n or count != n:
        raise SystemExit(f"baseline: {len(written)} files, {count} rows of {n}")
    return elapsed


def _pass(n: int, root: Path, env: dict[str, str]) -> float:
    return _all_at_once([[sys.executable, "-c", "pass"] for _ in range(n)], root, env)[0]


def main(argv: list[str] | None = None) -> None:
    """Time N hand-offs at once against N minimal durable writes at once, for each N asked."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--parallel", default="1,10,50", help="comma-separated numbers of processes at once")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per figure; the median is kept")
    parser.add_argument("--schema", default="2.0", choices=("2.0", "3.0"), help="the payloads' schema")
    args = parser.parse_args(argv)
    sizes = [int(n) for n in args.parallel.split(",")]
    with tempfile.TemporaryDirectory(prefix="bench-parallel-") as tmp:
        root = Path(tmp)
        project, synthesis, env = _world(root)
        warm = root / "warm"
        warm.mkdir()
        _handoffs(1, warm, project, synthesis, env, args.schema)  # .pyc files written, page cache warm
        payload = next(p for p in (warm / "handoff" / "session").rglob("*") if p.is_file() and "payload" in p.name)
        print(
            f"Command: python bench/bench_parallel_handoff.py --parallel {args.parallel} --rounds {args.rounds}"
            f" --schema {args.schema}"
        )
        load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
        print(
            f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.machine()}, "
            f"{os.cpu_count()} CPUs, Python {platform.python_version()}, load average "
            f"{load} at the start; payload {payload.stat().st_size} bytes\n"
        )
        print(
            "| at once | `python -c pass` | baseline (durable write) | start-up share of baseline "
            "| `swarm-handoff handoff` | ratio baseline / hand-off "
            "| released after imports: baseline | hand-off | ratio |"
        )
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for n in sizes:
            base, real, idle, base_go, real_go = [], [], [], [], []
            for r in range(args.rounds):
                for released in (False, True):
                    where = root / f"n{n}-r{r}-{'go' if released else 'start'}"
                    where.mkdir()
                    if not released:
                        idle.append(_pass(n, where, env))
                    (base_go if released else base).append(_baseline(n, where, payload, env, released=released))
                    (real_go if released else real).append(
                        _handoffs(n, where, project, synthesis, env, args.schema, released=released)
                    )
            b, h, p = statistics.median(base), statistics.median(real), statistics.median(idle)
            bg, hg = statistics.median(base_go), statistics.median(real_go)
            row = f"| {n} | {p * 1000:,.0f} ms | {b * 1000:,.0f} ms | {p / b:.0%} | {h * 1000:,.0f} ms | {b / h:.2f}x |"
            print(f"{row} {bg * 1000:,.0f} ms | {hg * 1000:,.0f} ms | {bg / hg:.2f}x |")


if __name__ == "__main__":
    main()
