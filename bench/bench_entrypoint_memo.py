"""What the cached entry-point scan costs a command when the cache holds many other environments.

Every command but `--version` looks up its interpreter environment's entry points in the memo
`entry-points` (docs/performance.md, "The entry-point memo, one file per environment"). This
script times `swarm-handoff --help` and a warm `discover --format json` over 50 skills twice: with
a clean cache (this environment's entries only) and with a polluted one (the entry points of
`--others` other environments, one per distinct `sys.path`, as worktrees, virtualenvs and test
runs leave them). The polluted cache is made the way commands make it: a scan per `sys.path`.

Measured by the instructions the process runs (`valgrind --tool=callgrind`, which load does not
move) when valgrind is installed, else by the median CPU time (user + system) of `--runs` fresh
processes. Run directly in an environment with swarm-handoff installed, or with `nox -s bench`.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_discovery import make_tree  # a sibling script, not a package

POLLUTE = """
import sys
from swarm_handoff import entrypoints
base = list(sys.path)
for i in range(int(sys.argv[1])):
    sys.path[:] = [f"/nonexistent/other-environment-{i}", *base]
    entrypoints.forget()
    entrypoints.entry_points("swarm_handoff")
"""


def script() -> list[str]:
    """The console script run as the installation runs it (its folder first on sys.path)."""
    found = shutil.which("swarm-handoff", path=os.path.dirname(sys.executable)) or shutil.which("swarm-handoff")
    if found is None:
        raise SystemExit("swarm-handoff is not installed next to this Python")
    return [sys.executable, found]


def instructions(command: list[str], env: dict[str, str], work: Path) -> int:
    """The instructions `command` runs, counted by callgrind."""
    out = work / "callgrind.out"
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command],
        env=env,
        check=True,
        capture_output=True,
    )
    text = out.read_text(encoding="utf-8", errors="replace")
    out.unlink()
    found = re.search(r"^(?:summary|totals): (\d+)", text, re.MULTILINE)
    if found is None:
        raise SystemExit("callgrind wrote no total")
    return int(found.group(1))


def cpu_ms(command: list[str], env: dict[str, str], runs: int) -> float:
    """The median CPU time (user + system, ms) of `runs` fresh processes; a failed run is no figure."""
    times = []
    for _ in range(runs):
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        code = process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        if code != 0:
            raise SystemExit(f"bench_entrypoint_memo: {' '.join(command)} failed ({code})")
        times.append((usage.ru_utime + usage.ru_stime) * 1000)
    return statistics.median(times)


def main() -> None:
    """Print one table: each command, clean and polluted cache, and the memo's size on disk."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--others", type=int, default=500, help="other environments in the polluted cache")
    parser.add_argument("--runs", type=int, default=21, help="processes per figure without valgrind")
    parser.add_argument("--cpu", action="store_true", help="CPU time even when valgrind is installed")
    args = parser.parse_args()
    use_valgrind = shutil.which("valgrind") is not None and not args.cpu
    work = Path(tempfile.mkdtemp(prefix="bench-entrypoint-memo-"))
    try:
        tree = work / "tree"
        make_tree(tree, 50)
        commands = {
            "--help": [*script(), "--help"],
            "discover (warm, 50 skills)": [*script(), "discover", "--format", "json", "--cwd", str(tree)],
        }
        env = {k: v for k, v in os.environ.items() if not k.startswith("SWARM_HANDOFF_")}
        env.update(HOME=str(work / "home"), GIT_CEILING_DIRECTORIES=str(work))
        unit = "instructions (M)" if use_valgrind else f"CPU ms, median of {args.runs}"
        print(f"| command | cache | {unit} | entry-point memo on disk |")
        print("|---|---|---:|---|")
        python_pass = [sys.executable, "-c", "pass"]
        base = instructions(python_pass, env, work) if use_valgrind else cpu_ms(python_pass, env, args.runs)
        for state in ("clean", "polluted"):
            env["XDG_CACHE_HOME"] = str(work / f"cache-{state}")
            if state == "polluted":
                subprocess.run([sys.executable, "-c", POLLUTE, str(args.others)], env=env, check=True)
            for name, command in commands.items():
                for _ in range(2):  # warm: the memo written, then read
                    subprocess.run(command, env=env, check=True, capture_output=True)
                figure = instructions(command, env, work) if use_valgrind else cpu_ms(command, env, args.runs)
                shown = f"{figure / 1e6:.1f}" if use_valgrind else f"{figure:.1f}"
                memo = Path(env["XDG_CACHE_HOME"]) / "swarm-handoff" / "memo"
                sizes = sorted(p.stat().st_size for p in memo.rglob("*.bin") if "entry-points" in str(p))
                held = f"{len(sizes)} file(s), {sum(sizes) / 1024:.0f} KiB in all, largest {sizes[-1] / 1024:.0f} KiB"
                print(f"| `{name}` | {state} | {shown} ({figure / base:.2f}x `python -c pass`) | {held} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
