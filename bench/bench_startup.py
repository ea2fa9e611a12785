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
"""

from __future__ import annotations

import argparse
import json
import os
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
from swarm_handoff.cli import main
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


def _heavy_imports(args: list[str], env: dict[str, str], work: Path) -> list[str]:
    listing = work / "modules.json"
    subprocess.run([sys.executable, "-c", LIST_MODULES, str(listing), *args], env=env, capture_output=True)
    modules = set(json.loads(listing.read_text(encoding="utf-8")))
    return [m for m in HEAVY if m in modules]


def main() -> None:
    """Measure and print a table; write it as JSON under bench/results/."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
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
        results = _medians(cases, env, args.runs)
        heavy = {name: _heavy_imports(argv, env, work) for name, argv in commands.items()}
    floor = results["python -c pass (floor)"]
    ref = results.get(reference)
    print(f"{'command (cold: no cache)':50} {'median ms':>10} {'x floor':>8} {'x skills-ref':>13}")
    for name, ms in results.items():
        versus = f"{ms / ref:13.2f}" if ref else f"{'-':>13}"
        print(f"{name:50} {ms:10.1f} {ms / floor:8.2f} {versus}")
    for name, found in heavy.items():
        print(f"heavy modules imported by `swarm-handoff {name}`: {', '.join(found) or 'none'}")
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    report = {
        "runs": args.runs,
        "median_ms": results,
        "heavy_imports": heavy,
        "pydantic_on_dispatch": any("pydantic" in found for found in heavy.values()),
    }
    (out / "startup.json").write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
