"""Leave-one-set-out check of the router's hand-written tables (issue 28, point 6): does each entry earn its place?

For every entry of the phrase table (`phrases.IDIOMS`) and of the synonym table
(`text.SYNONYM_GROUPS`), the requests it can affect (its pattern fires on them, or they use one of
its words) are ranked again without it, over the routing benchmark's skills. An entry **earns its
place** when removing it costs reciprocal rank, summed over the affected requests of the sets it
was not tuned on. The sets it was tuned on are its `origin.tuned_on` in tables.json
(bench/table_origins.py: the sets used to build the router that were in the repository when the
entry took its final form, and on which it fires); an entry is judged on every other labelled set,
so an entry written in the first commit, when only `dev` existed, is judged on the fourteen others.
An entry that fires on none of them has no evidence for it, and does not earn its place.

Prints one line per entry (the effect of removing it on its own sets and on the others) and the
list of entries that do not earn their place. With `--cross`, each set is ranked again with the
entries the rule keeps when that set's own evidence is left out of the choice (the honest estimate
for a set the choice never saw). With `--drop`, the entries that do not earn their place are removed from
tables.json and every kept entry's `measured` is rewritten (one round: the rule applied once to
the table as it stood). Run: `python bench/ablate_tables.py [--json FILE] [--cross] [--drop]`; never a unit test.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import bench_routing

from swarm_handoff_router import document, index, phrases, rerank, scoring, tables, text
from swarm_handoff_router.request import Request

TABLES = Path(tables.__file__).with_name(tables.FILE)


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
    parser.add_argument("--drop", action="store_true", help="remove the entries that do not earn their place")
    parser.add_argument(
        "--cross", action="store_true", help="also rank each set with the entries chosen without its evidence"
    )
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
    data = json.loads(TABLES.read_text(encoding="utf-8"))
    results: list[dict[str, Any]] = []
    patterns = phrases.IDIOM_PATTERNS
    for number, (pattern, words) in enumerate(patterns):
        affected = [(s, r) for s, r in labelled if pattern.search(r["q"])]
        phrases_without = patterns[:number] + patterns[number + 1 :]
        original = phrases.IDIOM_PATTERNS
        phrases.IDIOM_PATTERNS = phrases_without
        tuned_on = _tuned_on(data["phrases"][number])
        try:
            results.append(_effect(f"phrase {number}: -> {words}", affected, baseline, run, names, tuned_on))
        finally:
            phrases.IDIOM_PATTERNS = original
    groups = text.SYNONYM_GROUPS
    for number, group in enumerate(groups):
        stems = {text.stem(w) for w in group}
        affected = [(s, r) for s, r in labelled if stems & set(text.tokenize(r["q"]))]
        without = text._synonym_table(groups[:number] + groups[number + 1 :])
        saved = (scoring.SYNONYMS, document.SYNONYMS, index.SYNONYMS)
        scoring.SYNONYMS = document.SYNONYMS = index.SYNONYMS = without  # type: ignore[misc]
        tuned_on = _tuned_on(data["synonyms"][number])
        try:
            results.append(_effect(f"synonyms {number}: {' '.join(group)}", affected, baseline, run, names, tuned_on))
        finally:
            scoring.SYNONYMS, document.SYNONYMS, index.SYNONYMS = saved  # type: ignore[misc]
    for row in results:
        print(
            f"{row['entry'][:70]:70} tuned {row['tuned']:+.3f} held-out {row['held_out']:+.3f} "
            f"({row['held_out_requests']} held-out requests){'' if row['earns'] else '  <- does not earn its place'}"
        )
    losers = [row for row in results if not row["earns"]]
    print(f"\n{len(losers)} of {len(results)} entries do not earn their place on the sets they were not tuned on:")
    for row in losers:
        why = "fires on none of those sets" if not row["held_out_requests"] else "removing it costs nothing there"
        print(f"  {row['entry'][:90]} ({why}; tuned on: {', '.join(row['tuned_on']) or 'none'})")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    if args.cross:
        _cross(results, labelled, baseline, run, names)
    if args.drop:
        entries = [*data["phrases"], *data["synonyms"]]
        for entry, row in zip(entries, results, strict=True):
            entry["measured"] = {k: round(row[k], 3) for k in ("tuned", "held_out")}
            entry["measured"]["held_out_requests"] = row["held_out_requests"]
        kept = [entry for entry, row in zip(entries, results, strict=True) if row["earns"]]
        data["phrases"] = [e for e in kept if "pattern" in e]
        data["synonyms"] = [e for e in kept if "words" in e]
        TABLES.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"dropped {len(entries) - len(kept)} entries from {TABLES.name}; {len(kept)} kept")


def _cross(
    results: Sequence[dict[str, Any]],
    labelled: Sequence[tuple[str, dict[str, Any]]],
    baseline: dict[int, float],
    run: Callable[[str], list[float]],
    names: Sequence[str],
) -> None:
    """Each set ranked with every entry, with the entries the rule keeps, and with those it keeps without that set.

    The rule's choice uses every set an entry was not tuned on, so a set's figure with the kept
    entries flatters them: the set helped choose. The last columns choose without the set's
    evidence (an entry is kept if it earns its place on the other sets it was not tuned on) and
    rank the set with that choice: the honest estimate of how the rule does on a set it never saw.
    """
    count = len(phrases.IDIOM_PATTERNS)
    sets = sorted({s for s, _ in labelled})
    print("\n| set | n | top-1 every entry | top-1 kept | top-1 kept without this set | MRR every / kept / without |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for name in sets:
        chosen = {
            "kept": [row["earns"] for row in results],
            "blind": [
                sum(w for s, w in row["by_set"].items() if s not in row["tuned_on"] and s != name) > 1e-9
                for row in results
            ],
        }
        requests = [r for s, r in labelled if s == name]
        figures = {"every": [baseline[id(r)] for r in requests]}
        for label, keep in chosen.items():
            with _only(keep, count):
                figures[label] = [reciprocal(run, names, r) for r in requests]
        top1 = {k: sum(v == 1 for v in vs) / len(vs) for k, vs in figures.items()}
        mrr = {k: sum(vs) / len(vs) for k, vs in figures.items()}
        print(
            f"| {name} | {len(requests)} | {top1['every']:.2f} | {top1['kept']:.2f} | {top1['blind']:.2f} | "
            f"{mrr['every']:.2f} / {mrr['kept']:.2f} / {mrr['blind']:.2f} |"
        )


@contextlib.contextmanager
def _only(keep: Sequence[bool], count: int) -> Iterator[None]:
    """The tables with only the kept entries (phrases first, then synonym groups, as the results list them)."""
    saved = (phrases.IDIOM_PATTERNS, scoring.SYNONYMS, document.SYNONYMS, index.SYNONYMS)
    phrases.IDIOM_PATTERNS = tuple(p for p, k in zip(saved[0], keep[:count], strict=True) if k)
    groups = tuple(g for g, k in zip(text.SYNONYM_GROUPS, keep[count:], strict=True) if k)
    scoring.SYNONYMS = document.SYNONYMS = index.SYNONYMS = text._synonym_table(groups)  # type: ignore[misc]
    try:
        yield
    finally:
        phrases.IDIOM_PATTERNS, scoring.SYNONYMS, document.SYNONYMS, index.SYNONYMS = saved  # type: ignore[misc]


def _tuned_on(entry: dict[str, Any]) -> frozenset[str]:
    """The sets an entry may have been tuned on (bench/table_origins.py); if unknown, every set used to build it."""
    origin = entry.get("origin")
    if not isinstance(origin, dict):
        return bench_routing.CALIBRATION
    return frozenset(origin["tuned_on"])


def _effect(
    entry: str,
    affected: Sequence[tuple[str, dict[str, Any]]],
    baseline: dict[int, float],
    run: Callable[[str], list[float]],
    names: Sequence[str],
    tuned_on: frozenset[str],
) -> dict[str, Any]:
    """What removing one entry does: the reciprocal rank it was worth on the sets it was tuned on and on the others."""
    tuned = held = 0.0
    held_count = 0
    by_set: dict[str, float] = {}
    for set_name, request in affected:
        worth = baseline[id(request)] - reciprocal(run, names, request)
        by_set[set_name] = by_set.get(set_name, 0.0) + worth
        if set_name in tuned_on:
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
        "tuned_on": sorted(tuned_on),
        "by_set": by_set,
        "justified_by": affected[0][1]["q"] if affected else None,
    }


if __name__ == "__main__":
    main()
