"""Leave-one-out check of the router's hand-written tables (issue 28, point 6): does each entry earn its place?

For every entry of the phrase table (`phrases.IDIOMS`) and of the synonym table
(`text.SYNONYM_GROUPS`), the requests it can affect (its pattern fires on them, or they use one of
its words) are ranked again without it, over the routing benchmark's skills. An entry **earns its
place** when removing it costs reciprocal rank, summed over the affected requests of the sets it was
not tuned on: the sets outside `bench_routing.CALIBRATION` (holdout8 to holdout13, written after the
tables and never used to extend them). An entry that fires on none of them has no evidence either way.

Prints one line per entry (the effect of removing it on the tuned and on the held-out sets, and
the first labelled request it fires on: the request that justifies it) and the list of entries
that do not earn their place. Nothing is changed: the list is for a person to act on.
Run: `python bench/ablate_tables.py [--json FILE]`; never a unit test.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import bench_routing

from swarm_handoff_router import document, index, phrases, rerank, scoring, text
from swarm_handoff_router.request import Request


def reciprocal(run: Callable[[str], list[float]], names: Sequence[str], request: dict[str, Any]) -> float:
    """1 / the place of the first right skill for one labelled request."""
    scores = run(request["q"])
    order = sorted(range(len(names)), key=lambda i: (-scores[i], names[i]))
    right = set(request["skills"])
    return next(1 / place for place, i in enumerate(order, start=1) if names[i] in right)


def main(argv: list[str] | None = None) -> None:
    """Measure every entry of both tables with it and without it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--json", type=Path, help="also write the measurements here")
    args = parser.parse_args(argv)
    if not bench_routing.CORPUS.is_dir():
        print(f"ablate_tables: skipped: no corpus at {bench_routing.CORPUS}")
        return
    records = bench_routing.load_skills(bench_routing.CORPUS)
    built = index.Index.of(document.analyse(records))
    names = list(built.names)
    known = set(names)
    labelled = [
        (name, r)
        for name, path in bench_routing.request_files().items()
        for r in bench_routing.load_requests(path)
        if set(r["skills"]) & known
    ]

    def run(q: str) -> list[float]:
        request = Request.of(bench_routing.Query(q))
        contributions, matches = scoring.score_index(built, request)
        ranked = rerank.rerank(names, contributions, matches, priorities=[r.priority for r in records])
        return [sum(c.points for c in found) for found in ranked]

    baseline = {id(r): reciprocal(run, names, r) for _, r in labelled}
    results: list[dict[str, Any]] = []
    patterns = phrases.IDIOM_PATTERNS
    for number, (pattern, words) in enumerate(patterns):
        affected = [(s, r) for s, r in labelled if pattern.search(r["q"])]
        phrases_without = patterns[:number] + patterns[number + 1 :]
        original = phrases.IDIOM_PATTERNS
        phrases.IDIOM_PATTERNS = phrases_without
        try:
            results.append(_effect(f"phrase {number}: -> {words}", affected, baseline, run, names))
        finally:
            phrases.IDIOM_PATTERNS = original
    groups = text.SYNONYM_GROUPS
    for number, group in enumerate(groups):
        stems = {text.stem(w) for w in group}
        affected = [(s, r) for s, r in labelled if stems & set(text.tokenize(r["q"]))]
        without = text._synonym_table(groups[:number] + groups[number + 1 :])
        saved = (scoring.SYNONYMS, document.SYNONYMS, index.SYNONYMS)
        scoring.SYNONYMS = document.SYNONYMS = index.SYNONYMS = without  # type: ignore[misc]
        try:
            results.append(_effect(f"synonyms {number}: {' '.join(group)}", affected, baseline, run, names))
        finally:
            scoring.SYNONYMS, document.SYNONYMS, index.SYNONYMS = saved  # type: ignore[misc]
    for row in results:
        print(
            f"{row['entry'][:70]:70} tuned {row['tuned']:+.3f} held-out {row['held_out']:+.3f} "
            f"({row['held_out_requests']} held-out requests){'' if row['earns'] else '  <- does not earn its place'}"
        )
    losers = [row for row in results if not row["earns"]]
    print(f"\n{len(losers)} of {len(results)} entries do not earn their place on the held-out sets:")
    for row in losers:
        why = "fires on no held-out request" if not row["held_out_requests"] else "removing it costs nothing there"
        print(f"  {row['entry'][:90]} ({why}; justified by: {row['justified_by']!r})")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


def _effect(
    entry: str,
    affected: Sequence[tuple[str, dict[str, Any]]],
    baseline: dict[int, float],
    run: Callable[[str], list[float]],
    names: Sequence[str],
) -> dict[str, Any]:
    """What removing one entry does: the reciprocal rank it was worth on tuned and on held-out sets."""
    tuned = held = 0.0
    held_count = 0
    for set_name, request in affected:
        worth = baseline[id(request)] - reciprocal(run, names, request)
        if set_name in bench_routing.CALIBRATION:
            tuned += worth
        else:
            held += worth
            held_count += 1
    return {
        "entry": entry,
        "tuned": tuned,
        "held_out": held,
        "held_out_requests": held_count,
        "earns": held > 1e-9,
        "justified_by": affected[0][1]["q"] if affected else None,
    }


if __name__ == "__main__":
    main()
