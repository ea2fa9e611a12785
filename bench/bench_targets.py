"""The issue-14 targets, side by side with skills-ref in one run: minimum of interleaved rounds.

For each tree size (default 2,000 skills; add 10,000 with `--sizes 2000,10000`) every round runs,
one after the other and each in a fresh interpreter, on the same tree:

* `skills_ref.read_properties` on every skill (PyPI `skills-ref`), the yardstick;
* a cold `discover` (empty user cache) with the C parser: default jobs (the idle CPUs), and
  `SWARM_HANDOFF_JOBS=1` and `=2` forced;
* the same with the pure parser (the C extension made unimportable, as on an install without it).

The time is that of the discovery call (or the skills-ref loop) inside the child; peak RSS is the
child's own maximum resident size (forked workers, when used, are reported separately). Rounds are
interleaved so that a burst of load on a shared machine hits every method alike, and the minimum
of each is kept: the least disturbed run. The CLI part starts each command `--runs` times, also
round-robin: `python -c pass`, a repeated `discover --format json` over 50 skills (caches warm),
`--version`, and `agentskills read-properties` on one skill. (Before issue 27 there were two
`discover` rows, a replayed answer and one that skipped typer; both are gone, and
bench_startup.py holds the start-up targets.)

Results go to bench/results/targets.json and the marked section of docs/performance.md. Run:
`python bench/bench_targets.py [--sizes 2000,10000] [--rounds 3] [--runs 15]`; never a unit test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_discovery import make_tree, settle  # a sibling script, not a package

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
START, END = "<!-- bench:targets:start -->", "<!-- bench:targets:end -->"

_CHILD = """
import json, os, resource, sys, time
if sys.argv[4] == "pure":
    sys.modules["_ruamel_yaml"] = None  # as on an install without ruamel.yaml.clib
from swarm_handoff.discovery import discover, make_context
from swarm_handoff.yamlevents import parser_name
env = {"HOME": sys.argv[2], "XDG_CACHE_HOME": sys.argv[3], "PATH": os.environ.get("PATH", "")}
if sys.argv[5]:
    env["SWARM_HANDOFF_JOBS"] = sys.argv[5]
