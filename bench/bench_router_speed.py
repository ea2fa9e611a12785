"""Router speed benchmark: analysing skills, and `rank --scorer router` over 2,000 skills, cold and warm.

Two measurements, each the minimum of `--rounds` runs (the least disturbed one on a shared machine):

* **analysis**: `document.analyse` of the routing benchmark's skills (every SKILL.md under
  ../shared/corpus plus bench/routing/fixtures, as bench_routing.py loads them) in this process,
  with the stem memo cleared before each run; once with the analysis memo off
  (`SWARM_HANDOFF_NO_CACHE=1`) and once with it warm. Skipped without ../shared/corpus.
* **rank**: `swarm-handoff rank --synthesis S --scorer router --include-undeclared` in a fresh
  interpreter over a generated tree of `--size` skills (seeded: a description of 8-16 words and a
  body of 80-200 lines of varied sentences, about 10 KB as real bodies; some with a "do not use for"
  sentence or a "When not to use" section; every file dated an hour back, as a user's files are).
  *cold*: an empty user cache (discovery's caches and the router's memo empty); *warm*: the same
  command again; *memo off*: `SWARM_HANDOFF_NO_CACHE=1`, every cache off. The wall time of the
  whole command is reported.

* **on a real tree** (`--real --sizes 2000`): the generated tree's 60-word vocabulary puts every
  word in most skills, so postings save nothing there. This mode copies the routing benchmark's
  real SKILL.md files (the 192 skills bench_routing.py ranks: ../shared/corpus plus
  bench/routing/fixtures) until the tree holds `--sizes` skills, each copy under a name of its own
  (`NAME-2`, `NAME-3`, ...; the frontmatter name rewritten to match), and times, each command in a
  fresh interpreter, round-robin, the minimum of `--rounds`: `route REQUEST` cold and warm (the
  router), `rank --request REQUEST --scorer bm25` cold and warm (plain BM25 over every skill), and
  `agentskills read-properties` on one skill, each in wall time and in CPU time (user + system of
  the child: what a command costs whatever else the shared machine runs). REQUEST is a labelled
  request of holdout13. A real
  tree of 2,000 distinct skills would have a larger vocabulary still; copies keep the corpus's.

* **side by side** (`--sizes 2000 10000`): in one run over the same generated tree, each command in a
  fresh interpreter, round-robin, the minimum of `--rounds`: `rank --scorer router` and `rank
  --scorer bm25` (plain BM25), each cold (an empty user cache) and warm (the same command again),
  and `agentskills read-properties` on one skill, the yardstick issue 28 states its targets in
  (warm router <= 2x it at 2,000 skills, <= 4x at 10,000; cold router <= 1.5 s at 2,000). The
  ratios are printed and kept in the results.

Results go to bench/results/router_speed.json; the figures in docs/routing.md ("Speed") were taken
with it. Run: `python bench/bench_router_speed.py [--size 2000] [--rounds 3] [--sizes 2000 10000] [--real]`;
never a unit test. Without the router installed it says so and exits 0.
To time another version of the router, put its `src` folder first on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
sys.path.insert(0, str(Path(__file__).parent))

WORDS = """review research literature caching analysis implement build code verify test plan schedule
    design architecture document archive compare vendor cost estimate debug error security pipeline
    performance data report summarise decision option risk prototype deploy monitor chart table
    invoice contract spreadsheet slide figure image audio video email calendar ticket release
    migration schema query index backup recovery latency budget forecast survey interview""".split()  # noqa: SIM905 - a word list reads better as text
SENTENCES = (
    "Read the {a} first, then check the {b} against the {c}.",
    "Use this skill when the user needs a {a} of the {b}; it writes a short {c}.",
    "Keep every {a} small, and record the {b} in the {c} notes.",
    "Compare the {a} with the {b} and list what changed in the {c}.",
    "Step {n}: open the {a}, update the {b}, save the {c}.",
    "If the {a} is missing, ask for it before you touch the {b} or the {c}.",
)
# Negative triggers are rare in real bodies (about one per skill): one sentence in some bodies.
NEGATIVE = (
    "Do not use this skill for {a} or {b}; use the {c} skill instead.",
    "It is not for {a} work. For {b} tasks, use {c}-helper.",
    "Never invoke it to {a} a {b} without the {c}.",
)
SYNTHESIS = """original_prompt: Review the research literature on caching before we build a prototype
reframed_challenge: Which caching designs suit a data pipeline, and at what cost?
synthesis_summary: Compare caching architectures, estimate cost and risk, then plan an implementation
problem_type: research
convergence_level: low
"""


def body(rng: random.Random) -> str:
    """80-200 lines of varied sentences (about 10 KB, as real bodies), some with negative triggers."""
    lines = ["# Instructions", ""]
    for n in range(rng.randint(80, 200)):
        a, b, c = rng.sample(WORDS, 3)
        lines.append(rng.choice(SENTENCES).format(a=a, b=b, c=c, n=n))
        if n % 15 == 14:
            lines += ["", f"## {rng.choice(WORDS).title()}", ""]
    if rng.random() < 0.3:
        a, b, c = rng.sample(WORDS, 3)
        lines.insert(rng.randint(2, len(lines)), rng.choice(NEGATIVE).format(a=a, b=b, c=c))
    if rng.random() < 0.2:
        lines += ["", "## When not to use", ""] + [f"- {' '.join(rng.sample(WORDS, 4))}" for _ in range(3)]
    return "\n".join(lines) + "\n"


def make_tree(root: Path, count: int, seed: int = 7) -> Path:
    """`count` generated skills under root/.claude/skills, dated an hour back; returns root."""
    rng = random.Random(seed)
    skills = root / ".claude" / "skills"
    past = time.time() - 3600
    for i in range(count):
        folder = skills / f"skill-{i:05d}"
        folder.mkdir(parents=True)
        description = " ".join(rng.choices(WORDS, k=rng.randint(8, 16)))
        path = folder / "SKILL.md"
        path.write_text(f"---\nname: skill-{i:05d}\ndescription: {description}\n---\n{body(rng)}", encoding="utf-8")
        os.utime(path, (past, past))
        os.utime(folder, (past, past))
    os.utime(skills, (past, past))
    return root


# A labelled request of holdout13 (written blind), of the kind `route` answers.
REQUEST = (
    "The user says all six sprint tasks are done and CI is green; next step: confirm each one really "
    "meets its acceptance checklist before anything gets marked done."
)


def real_sources() -> list[Path]:
    """The SKILL.md of each skill the routing benchmark ranks, one per name (as bench_routing.load_skills)."""
    import bench_routing

    if not bench_routing.CORPUS.is_dir():
        raise SystemExit(f"bench_router_speed: --real needs the corpus at {bench_routing.CORPUS}")
    return [Path(str(r.path)) for r in bench_routing.load_skills(bench_routing.CORPUS)]


def make_real_tree(root: Path, count: int) -> Path:
    """`count` skills under root/.claude/skills copied from the real ones, each under its own name; returns root."""
    sources = real_sources()
    skills = root / ".claude" / "skills"
    past = time.time() - 3600
    for i in range(count):
        source = sources[i % len(sources)]
        copy = i // len(sources)
        name = source.parent.name if copy == 0 else f"{source.parent.name}-{copy + 1}"
        text = source.read_text(encoding="utf-8", errors="replace")
        head, sep, rest = text.partition("\nname:")
        if sep and text.startswith("---"):  # the frontmatter's name line, rewritten to the folder's
            text = f"{head}\nname: {name}{rest[rest.find(chr(10)) :] if chr(10) in rest else ''}"
        folder = skills / name
        folder.mkdir(parents=True)
        path = folder / "SKILL.md"
        path.write_text(text, encoding="utf-8")
        os.utime(path, (past, past))
        os.utime(folder, (past, past))
    os.utime(skills, (past, past))
    return root


def router_missing(bench: str) -> bool:
    """True, after saying so, when the router plugin is not installed: the commands timed need it."""
    try:
        importlib.metadata.distribution("swarm-handoff-router")
    except importlib.metadata.PackageNotFoundError:
        print(
            f"{bench}: skipped: the router (swarm-handoff-router) is not installed in this environment; "
            "install plugins/swarm-handoff-router (`nox -s bench` does)"
        )
        return True
    return False


def _env(cache: Path, no_cache: bool = False) -> dict[str, str]:
    env = {
        "HOME": str(cache.parent),
        "XDG_CACHE_HOME": str(cache),
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
    }
    if no_cache:
        env["SWARM_HANDOFF_NO_CACHE"] = "1"
    return env


def time_command(arguments: list[str], cache: Path, program: str = "swarm-handoff") -> tuple[float, float]:
    """Wall and CPU time (user + system) of one `PROGRAM ARGUMENTS` in a fresh interpreter (the installed command).

    CPU time is what the command costs whatever else the shared machine runs; wall time is what a
    user waits, and on a loaded machine it is mostly waiting for a core.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    command = [str(Path(sys.executable).with_name(program)), *arguments]
    done = subprocess.run(command, env=_env(cache), capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"bench_router_speed: {arguments[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def real_side_by_side(size: int, rounds: int) -> dict[str, float]:
    """`route` and plain BM25 (`rank --request --scorer bm25`), cold and warm, and read-properties: a real tree."""
    keys = ("router_cold", "router_warm", "bm25_cold", "bm25_warm", "read")
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in keys}
    with tempfile.TemporaryDirectory(prefix="bench-router-real-") as tmp:
        root = make_real_tree(Path(tmp) / "project", size)
        commands = {
            "router": ["route", REQUEST, "--cwd", str(root)],
            "bm25": ["rank", "--request", REQUEST, "--scorer", "bm25", "--cwd", str(root)],
        }
        one = sorted((root / ".claude" / "skills").iterdir())[0]
        for number in range(rounds):
            for scorer, arguments in commands.items():
                cache = Path(tmp) / f"home-{scorer}-{number}" / ".cache"
                cache.mkdir(parents=True)
                times[f"{scorer}_cold"].append(time_command(arguments, cache))
                times[f"{scorer}_warm"].append(time_command(arguments, cache))
            cache = Path(tmp) / f"home-read-{number}" / ".cache"
            cache.mkdir(parents=True)
            times["read"].append(time_command(["read-properties", str(one)], cache, program="agentskills"))
    best: dict[str, float] = {"size": size}
    for key, pairs in times.items():
        best[key] = min(wall for wall, _ in pairs)
        best[f"{key}_cpu"] = min(cpu for _, cpu in pairs)
    for suffix in ("", "_cpu"):
        best[f"warm_over_read{suffix}"] = best[f"router_warm{suffix}"] / best[f"read{suffix}"]
        best[f"warm_over_bm25{suffix}"] = best[f"router_warm{suffix}"] / best[f"bm25_warm{suffix}"]
        best[f"cold_over_bm25{suffix}"] = best[f"router_cold{suffix}"] / best[f"bm25_cold{suffix}"]
    return best


