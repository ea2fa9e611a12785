"""Start-up cost of the CLI's cold path, side by side with its floor and skills-ref's CLI.

Run with `python3 -m nox -s bench` (or directly, in an environment with swarm-handoff installed).
Each command is started `--runs` times as a fresh process, round-robin so that a burst of load
hits every command alike; the median wall time is reported with its ratio to `python -c pass` and
to `agentskills read-properties DIR` (PyPI `skills-ref`, when installed), the issue's yardstick
for `discover --format json` over 50 skills. Every cache is off (`SWARM_HANDOFF_NO_CACHE=1`, an
empty HOME and XDG cache): this is the cold path, the one every first run and every other command
takes.

It also lists, per command, which of the modules a cold start should never need were imported
(the workflow engine, xml.etree, pydantic, ...): a name there points at the import to make lazy.
tests/test_startup_imports.py pins the same thing without timing.

A second table times what issue 27 sets targets for, with the caches on as users have them (the
parse memo and the entry-point scan; nothing replays a stored answer or help page any more):
`--version` and `--help` against `python -c pass` (targets: at most 3x and 12x), and a plain
`discover --format json` over 50 skills against `agentskills read-properties` on one skill
(target: at most 1.5x). Each is the minimum of `--runs` fresh processes, round-robin; with `--doc`
the table replaces the one between the `bench:startup` markers in docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_discovery import make_tree  # a sibling script, not a package

LIST_MODULES = """
import json, sys
from swarm_handoff.cli.entry import main
try:
    main(sys.argv[2:])
except SystemExit:
    pass
with open(sys.argv[1], "w") as out:
    json.dump(sorted(sys.modules), out)
"""
# Modules no cold start needs; pydantic comes with typer >= 0.29 when it dispatches a command.
HEAVY = (
    "swarm_handoff.workflow",
    "swarm_handoff.workflow.exhaustive",
    "xml.etree.ElementTree",
    "swarm_handoff.ranking",
    "swarm_handoff_qr.gates",
    "pydantic",
    "rich",
)


def _medians(cases: dict[str, list[str]], env: dict[str, str], runs: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in cases}
    for command in cases.values():  # once each first: .pyc files written, disk cache warm
        subprocess.run(command, env=env, capture_output=True, check=True)
    for _ in range(runs):
        for name, command in cases.items():
            start = time.perf_counter()
            subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[name].append((time.perf_counter() - start) * 1000)
    return {name: statistics.median(values) for name, values in times.items()}


DOC = Path(__file__).resolve().parent.parent / "docs" / "performance.md"
START, END = "<!-- bench:startup:start -->", "<!-- bench:startup:end -->"


def _minimums(cases: dict[str, tuple[list[str], dict[str, str]]], runs: int, work: Path) -> dict[str, float]:
    """Minimum wall time in ms per case over `runs` round-robin rounds, a fresh process each time."""
    times: dict[str, list[float]] = {name: [] for name in cases}
    for command, env in cases.values():  # once each first: .pyc files written, the caches warm
        subprocess.run(command, env=env, capture_output=True, check=False)
    for number in range(runs):
        for name, (command, env) in cases.items():
            if "empty cache" in name:  # a cache folder never used: the first run on a machine
                env = {**env, "XDG_CACHE_HOME": str(work / f"empty-{number}")}
            start = time.perf_counter()
            subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            times[name].append((time.perf_counter() - start) * 1000)
    return {name: min(values) for name, values in times.items()}


# Each targeted row: (its yardstick, the most it may cost as a multiple of it), from issue 27.
PASS, READ = "python -c pass", "agentskills read-properties (one skill)"
TARGETS = {
    "swarm-handoff --version": (PASS, 3.0),
    "swarm-handoff --help": (PASS, 12.0),
    "swarm-handoff discover --format json (50 skills)": (READ, 1.5),
}


def bench_trivial(cli: str, runs: int, work: Path, tree: Path) -> dict[str, float]:
    """The targeted commands with the caches on, as users run them, beside their yardsticks."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(HOME=str(work / "home"), XDG_CACHE_HOME=str(work / "cache-trivial"))
    cases = {
        PASS: ([sys.executable, "-c", "pass"], env),
        "swarm-handoff --version": ([cli, "--version"], env),
        "swarm-handoff --help": ([cli, "--help"], env),
        "swarm-handoff --help, first run (empty cache)": ([cli, "--help"], env),
        "swarm-handoff discover --help": ([cli, "discover", "--help"], env),
        "swarm-handoff discover --format json (50 skills)": (
            [cli, "discover", "--cwd", str(tree), "--format", "json"],
            env,
        ),
        "swarm-handoff discover (50 skills), empty cache": ([cli, "discover", "--cwd", str(tree)], env),
    }
    theirs = Path(sys.executable).parent / "agentskills"
    if theirs.exists():
        cases[READ] = ([str(theirs), "read-properties", str(tree / ".claude" / "skills" / "skill-00002")], env)
    return _minimums(cases, runs, work)


