"""Stored caches on disk after many `discover` runs over changing trees and environments (issue 14's target).

A global skills folder of N realistic skills (bench_discovery's generator) is shared by every run;
run i works from its own project folder (a new working directory: a new result-store key), with its
own environment variable, adds one project skill, and every 10th run edits one global SKILL.md.
Each run is the console script's `main()` for `swarm-handoff discover --format json`, called in
this process (the same code path as the installed command, without paying interpreter start-up
100 times), so every store is exercised: the memos (`memo/`: the parse memo, the entry-point scan)
and the result store (`results/`). At the end it prints the size of each store and of the whole
cache folder. Never part of the test suite.

Run: `python bench/bench_cache_size.py [--skills 10000] [--runs 100]`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_discovery import frontmatter, make_tree  # a sibling script, not a package


def folder_size(path: Path) -> int:
    """Bytes of every file under `path`."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run_cli(args: list[str], env: dict[str, str]) -> None:
    """One `swarm-handoff` command as the console script runs it, with `env` as the whole environment."""
    from swarm_handoff.cli.entry import main as cli_main

    saved_env, saved_argv = dict(os.environ), sys.argv
    os.environ.clear()
    os.environ.update(env)
    sys.argv = ["swarm-handoff", *args]
    try:
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
            cli_main()
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        sys.argv = saved_argv


def main(argv: list[str] | None = None) -> None:
    """Run the measurement and print one JSON line per store."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=100)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="swarm-cache-size-") as tmp:
        work = Path(tmp)
        home = work / "home"
        global_skills = make_tree(home / ".claude" / "x", args.skills)  # .../x/.claude/skills
        (home / ".claude" / "skills").parent.mkdir(parents=True, exist_ok=True)
        global_skills.rename(home / ".claude" / "skills")
        cache = work / "cache"
        env = {"HOME": str(home), "XDG_CACHE_HOME": str(cache), "PATH": os.environ.get("PATH", "")}
        env.update((k, v) for k, v in os.environ.items() if k.startswith("SWARM_HANDOFF_"))  # plugin choices
        started = time.perf_counter()
        for i in range(args.runs):
            project = work / "projects" / f"p{i:03d}"
            skill = project / ".claude" / "skills" / f"local-{i:03d}" / "SKILL.md"
            skill.parent.mkdir(parents=True)
            skill.write_text(frontmatter(i) + "body\n", encoding="utf-8")
            if i % 10 == 9:
                edited = home / ".claude" / "skills" / f"skill-{i:05d}" / "SKILL.md"
                edited.write_text(edited.read_text(encoding="utf-8") + "edited\n", encoding="utf-8")
            time.sleep(0.06)  # past the racy margin, so each answer is stored as a user's would be
            run_cli(["discover", "--format", "json", "--cwd", str(project)], {**env, "BENCH_RUN": str(i)})
        elapsed = time.perf_counter() - started
        stores = {p.name: folder_size(p) if p.is_dir() else p.stat().st_size for p in sorted(cache.glob("*/*"))}
        total = folder_size(cache)
        print(json.dumps({"skills": args.skills, "runs": args.runs, "seconds": round(elapsed, 1)}))
        for name, size in stores.items():
            print(json.dumps({"store": name, "mb": round(size / 1e6, 1)}))
        print(json.dumps({"store": "total", "mb": round(total / 1e6, 1)}))


if __name__ == "__main__":
    main()