def time_rank(root: Path, cache: Path, *, no_cache: bool = False, scorer: str = "router") -> float:
    """Wall time of one `rank --scorer SCORER` command over the tree (a fresh interpreter)."""
    env = {
        "HOME": str(cache.parent),
        "XDG_CACHE_HOME": str(cache),
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
    }
    if no_cache:
        env["SWARM_HANDOFF_NO_CACHE"] = "1"
    program = Path(sys.executable).with_name("swarm-handoff")  # the installed command, as a user runs it
    command = [str(program), "rank", "--synthesis", str(root / "synthesis.yaml")]
    command += ["--scorer", scorer, "--include-undeclared", "--cwd", str(root)]
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"bench_router_speed: rank failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed


def rank_times(size: int, rounds: int) -> dict[str, float]:
    """Minimum cold, warm and memo-off times of `rank --scorer router` over a generated tree."""
    with tempfile.TemporaryDirectory(prefix="bench-router-") as tmp:
        root = make_tree(Path(tmp) / "project", size)
        (root / "synthesis.yaml").write_text(SYNTHESIS, encoding="utf-8")
        cold, warm, off = [], [], []
        for number in range(rounds):
            cache = Path(tmp) / f"home-{number}" / ".cache"
            cache.mkdir(parents=True)
            cold.append(time_rank(root, cache))
            warm.append(time_rank(root, cache))
            off.append(time_rank(root, cache, no_cache=True))
        return {"cold": min(cold), "warm": min(warm), "memo_off": min(off)}


