"""Ranking benchmark: the time of one `rank()` call per scorer, over synthetic skill sets of given sizes.

Every installed scorer (the core's `swarm-v2` and `registry-v3`, and `bm25` and `router` when their
distributions are installed) ranks the same records for the same synthesis, through the public
`rank()` the CLI and the MCP server call, so the host's own work (choosing the scorer, checking its
answers, summing, sorting) is measured with the scorer's. The records are generated from a fixed
seed (a description of 6-14 words from a small vocabulary, one to three categories, no SKILL.md
body), so two runs, or two commits, rank exactly the same input. Each figure is the minimum of
`--rounds` calls, the least disturbed run, timed in CPU time of this process: ranking is
single-threaded and reads no file here, so CPU time is its cost, and it does not count the time
other processes hold the CPU on a shared machine (wall time does; `--wall` measures that instead).

Run: `python bench/bench_rank.py [--sizes 200,2000] [--rounds 7]`; never a unit test.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

from swarm_handoff.components import Kind
from swarm_handoff.plugins import get_host
from swarm_handoff.ranking import RankingRequest, rank
from swarm_handoff.records import SkillRecord
from swarm_handoff.synthesis import parse_synthesis

WORDS = """review research literature caching analysis implement build code verify test plan schedule
    design architecture document archive compare tools vendor cost estimate debug error security
    performance data pipeline report summarise decision option risk prototype deploy monitor""".split()  # noqa: SIM905 - a word list reads better as text
CATEGORIES = ("research", "analysis", "implementation", "architecture", "verification", "creative", "writing")
SCOPES = ("project", "global", "installed")
SYNTHESIS = {
    "original_prompt": "Review the research literature on caching before we build a prototype",
    "reframed_challenge": "Which caching designs suit a data pipeline, and at what cost?",
    "synthesis_summary": "Compare caching architectures, estimate cost and risk, then plan an implementation",
    "problem_type": "research",
    "convergence_level": "low",
    "key_uncertainties": ["cost", "performance under load", "security of shared caches"],
}


def records(count: int, seed: int = 13) -> list[SkillRecord]:
    """`count` skills with varied descriptions and categories, the same for a given seed."""
    rng = random.Random(seed)
    return [
        SkillRecord(
            name=f"skill-{index:05d}",
            scope=rng.choice(SCOPES),
            source="bench",
            description=" ".join(rng.choices(WORDS, k=rng.randint(6, 14))),
            categories=tuple(rng.sample(CATEGORIES, rng.randint(1, 3))),
        )
        for index in range(count)
    ]


def time_rank(skills: list[SkillRecord], scorer: str, rounds: int, clock: Callable[[], float]) -> float:
    """The fastest of `rounds` rankings of `skills`, in milliseconds."""
    host = get_host()
    request = RankingRequest(synthesis=parse_synthesis(SYNTHESIS))
    best = float("inf")
    for _ in range(rounds):
        start = clock()
        rank(skills, request, scorer=scorer, host=host)
        best = min(best, clock() - start)
    return best * 1000


def main(argv: list[str] | None = None) -> None:
    """Print one markdown row per scorer: its milliseconds per `rank()` at each size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="200,2000", help="comma-separated skill counts")
    parser.add_argument("--rounds", type=int, default=7, help="rankings per figure; the fastest is kept")
    parser.add_argument("--wall", action="store_true", help="time wall-clock, not this process's CPU time")
    args = parser.parse_args(argv)
    clock = time.perf_counter if args.wall else time.process_time
    sizes = [int(s) for s in args.sizes.split(",")]
    scorers = sorted(get_host().components(Kind.SCORER))
    sets = {size: records(size) for size in sizes}
    rows: list[dict[str, Any]] = []
    for scorer in scorers:
        rank(sets[sizes[0]], RankingRequest(synthesis=parse_synthesis(SYNTHESIS)), scorer=scorer)  # warm up
        rows.append({"scorer": scorer, **{size: time_rank(sets[size], scorer, args.rounds, clock) for size in sizes}})
    unit = "ms" if args.wall else "ms CPU"
    print("| scorer | " + " | ".join(f"{size} skills ({unit})" for size in sizes) + " |")
    print("| --- |" + " ---: |" * len(sizes))
    for row in rows:
        print(f"| {row['scorer']} | " + " | ".join(f"{row[size]:.1f}" for size in sizes) + " |")


if __name__ == "__main__":
    main()
