"""Where one `swarm-handoff handoff` process spends its CPU, phase by phase.

Issue 27 asks 50 hand-offs at once to be at least half as fast as a minimal durable write; the
parallel benchmark (`bench_parallel_handoff.py`) shows the hand-off is bound by each process's
own CPU. This one splits that CPU into phases, in a fresh process each time: importing the CLI,
building the app (plugin host, operation rows), converting the command typer runs, the hand-off's
own imports, and the run itself (discovery, build, checks, YAML dump and read-back, write,
history). The hand-off is the parallel benchmark's (one skill, a v2.0 payload by default).

Run: `python bench/bench_handoff_phases.py [--runs 5] [--schema 2.0]` (also run by `nox -s bench`);
never a unit test. Each figure is the median of `--runs` processes, in milliseconds of CPU time.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
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
PHASES = (
    "interpreter start-up",
    "importing the CLI (typer, attrs, pluggy, the core)",
    "building the app (plugin host, operation rows)",
    "converting the command typer runs",
    "the hand-off's own imports",
    "the run (discovery, build, checks, dump and read-back, write, history)",
)
# One process: the CPU time at each phase's end, printed as JSON (the first is the interpreter's).
SCRIPT = """
import json, sys, time
clock = time.process_time
marks = [clock()]
import swarm_handoff.cli.app as cli_app
marks.append(clock())
app = cli_app.build_app()
marks.append(clock())
import typer
group = typer.main.get_command(app)
group.get_command(group.context_class(group), "handoff")
marks.append(clock())
import swarm_handoff.discovery, swarm_handoff.history, swarm_handoff.payload.lifecycle, swarm_handoff.session_life
marks.append(clock())
try:
    group.main(sys.argv[1:], prog_name="swarm-handoff", standalone_mode=False)
except SystemExit:
    pass
marks.append(clock())
print(json.dumps(marks), file=sys.stderr)
"""


def main(argv: list[str] | None = None) -> None:
    """Time the phases of `--runs` hand-off processes and print the medians as a table."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="processes; the median of each phase is kept")
    parser.add_argument("--schema", default="2.0", choices=("2.0", "3.0"), help="the payload's schema")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-phases-") as tmp:
        root = Path(tmp)
        tree = SkillTree(root / "project")
        tree.add_handoff("summarise", categories=("writing",))
        synthesis = root / "synthesis.json"
        synthesis.write_text(json.dumps(SYNTHESIS))
        session = root / "session"
        (session / "perspectives").mkdir(parents=True)
        (session / "perspectives" / "optimist.md").write_text("optimist")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_", "XDG_"))}
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # users have their .pyc files
        env.update(HOME=str(root), XDG_CACHE_HOME=str(root / "cache"), CLAUDE_CONFIG_DIR=str(root / "config"))
        command = [sys.executable, "-c", SCRIPT, "handoff", "summarise", "--session", str(session)]
        command += ["--synthesis", str(synthesis), "--schema", args.schema, "--format", "json", "--reason", "r"]
        phases: list[list[float]] = [[] for _ in PHASES]
        for run in range(args.runs + 1):  # the first run writes the caches and .pyc files
            done = subprocess.run(command, cwd=tree.root, env=env, capture_output=True, text=True, check=True)
            if '"payload_path"' not in done.stdout:
                raise SystemExit(f"the hand-off did not report a payload: {done.stdout[-500:]} {done.stderr[-500:]}")
            marks = json.loads(done.stderr.strip().splitlines()[-1])
            if run:
                for i, value in enumerate([marks[0], *(b - a for a, b in itertools.pairwise(marks))]):
                    phases[i].append(value)
        load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"Command: python bench/bench_handoff_phases.py --runs {args.runs} --schema {args.schema}")
        print(
            f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.machine()}, "
            f"{os.cpu_count()} CPUs, Python {platform.python_version()}, load average {load}\n"
        )
        print("| phase (CPU, median) | ms |\n|---|---:|")
        for name, values in zip(PHASES, phases, strict=True):
            print(f"| {name} | {statistics.median(values) * 1000:.0f} |")
        totals = [sum(run) for run in zip(*phases, strict=True)]
        print(f"| total | {statistics.median(totals) * 1000:.0f} |")


if __name__ == "__main__":
    main()