def time_read_properties(root: Path) -> float:
    """Wall time of `agentskills read-properties` on one skill of the tree (a fresh interpreter)."""
    program = Path(sys.executable).with_name("agentskills")
    start = time.perf_counter()
    subprocess.run([str(program), "read-properties", str(root / ".claude" / "skills" / "skill-00002")],
                   capture_output=True, check=False)  # fmt: skip
    return time.perf_counter() - start


def side_by_side(size: int, rounds: int) -> dict[str, float]:
    """Router and plain BM25, cold and warm, and read-properties on one skill: one tree, round-robin, minima."""
    times: dict[str, list[float]] = {k: [] for k in ("router_cold", "router_warm", "bm25_cold", "bm25_warm", "read")}
    with tempfile.TemporaryDirectory(prefix="bench-router-") as tmp:
        root = make_tree(Path(tmp) / "project", size)
        (root / "synthesis.yaml").write_text(SYNTHESIS, encoding="utf-8")
        for number in range(rounds):
            for scorer in ("router", "bm25"):
                cache = Path(tmp) / f"home-{scorer}-{number}" / ".cache"
                cache.mkdir(parents=True)
                times[f"{scorer}_cold"].append(time_rank(root, cache, scorer=scorer))
                times[f"{scorer}_warm"].append(time_rank(root, cache, scorer=scorer))
            times["read"].append(time_read_properties(root))
    best = {k: min(v) for k, v in times.items()}
    best["size"] = size
    best["warm_over_read"] = best["router_warm"] / best["read"]
    best["warm_over_bm25"] = best["router_warm"] / best["bm25_warm"]
    best["cold_over_bm25"] = best["router_cold"] / best["bm25_cold"]
    return best