context = make_context(sys.argv[1], env)
start = time.perf_counter()
result = discover(context)
elapsed = time.perf_counter() - start
print(json.dumps({"seconds": elapsed, "parser": parser_name(), "skills": result.scanned,
                  "rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "workers_rss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""

_SKILLS_REF = """
import json, os, sys, time
from pathlib import Path
from skills_ref import read_properties
start = time.perf_counter()
failures = 0
for entry in os.scandir(sys.argv[1]):
    try:
        read_properties(Path(entry.path))
    except Exception:
        failures += 1
print(json.dumps({"seconds": time.perf_counter() - start, "failures": failures}))
"""

_THREADS = """
import json, sys, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from swarm_handoff import fastyaml
from swarm_handoff.skillmd import read_frontmatter_bytes
paths = [str(p / "SKILL.md") for p in sorted(Path(sys.argv[1]).iterdir())]
texts = [read_frontmatter_bytes(p).decode() for p in paths]
def parse(chunk):
    for text in chunk:
        try:
            fastyaml.load(text)
        except Exception:
            pass
best = {}
for _ in range(3):
    for label, workers in (("1 thread", 1), ("2 threads", 2)):
        half = len(texts) // workers
        chunks = [texts[i * half:(i + 1) * half] for i in range(workers)]
        start = time.perf_counter()
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(parse, chunks))
        best[label] = min(best.get(label, 1e9), time.perf_counter() - start)
print(json.dumps(best))
"""

METHODS = {  # label: (parser, SWARM_HANDOFF_JOBS ("" = default: the idle CPUs))
    "C, default jobs": ("C", ""),
    "C, 1 job": ("C", "1"),
    "C, 2 jobs": ("C", "2"),
    "pure, default jobs": ("pure", ""),
    "pure, 1 job": ("pure", "1"),
    "pure, 2 jobs": ("pure", "2"),
}


def _child(code: str, *args: str) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def bench_size(count: int, rounds: int, ref_rounds: int, work: Path) -> dict[str, Any]:
    """Interleaved rounds of every method on one tree; the minimum of each."""
    root = work / f"tree-{count}"
    skills = make_tree(root, count)
    settle()
    home = work / "home"
    home.mkdir(exist_ok=True)
    best: dict[str, dict[str, Any]] = {}

    def keep(label: str, measured: dict[str, Any]) -> None:
        if label not in best or measured["seconds"] < best[label]["seconds"]:
            best[label] = {
                **measured,
                "rss_max_kb": max(measured.get("rss_kb", 0), best.get(label, {}).get("rss_max_kb", 0)),
            }
        else:
            best[label]["rss_max_kb"] = max(best[label]["rss_max_kb"], measured.get("rss_kb", 0))

    for number in range(rounds):
        if number < ref_rounds:
            keep("skills-ref", _child(_SKILLS_REF, str(skills)))
        for label, (parser, jobs) in METHODS.items():
            cache = work / f"cache-{count}-{number}-{label.replace(' ', '').replace(',', '')}"
            keep(label, _child(_CHILD, str(root), str(home), str(cache), parser, jobs))  # a new cache: cold
        print(f"  round {number + 1}: " + ", ".join(f"{k} {v['seconds']:.2f}s" for k, v in best.items()), flush=True)
    return {"skills": count, "rounds": rounds, "skills_ref_rounds": ref_rounds, "best": best}


def _min_times(cases: dict[str, tuple[list[str], dict[str, str]]], runs: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in cases}
    for command, env in cases.values():
        subprocess.run(command, env=env, capture_output=True, check=False)  # .pyc files, page cache
    for _ in range(runs):
        for name, (command, env) in cases.items():
            start = time.perf_counter()
            subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            times[name].append(time.perf_counter() - start)
    return {name: min(values) for name, values in times.items()}


def bench_cli(work: Path, runs: int) -> dict[str, float]:
    """Start-up bound commands at 50 skills, round-robin, minimum of `runs`."""
    root = work / "tree-50"
    make_tree(root, 50)
    settle()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(HOME=str(work / "home"), XDG_CACHE_HOME=str(work / "cache-cli"))
    bindir = Path(sys.executable).parent
    ours = [str(bindir / "swarm-handoff"), "discover", "--cwd", str(root), "--format", "json"]
    cases: dict[str, tuple[list[str], dict[str, str]]] = {
        "python -c pass": ([sys.executable, "-c", "pass"], env),
        "discover --format json (caches warm)": (ours, env),
        "--version": ([str(bindir / "swarm-handoff"), "--version"], env),
    }
    theirs = bindir / "agentskills"
    if theirs.exists():
        one = [str(theirs), "read-properties", str(root / ".claude" / "skills" / "skill-00002")]
        cases["agentskills read-properties (1 skill)"] = (one, env)
    return _min_times(cases, runs)


def render(rows: list[dict[str, Any]], cli: dict[str, float], threads: dict[str, float], meta: dict[str, Any]) -> str:
    """The Markdown tables for docs/performance.md."""
    lines = [
        f"Command: `{meta['command']}`  ",
        f"Measured {meta['when']} on {meta['machine']}, Python {meta['python']} ({meta['install']}); "
        f"load average {meta['load_before']} before and {meta['load_after']} after: a shared, loaded machine, "
        "so every figure is the minimum of interleaved rounds (each method once per round, in turn).",
        "",
        "| skills | method | cold discovery | skills-ref loop | skills-ref ÷ method | peak RSS (parent) "
        "| workers' peak RSS |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        ref = row["best"].get("skills-ref", {}).get("seconds")
        for label in METHODS:
            m = row["best"][label]
            ratio = f"{ref / m['seconds']:.1f}x" if ref else "-"
            workers = f"{m['workers_rss_kb'] / 1024:.0f} MB" if m.get("workers_rss_kb") else "-"
            lines.append(
                f"| {row['skills']:,} | {label} (parser: {m['parser']}) | {m['seconds'] * 1000:,.0f} ms "
                f"| {ref * 1000:,.0f} ms | {ratio} | {m['rss_max_kb'] / 1024:.0f} MB | {workers} |"
                if ref
                else f"| {row['skills']:,} | {label} | {m['seconds'] * 1000:,.0f} ms | - | - "
                f"| {m['rss_max_kb'] / 1024:.0f} MB | {workers} |"
            )
        lines.append(f"| | rounds: {row['rounds']} (skills-ref: {row['skills_ref_rounds']}) | | | | | |")
    floor = cli.get("python -c pass")
    lines += ["", "| CLI, 50 skills, a new process each run | min wall | ÷ `python -c pass` |", "|---|---:|---:|"]
    for name, seconds in cli.items():
        lines.append(
            f"| {name} | {seconds * 1000:.0f} ms | {seconds / floor:.2f}x |" if floor else f"| {name} | - | - |"
        )
    if threads:
        one, two = threads["1 thread"], threads["2 threads"]
        lines += [
            "",
            f"Threads (parsing the 2,000 frontmatters with `fastyaml` over the C parser): "
            f"1 thread {one * 1000:.0f} ms, 2 threads {two * 1000:.0f} ms ({one / two:.2f}x speed-up).",
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    """Run the targets benchmark and write its results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--big-rounds", type=int, default=1, help="rounds for sizes above 5,000")
    parser.add_argument("--ref-rounds", type=int, default=None, help="skills-ref rounds (default: all; 1 above 5,000)")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--no-doc", action="store_true")
    args, _ = parser.parse_known_args(argv)
    from swarm_handoff.yamlevents import parser_name

    meta = {
        "command": " ".join(["python bench/bench_targets.py", *(argv if argv is not None else sys.argv[1:])]),
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}",
        "python": platform.python_version(),
        "install": f"default install, YAML parser here: {parser_name()}",
        "load_before": " / ".join(f"{x:.1f}" for x in os.getloadavg()),
    }
    rows = []
    threads: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="swarm-targets-") as tmp:
        work = Path(tmp)
        for size in (int(s) for s in args.sizes.split(",")):
            print(f"{size} skills ...", flush=True)
            rounds = args.rounds if size <= 5000 else args.big_rounds
            ref_rounds = args.ref_rounds if args.ref_rounds is not None else (rounds if size <= 5000 else 1)
            rows.append(bench_size(size, rounds, ref_rounds, work))
            if size == 2000:
                threads = _child(_THREADS, str(work / "tree-2000" / ".claude" / "skills"))
        cli = bench_cli(work, args.runs)
    meta["load_after"] = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    table = render(rows, cli, threads, meta)
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "targets.json").write_text(
        json.dumps({"meta": meta, "sizes": rows, "cli": cli, "threads": threads}, indent=2) + "\n"
    )
    print(table)
    if not args.no_doc and DOC.exists():
        text = DOC.read_text()
        if START in text and END in text:
            head, rest = text.split(START, 1)
            DOC.write_text(head + START + "\n" + table + END + rest.split(END, 1)[1])


if __name__ == "__main__":
    main()
