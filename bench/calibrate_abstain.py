"""Fit the router's "no skill fits" evidence (issue 28, point 4) on some request sets, report it on the others.

Every labelled request of the calibration sets (bench_routing.CALIBRATION) is ranked by the router
over the benchmark's skills; the three features of its best match (`evidence.evidence_features`) are
the inputs of a logistic regression that tells the `skills: []` requests (no skill fits) from the
rest. The threshold on the fitted linear score is the one with the best F0.5 on the calibration
sets (abstaining on a request a skill can take is the costlier mistake). The weights and threshold
are printed in the units of the raw features, ready for evidence.EVIDENCE_WEIGHTS and
evidence.ABSTAIN_THRESHOLD, with precision and recall on the calibration and on the held-out sets.

Run: `python bench/calibrate_abstain.py`; never a unit test. Without ../shared/corpus it says so.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import bench_routing

from swarm_handoff_router import document, evidence, index, scoring
from swarm_handoff_router.request import Request

NAMES = ("points", "claimed", "coverage")


def rows() -> list[tuple[str, bool, list[float]]]:
    """(set, no skill fits, features) for every request of every set."""
    records = bench_routing.load_skills(bench_routing.CORPUS)
    built = index.Index.of(document.analyse(records))
    out = []
    for name, path in bench_routing.request_files().items():
        for entry in bench_routing.load_requests(path):
            request = Request.of(bench_routing.Query(entry["q"]))
            _, matches = scoring.score_index(built, request)
            features, _ = evidence.evidence_features(matches, request, built.size)
            out.append((name, not entry["skills"], [features[k] for k in NAMES]))
    return out


def fit(xs: list[list[float]], ys: list[int], rounds: int = 3000) -> tuple[list[float], float]:
    """Logistic regression by gradient descent on standardised features; weights back in raw units."""
    k = len(xs[0])
    mean = [sum(x[i] for x in xs) / len(xs) for i in range(k)]
    spread = [math.sqrt(sum((x[i] - mean[i]) ** 2 for x in xs) / len(xs)) or 1.0 for i in range(k)]
    zs = [[(x[i] - mean[i]) / spread[i] for i in range(k)] for x in xs]
    w, b = [0.0] * k, 0.0
    for _ in range(rounds):
        gw, gb = [0.0] * k, 0.0
        for z, y in zip(zs, ys, strict=True):
            p = 1 / (1 + math.exp(-(sum(a * c for a, c in zip(w, z, strict=True)) + b)))
            gw = [g + (p - y) * c for g, c in zip(gw, z, strict=True)]
            gb += p - y
        w = [a - 0.5 * g / len(zs) - 0.001 * a for a, g in zip(w, gw, strict=True)]
        b -= 0.5 * gb / len(zs)
    # score of "no skill fits" = sum(w z) + b; evidence = -(that) in raw units, higher = a skill fits
    raw = [-a / s for a, s in zip(w, spread, strict=True)]
    offset = b - sum(a * m / s for a, m, s in zip(w, mean, spread, strict=True))
    return raw, offset


def precision_recall(scored: list[tuple[bool, float]], threshold: float) -> tuple[float, float]:
    """Abstention precision and recall: abstain when the evidence is below `threshold`."""
    abstained = [nofit for nofit, e in scored if e < threshold]
    nofits = sum(1 for nofit, _ in scored if nofit)
    hits = sum(abstained)
    return (hits / len(abstained) if abstained else 1.0), (hits / nofits if nofits else 0.0)


def main() -> None:
    """Fit, choose the threshold, print the constants and the held-out figures."""
    if not bench_routing.CORPUS.is_dir():
        print(f"calibrate_abstain: skipped: no corpus at {bench_routing.CORPUS}")
        return
    data = rows()
    calibration = [r for r in data if r[0] in bench_routing.CALIBRATION]
    weights, offset = fit([x for _, _, x in calibration], [int(n) for _, n, _ in calibration])

    def evidence(r: tuple[str, bool, list[float]]) -> float:
        return sum(w * x for w, x in zip(weights, r[2], strict=True))

    cal = [(r[1], evidence(r)) for r in calibration]
    best = (0.0, 0.0)
    for threshold in sorted({e for _, e in cal}):
        p, r = precision_recall(cal, threshold)
        f = 1.25 * p * r / (0.25 * p + r) if p + r else 0.0
        if f > best[0]:
            best = (f, threshold)
    threshold = best[1]
    print("EVIDENCE_WEIGHTS =", {k: round(w, 3) for k, w in zip(NAMES, weights, strict=True)})
    print(f"ABSTAIN_THRESHOLD = {threshold:.3f}  (offset of the logistic score {offset:.3f})")
    held = [(r[1], evidence(r)) for r in data if r[0] not in bench_routing.CALIBRATION]
    for label, scored_rows in (("calibration", cal), ("held out", held)):
        p, r = precision_recall(scored_rows, threshold)
        print(f"{label}: abstention precision {p:.2f}, recall {r:.2f} over {len(scored_rows)} requests")


if __name__ == "__main__":
    main()