def render_trivial(results: dict[str, float], runs: int, load: tuple[str, str]) -> str:
    """The Markdown table for docs/performance.md: each row against `python -c pass`, targets beside."""
    floor = results[PASS]
    lines = [
        f"Command: `{' '.join(['python bench/bench_startup.py', *sys.argv[1:]])}`  ",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.machine()}, "
        f"{os.cpu_count()} CPUs, {platform.system()}, Python {platform.python_version()}; minimum of {runs} "
        f"fresh processes per row, round-robin; load average {load[0]} before and {load[1]} after.",
        "",
        "| command (caches on) | min wall | ÷ `python -c pass` | target | met |",
        "|---|---:|---:|---|---|",
    ]
    for name, ms in results.items():
        target, met = "", ""
        if name in TARGETS and TARGETS[name][0] in results:
            yardstick, most = TARGETS[name]
            ratio = ms / results[yardstick]
            target = f"≤ {most:g}x `{yardstick}` ({ratio:.2f}x)"
            met = "yes" if ratio <= most else "**no**"
        lines.append(f"| {name} | {ms:.0f} ms | {ms / floor:.2f}x | {target} | {met} |")
    return "\n".join(lines) + "\n"


def _load() -> str:
    return " / ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "-"


def _heavy_imports(args: list[str], env: dict[str, str], work: Path) -> list[str]:
    listing = work / "modules.json"
    subprocess.run([sys.executable, "-c", LIST_MODULES, str(listing), *args], env=env, capture_output=True)
    modules = set(json.loads(listing.read_text(encoding="utf-8")))
    return [m for m in HEAVY if m in modules]


def main() -> None:
    """Measure and print a table; write it as JSON under bench/results/."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--doc", action="store_true", help="write the trivial-commands table into docs/performance.md")
    parser.add_argument("--trivial-only", action="store_true", help="time only the targeted commands (caches on)")
    args, _ = parser.parse_known_args()  # `nox -s bench -- ...` hands every script the same options
    bindir = Path(sys.executable).parent
    cli = shutil.which("swarm-handoff", path=str(bindir)) or shutil.which("swarm-handoff") or "swarm-handoff"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        tree = work / "tree-50"
        make_tree(tree, 50)
        (work / "home").mkdir()
        env = {
            **os.environ,
            "HOME": str(work / "home"),
            "XDG_CACHE_HOME": str(work / "cache"),
            "SWARM_HANDOFF_NO_CACHE": "1",
        }
        for key in [k for k in env if k.startswith("CLAUDE_") or k == "PYTHONDONTWRITEBYTECODE"]:
            del env[key]  # .pyc files as an installed wheel has them; no user config
        commands: dict[str, list[str]] = {
            "discover --format json (50 skills)": ["discover", "--cwd", str(tree), "--format", "json"],
            "--version": ["--version"],
            "plugins --format json": ["plugins", "--format", "json"],
            "why NAME (50 skills)": ["why", "skill-00002", "--cwd", str(tree)],
        }
        cases = {
            "python -c pass (floor)": [sys.executable, "-c", "pass"],
            "import swarm_handoff": [sys.executable, "-c", "import swarm_handoff"],
            **{f"swarm-handoff {name}": [cli, *argv] for name, argv in commands.items()},
        }
        theirs = bindir / "agentskills"
        reference = "agentskills read-properties DIR (skills-ref)"
        if theirs.exists():
            cases[reference] = [str(theirs), "read-properties", str(tree / ".claude" / "skills" / "skill-00002")]
        if args.trivial_only:
            cases, commands = {"python -c pass (floor)": cases["python -c pass (floor)"]}, {}
        results = _medians(cases, env, args.runs)
        heavy = {name: _heavy_imports(argv, env, work) for name, argv in commands.items()}
        load_before = _load()
        trivial = bench_trivial(cli, args.runs, work, tree)
        table = render_trivial(trivial, args.runs, (load_before, _load()))
    floor = results["python -c pass (floor)"]
    ref = results.get(reference)
    print(f"{'command (cold: no cache)':50} {'median ms':>10} {'x floor':>8} {'x skills-ref':>13}")
    for name, ms in results.items():
        versus = f"{ms / ref:13.2f}" if ref else f"{'-':>13}"
        print(f"{name:50} {ms:10.1f} {ms / floor:8.2f} {versus}")
    for name, found in heavy.items():
        print(f"heavy modules imported by `swarm-handoff {name}`: {', '.join(found) or 'none'}")
    print()
    print(table)
    if args.doc and DOC.exists():
        text = DOC.read_text(encoding="utf-8")
        if START in text and END in text:
            head, rest = text.split(START, 1)
            DOC.write_text(head + START + "\n" + table + END + rest.split(END, 1)[1], encoding="utf-8")
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    report = {
        "runs": args.runs,
        "median_ms": results,
        "trivial_min_ms": trivial,
        "heavy_imports": heavy,
        "pydantic_on_dispatch": any("pydantic" in found for found in heavy.values()),
    }
    (out / "startup.json").write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
