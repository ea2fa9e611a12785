"""Discovery side by side with an earlier commit, interleaved, so that a loaded machine hurts both alike.

`bench_discovery.py` measures one checkout; on a shared machine its absolute times move with the
load from one minute to the next. This script extracts REF (`git archive`) into a temporary folder
and, round after round, runs the same child in a fresh interpreter against REF's sources and this
checkout's (PYTHONPATH first, so the editable installs' entry points find the right modules):
cold discovery (empty user cache), repeated with nothing changed, and repeated after one SKILL.md
changed, over the same trees (bench_discovery's generator), with the same plugins loaded in both
(the frontmatter and registry sources, and the core's packs). It prints the minimum of each over the
rounds and the ratio this checkout / REF (below 1.0 is faster). `SWARM_HANDOFF_JOBS=1` keeps the
cold scan on one core in both, so the fork threshold does not depend on the load of the moment.

Run: `python bench/bench_ab.py [--ref HEAD~1] [--sizes 1000,5000] [--rounds 3]`. Never part of the suite.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_discovery import make_tree  # a sibling script, not a package

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, os, sys, time
from swarm_handoff.discovery import discover, make_context
root, home, cache, touched = sys.argv[1:5]
env = {"HOME": home, "XDG_CACHE_HOME": cache, "PATH": os.environ.get("PATH", ""), "SWARM_HANDOFF_JOBS": "1"}
def timed():
    start = time.perf_counter()
    result = discover(make_context(root, env))
    return time.perf_counter() - start, len(result.workflows)
cold, n = timed()
time.sleep(0.1)  # past the racy margin: the answer just computed rests on settled files
unchanged, _ = timed()
with open(touched, "a", encoding="utf-8") as handle:
    handle.write("\n")
time.sleep(0.1)
one_change, m = timed()
print(json.dumps({"cold": cold, "unchanged": unchanged, "one_change": one_change, "workflows": [n, m]}))
"""


def source_path(tree: Path) -> str:
    """PYTHONPATH naming every distribution's sources of a checkout."""
    parts = [tree / "core" / "src", *sorted(tree.glob("plugins/*/src")), *sorted(tree.glob("skills-examples/*/src"))]
    return os.pathsep.join(str(p) for p in parts)


def main(argv: list[str] | None = None) -> None:
    """Measure and print one JSON line per size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="HEAD~1")
    parser.add_argument("--sizes", default="1000,5000")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="swarm-ab-") as tmp:
        work = Path(tmp)
        base = work / "base"
        base.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.ref], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
        paths = {"before": source_path(base), "after": source_path(ROOT)}
        for size in (int(s) for s in args.sizes.split(",")):
            root = work / f"tree-{size}"
            skills = make_tree(root, size)
            touched = str(skills / "skill-00001" / "SKILL.md")
            best: dict[str, dict[str, float]] = {"before": {}, "after": {}}
            for number in range(args.rounds):
                for label in ("before", "after") if number % 2 == 0 else ("after", "before"):
                    cache = work / f"cache-{size}-{label}-{number}"
                    # The same sources in both: a plugin installed for one checkout only fails in the other.
                    env = {
                        **os.environ,
                        "PYTHONPATH": paths[label],
                        "SWARM_HANDOFF_LOAD_PLUGINS": "frontmatter,registry",
                    }
                    command = [sys.executable, "-c", CHILD, str(root), str(work / "home"), str(cache), touched]
                    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
                    measured = json.loads(done.stdout.strip().splitlines()[-1])
                    for key in ("cold", "unchanged", "one_change"):
                        best[label][key] = min(best[label].get(key, float("inf")), measured[key])
            row = {"skills": size, "ref": args.ref}
            for key in ("cold", "unchanged", "one_change"):
                row[f"{key}_before_ms"] = round(best["before"][key] * 1000, 1)
                row[f"{key}_after_ms"] = round(best["after"][key] * 1000, 1)
                row[f"{key}_after/before"] = round(best["after"][key] / best["before"][key], 2)
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
