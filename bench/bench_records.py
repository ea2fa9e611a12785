"""Serialising skill records: `to_data`, `to_row` and `from_row` over a 10,000-skill answer.

These run once per record on every discovery whose answer is printed or stored, so they are the
per-record floor of a warm `discover` at 10,000 skills. Run directly (`python bench/bench_records.py`,
in an environment with swarm-handoff installed) or with `python3 -m nox -s bench`; pass
`--python OTHER` to time another environment's install side by side, in the same run, round-robin.
Reports the median of `--repeat` timings per operation, in milliseconds for all records.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

CHILD = """
import json, sys, time
from swarm_handoff.records import SkillRecord
from swarm_handoff.errors import Problem
count = int(sys.argv[1])
records = [
    SkillRecord(
        name=f"skill-{i}", scope="project", source="frontmatter", path=f"/p/skill-{i}/SKILL.md",
        description=f"Skill number {i}.", categories=("research", "writing"), accepts_from=("*",),
        provides_to=("review",), meta={"version": "1"}, declared_name="Skill" if i % 7 == 0 else None,
        problems=(Problem("X", "m"),) if i % 11 == 0 else (),
    )
    for i in range(count)
]
rows = [r.to_row() for r in records]
def timed(action):
    start = time.perf_counter(); action(); return (time.perf_counter() - start) * 1000
print(json.dumps({
    "to_data": timed(lambda: [r.to_data() for r in records]),
    "to_row": timed(lambda: [r.to_row() for r in records]),
    "from_row": timed(lambda: [SkillRecord.from_row(row) for row in rows]),
}))
"""


def main(argv: list[str] | None = None) -> None:
    """Time the record serialisers in this environment (and in `--python`, side by side)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--python", action="append", default=[], help="another interpreter to time alongside")
    args = parser.parse_args(argv)
    pythons = [sys.executable, *args.python]
    results: dict[str, dict[str, list[float]]] = {p: {} for p in pythons}
    for _ in range(args.repeat):
        for python in pythons:  # round-robin: a burst of load hits every install alike
            out = subprocess.run([python, "-c", CHILD, str(args.count)], capture_output=True, text=True, check=True)
            for name, value in json.loads(out.stdout).items():
                results[python].setdefault(name, []).append(value)
    for python, timings in results.items():
        row = "  ".join(f"{name} {statistics.median(values):7.2f} ms" for name, values in timings.items())
        print(f"{python}: {args.count} records: {row}")


if __name__ == "__main__":
    main()
