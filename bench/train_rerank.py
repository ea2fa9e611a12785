"""Learn the router's re-ranking weights from the labelled routing requests, and test them honestly.

For every request of every set in bench/routing (the skills as bench_routing.py loads them), the
router scores every skill by words alone; among its RERANK_DEPTH best, each right skill paired with
each wrong one is a training example for a pairwise logistic regression over the four features of
swarm_handoff_router.rerank (share, coverage, claimed, dominance). It prints:

* the weights learned from every set (what rerank.WEIGHTS holds, rounded to two decimals), and
  whether the router ships exactly those (a request set added or changed means learning again);
* for each set, top-1 / top-3 / MRR by words alone and with the second look, where the weights
  used for that set were learned WITHOUT it (leave one set out): the figure that says whether the
  features generalise, not whether they fit.

Pure Python (no numpy), deterministic: Newton's method to convergence, so the weights do not
depend on a step size or a number of steps. Run: `python bench/train_rerank.py [--corpus DIR]`.
Without the shared corpus it says so and exits 0.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_routing as bench

from swarm_handoff_router import document, index, rerank, scoring

FEATURES = ("share", "coverage", "claimed", "dominance")
L2 = 1.0
STEPS = 50
TOLERANCE = 1e-6


def collect(corpus: Path) -> tuple[list[str], list[dict[str, Any]]]:
    """Every labelled request with its word-only contributions and matches over every skill."""
    records = bench.load_skills(corpus)
    names = [r.name for r in records]
    known = set(names)
    built = index.Index.of(document.analyse(records))
    rows: list[dict[str, Any]] = []
    for half, path in bench.request_files().items():
        for request in bench.load_requests(path):
            wanted = {names.index(s) for s in request["skills"] if s in known}
            if not wanted:
                continue
            contributions, matches = scoring.score_index(built, bench.Query(request["q"]))
            rows.append({"set": half, "want": wanted, "contributions": contributions, "matches": matches})
    return names, rows


def _examples(names: Sequence[str], row: Mapping[str, Any]) -> list[list[float]]:
    """Feature differences (right minus wrong) among the best by words: one per right/wrong pair."""
    matches = row["matches"]
    best_ones = rerank.top(names, matches)
    if len(best_ones) < 2:
        return []
    best = matches[best_ones[0]].total
    most = max(matches[i].matched for i in best_ones)
    found = {i: rerank.features(matches[i], best, most) for i in best_ones}
    right = [i for i in best_ones if i in row["want"]]
    wrong = [i for i in best_ones if i not in row["want"]]
    return [[found[g][k] - found[b][k] for k in FEATURES] for g in right for b in wrong]


def train(names: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Pairwise logistic regression (both orders of each pair, L2), fitted by Newton's method."""
    pairs = [x for row in rows for x in _examples(names, row)]
    data = [(x, 1.0) for x in pairs] + [([-v for v in x], 0.0) for x in pairs]
    size = len(FEATURES)
    w = [0.0] * size
    for _ in range(STEPS):
        grad = [L2 * wk for wk in w]
        hessian = [[L2 * (i == j) for j in range(size)] for i in range(size)]
        for x, y in data:
            z = max(-50.0, min(50.0, sum(a * b for a, b in zip(w, x, strict=True))))
            p = 1 / (1 + math.exp(-z))
            for i in range(size):
                grad[i] += (p - y) * x[i]
                for j in range(size):
                    hessian[i][j] += p * (1 - p) * x[i] * x[j]
        step = _solve(hessian, grad)
        w = [wk - d for wk, d in zip(w, step, strict=True)]
        if max(abs(d) for d in step) < TOLERANCE:
            break
    else:
        raise SystemExit(f"train_rerank: no convergence in {STEPS} Newton steps; the weights would be arbitrary")
    learned = dict(zip(FEATURES, w, strict=True))
    if learned["share"] <= 0:
        raise SystemExit(f"train_rerank: learned weight of 'share' {learned['share']:.3f}; the router needs it > 0")
    return learned


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the Hessian is small and positive definite)."""
    size = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(size)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(col + 1, size):
            factor = rows[r][col] / rows[col][col]
            rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    out = [0.0] * size
    for r in reversed(range(size)):
        out[r] = (rows[r][size] - sum(rows[r][c] * out[c] for c in range(r + 1, size))) / rows[r][r]
    return out


def rank_of(names: Sequence[str], row: Mapping[str, Any], weights: Mapping[str, float] | None) -> int:
    """The rank of the first right skill, by words alone (weights None) or with the second look."""
    contributions = row["contributions"]
    if weights is not None:
        contributions = rerank.rerank(names, contributions, row["matches"], weights)
    totals = [sum(c.points for c in cs) for cs in contributions]
    order = sorted(range(len(names)), key=lambda i: (-totals[i], names[i]))
    return min(order.index(i) + 1 for i in row["want"])


def figures(ranks: Sequence[int]) -> str:
    """top-1 / top-3 / MRR of some ranks."""
    n = len(ranks)
    top1, top3, mrr = (sum(r == 1 for r in ranks) / n, sum(r <= 3 for r in ranks) / n, sum(1 / r for r in ranks) / n)
    return f"{top1:.3f} / {top3:.3f} / {mrr:.3f}"


def main(argv: list[str] | None = None) -> None:
    """Print the learned weights and the leave-one-set-out table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=bench.CORPUS)
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"skipped: no skill corpus at {args.corpus} (the shared bundle's corpus folder)")
        return
    names, rows = collect(args.corpus)
    weights = train(names, rows)
    learned = {k: round(v, 2) for k, v in weights.items()}
    print("weights learned from every set:", learned)
    shipped = dict(rerank.WEIGHTS)
    if learned == shipped:
        print("the router ships them")
    else:  # shipped only if the routing table is at least as good on every set (docs/routing.md)
        print(f"the router ships {shipped}: try these in rerank.WEIGHTS and compare bench_routing.py's table")
    print(f"{'held out':14s} {'n':>4s}  {'words alone':21s}  second look (weights learned without it)")
    words: list[int] = []
    looked: list[int] = []
    for half in sorted({row["set"] for row in rows}):
        held = [row for row in rows if row["set"] == half]
        learned = train(names, [row for row in rows if row["set"] != half])
        a = [rank_of(names, row, None) for row in held]
        b = [rank_of(names, row, learned) for row in held]
        words += a
        looked += b
        print(f"{half:14s} {len(held):4d}  {figures(a):21s}  {figures(b)}")
    print(f"{'all':14s} {len(words):4d}  {figures(words):21s}  {figures(looked)}")


if __name__ == "__main__":
    main()