def analysis_times(rounds: int) -> dict[str, Any] | None:
    """Minimum CPU time of analysing the routing benchmark's skills: memo off, and memo warm."""
    import bench_routing

    from swarm_handoff_router import document, text

    if not bench_routing.CORPUS.is_dir():
        print(f"bench_router_speed: analysis skipped: no corpus at {bench_routing.CORPUS}")
        return None
    records = bench_routing.load_skills(bench_routing.CORPUS)
    result: dict[str, Any] = {"skills": len(records)}
    with tempfile.TemporaryDirectory(prefix="bench-router-memo-") as tmp:
        for label, env in (("memo_off", {"SWARM_HANDOFF_NO_CACHE": "1"}), ("memo_warm", {"XDG_CACHE_HOME": tmp})):
            saved = {k: os.environ.get(k) for k in ("SWARM_HANDOFF_NO_CACHE", "XDG_CACHE_HOME")}
            os.environ.pop("SWARM_HANDOFF_NO_CACHE", None)
            os.environ.update(env)
            try:
                document.analyse(records)  # fills the memo (when it is on)
                best = float("inf")
                for _ in range(rounds):
                    text.stem.cache_clear()
                    start = time.process_time()
                    document.analyse(records)
                    best = min(best, time.process_time() - start)
                result[label] = best
            finally:
                for key, value in saved.items():
                    if value is None:
                        os.environ.pop(key, None)
                    else:
                        os.environ[key] = value
    return result


def main(argv: list[str] | None = None) -> None:
    """Run both measurements and write bench/results/router_speed.json."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--size", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[], help="side by side with BM25 at these sizes only")
    parser.add_argument("--real", action="store_true", help="with --sizes: a tree of the real benchmark skills")
    args = parser.parse_args(argv)
    if router_missing("bench_router_speed"):
        return
    if args.sizes:
        measure = real_side_by_side if args.real else side_by_side
        rows = [measure(size, args.rounds) for size in args.sizes]
        for r in rows:
            if args.real:
                print(
                    f"{r['size']:>6} real skills, CPU (wall): route warm {r['router_warm_cpu']:.2f} s "
                    f"({r['router_warm']:.2f} s), cold {r['router_cold_cpu']:.2f} s ({r['router_cold']:.2f} s); bm25 "
                    f"warm {r['bm25_warm_cpu']:.2f} s ({r['bm25_warm']:.2f} s), cold {r['bm25_cold_cpu']:.2f} s "
                    f"({r['bm25_cold']:.2f} s); read-properties {r['read_cpu']:.2f} s ({r['read']:.2f} s); warm route "
                    f"/ read-properties {r['warm_over_read_cpu']:.2f}x ({r['warm_over_read']:.2f}x); cold route / "
                    f"bm25 {r['cold_over_bm25_cpu']:.2f}x ({r['cold_over_bm25']:.2f}x)"
                )
                continue
            print(
                f"{r['size']:>6} skills: router warm {r['router_warm']:.2f} s, cold {r['router_cold']:.2f} s; "
                f"bm25 warm {r['bm25_warm']:.2f} s, cold {r['bm25_cold']:.2f} s; read-properties {r['read']:.2f} s; "
                f"warm router / read-properties {r['warm_over_read']:.2f}x, router / bm25 warm "
                f"{r['warm_over_bm25']:.2f}x, cold {r['cold_over_bm25']:.2f}x"
            )
        if len(rows) > 1:
            first, last = rows[0], rows[-1]
            growth = (last["router_warm"] / first["router_warm"]) / (last["size"] / first["size"])
            print(f"warm router cost from {first['size']} to {last['size']} skills: {growth:.2f} of linear")
        RESULTS.mkdir(parents=True, exist_ok=True)
        name = "router_side_by_side_real.json" if args.real else "router_side_by_side.json"
        (RESULTS / name).write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
        return
    results: dict[str, Any] = {"analysis": analysis_times(max(args.rounds, 5))}
    if results["analysis"]:
        a = results["analysis"]
        print(
            f"analyse {a['skills']} skills: {a['memo_off'] * 1000:.0f} ms memo off, "
            f"{a['memo_warm'] * 1000:.0f} ms memo warm (CPU)"
        )
    results["rank"] = {"size": args.size, **rank_times(args.size, args.rounds)}
    r = results["rank"]
    print(
        f"rank --scorer router over {args.size} skills: cold {r['cold']:.2f} s, warm {r['warm']:.2f} s, "
        f"every cache off {r['memo_off']:.2f} s (wall, whole command)"
    )
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "router_speed.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
