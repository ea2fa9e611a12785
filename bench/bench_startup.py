"""Start-up cost of the CLI, side by side with its floor, reported as ratios.

Run with `python3 -m nox -s bench` (or directly, in an environment with swarm-handoff installed).
Each command is started `--runs` times as a fresh process; the median wall time is reported with
its ratio to `python -c pass`. Also reports whether pydantic (pulled in by typer >= 0.29 when it
dispatches a command) is imported, since that alone costs tens of milliseconds.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

DISPATCH = """
from swarm_handoff.cli import main
try:
    main(["--version"])
except SystemExit:
    pass
"""


def _median_ms(command: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _imported(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True).stderr
    return {line.split("|")[-1].strip().split(".")[0] for line in out.splitlines() if "|" in line}


def main() -> None:
    """Measure and print a table; write it as JSON under bench/results/."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    cli = shutil.which("swarm-handoff") or str(Path(sys.executable).with_name("swarm-handoff"))
    cases = {
        "python -c pass (floor)": [sys.executable, "-c", "pass"],
        "import typer (baseline)": [sys.executable, "-c", "import typer"],
        "import swarm_handoff": [sys.executable, "-c", "import swarm_handoff"],
        "swarm-handoff --version": [cli, "--version"],
        "swarm-handoff plugins --format json": [cli, "plugins", "--format", "json"],
    }
    results = {name: _median_ms(command, args.runs) for name, command in cases.items()}
    floor = results["python -c pass (floor)"]
    print(f"{'command':40} {'median ms':>10} {'x floor':>8}")
    for name, ms in results.items():
        print(f"{name:40} {ms:10.1f} {ms / floor:8.2f}")
    dispatch = _imported(DISPATCH)
    print(f"pydantic imported when dispatching a command: {'pydantic' in dispatch}")
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / "startup.json").write_text(
        json.dumps({"runs": args.runs, "median_ms": results, "pydantic_on_dispatch": "pydantic" in dispatch}, indent=2)
    )


if __name__ == "__main__":
    main()
