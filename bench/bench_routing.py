"""Routing benchmark: does the `router` scorer put a right skill first, side by side with plain BM25.

The skills are every SKILL.md under ../shared/corpus (read at run time, never copied into the
repository; one per skill name, the first copy whose frontmatter parses) plus the fixture skills in
bench/routing/fixtures. The requests are every bench/routing/requests-NAME.yaml (or the files
given with --requests): a request in a user's words and the skills that may rightly take it. Each
file is its own set of rows, named NAME, so a new held-out set is measured by dropping in a file.
A request with `skills: []` is one no candidate can take (issue 28: calibrating when to abstain);
it is kept out of top-1, top-3 and MRR (see bench/routing/README.md) and measures abstention: the
table gives, per set, how many such requests it has and the precision and recall of "no skill fits"
for the router (`evidence.evidence`, calibrated by bench/calibrate_abstain.py on CALIBRATION) and for
plain BM25 (a threshold on its best score, calibrated here on the same sets). `--rankings FILE`
instead checks that a change of the router's code leaves every ranking as it was: the first run
writes a digest of each request's points, reasons and abstention to FILE, a run after the change
compares with it and exits 1 when any request differs.
`dev`, `seen-holdout` and `extra` have all been seen while the router was built; only a file written without
seeing the router (and not used to change it afterwards) gives an honest figure.

For each request every skill is a candidate (declared hand-off metadata or not) and we report top-1
(a right skill ranked first), top-3 and MRR (mean reciprocal rank of the first right skill), for:

* `router`: BM25F over name, description and body, synonyms, phrases, negative triggers (this project);
* `bm25 name+description`: Okapi BM25 over the name and description only, the baseline.

Results go to bench/results/routing.json and the table replaces the marked section of
docs/routing.md (not for an ad-hoc run with --requests). Run: `nox -s bench`, or
`python bench/bench_routing.py [--requests FILE ...] [--misses]`. Without ../shared/corpus
the benchmark says so and exits 0.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parent.parent
# Run from a source checkout: the router need not be installed in the bench environment.
sys.path.insert(0, str(ROOT / "plugins" / "swarm-handoff-router" / "src"))

from swarm_handoff import safefs  # noqa: E402
from swarm_handoff.metadata import record_from_frontmatter  # noqa: E402
from swarm_handoff.records import Contribution, SkillRecord  # noqa: E402
from swarm_handoff.skillmd import load_skill_md  # noqa: E402
from swarm_handoff_router import document, evidence, index, rerank, scoring  # noqa: E402
from swarm_handoff_router.request import Request  # noqa: E402
from swarm_handoff_router.text import STOPWORDS  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
ROUTING = ROOT / "bench" / "routing"
RESULTS = ROOT / "bench" / "results"
DOC = ROOT / "docs" / "routing.md"
# A record of every labelled request's digest is about 170 KB; a file far past that is not one.
MAX_RANKINGS_BYTES = 16 * 1024 * 1024
START, END = "<!-- bench:routing:start -->", "<!-- bench:routing:end -->"
# The sets "no skill fits" is calibrated on (bench/calibrate_abstain.py for the router; the BM25
# threshold here): every set seen while the router was built. The other sets report it held out.
CALIBRATION = frozenset(
    {"dev", "extra", "seen-holdout", "holdout2", "holdout3", "holdout4", "holdout5", "holdout6", "holdout7"}
)


class Query:
    """What a scorer reads of a synthesis: the request is the user's prompt."""

    def __init__(self, text: str) -> None:
        self.original_prompt = text
        self.reframed_challenge = ""
        self.synthesis_summary = ""


def load_skills(corpus: Path) -> list[SkillRecord]:
    """One record per skill name: corpus copies first (parseable preferred), then the fixtures."""
    paths = sorted(corpus.rglob("SKILL.md")) + sorted((ROUTING / "fixtures").rglob("SKILL.md"))
    chosen: dict[str, SkillRecord] = {}
    for path in paths:
        name = path.parent.name
        front = load_skill_md(str(path))
        if name in chosen and (chosen[name].description or front.data is None):
            continue
        chosen[name] = record_from_frontmatter(front.data, name=name, scope="global", source="bench", path=str(path))
    return list(chosen.values())


def request_files(given: Sequence[Path] = ()) -> dict[str, Path]:
    """The request sets to measure, by name: the files given, else every requests-*.yaml (dev first)."""
    paths = list(given) or sorted(ROUTING.glob("requests-*.yaml"), key=lambda p: (p.stem != "requests-dev", p.stem))
    return {p.stem.removeprefix("requests-"): p for p in paths}


def load_requests(path: Path) -> list[dict[str, Any]]:
    """The labelled requests of one file (`skills: []`: no skill fits); a malformed entry is left out, not fatal."""
    data = YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8")) or []
    good = []
    for number, entry in enumerate(data if isinstance(data, list) else [], start=1):
        skills = entry.get("skills") if isinstance(entry, dict) else None
        if isinstance(entry, dict) and isinstance(entry.get("q"), str) and isinstance(skills, list):
            good.append({"q": entry["q"], "skills": [str(s) for s in skills]})
        else:
            print(f"bench_routing: {path.name}: entry {number} needs 'q' (text) and 'skills' (a list); left out")
    if not isinstance(data, list):
        print(f"bench_routing: {path.name}: expected a list of {{q, skills}} entries; file left out")
    return good


# ---- the baseline: Okapi BM25 over name + description, no stemming, no synonyms --------------------


def _plain_tokens(text: str) -> list[str]:
    words = "".join(c if c.isalnum() else " " for c in text.lower()).split()
    return [w for w in words if len(w) > 1 and w not in STOPWORDS]


def bm25_baseline(records: Sequence[SkillRecord]) -> Callable[[str], list[float]]:
    """A scorer function: plain BM25 (k1 1.2, b 0.75) over each skill's name and description."""
    docs = [Counter(_plain_tokens(f"{r.name.replace('-', ' ')} {r.description}")) for r in records]
    lengths = [sum(d.values()) for d in docs]
    average = sum(lengths) / len(lengths)
    df: Counter[str] = Counter()
    for d in docs:
        df.update(d.keys())

    def score(text: str) -> list[float]:
        terms = set(_plain_tokens(text))
        out = []
        for doc, length in zip(docs, lengths, strict=True):
            total = 0.0
            for t in terms:
                tf = doc.get(t, 0)
                if tf:
                    idf = math.log(1 + (len(docs) - df[t] + 0.5) / (df[t] + 0.5))
                    total += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / average))
            out.append(total)
        return out

    return score


class RouterRun:
    """The router as the benchmark calls it: scores for a request, and whether it says "no skill fits"."""

    def __init__(self, records: Sequence[SkillRecord]) -> None:
        self.records = records
        self.built = index.Index.of(document.analyse(records))
        self.names = list(self.built.names)
        self.last: tuple[str, bool] = ("", False)

    def __call__(self, text: str) -> list[float]:
        """Every skill's total for `text` (the index, the second look), remembering the abstention."""
        ranked, found = self.explain(text)
        self.last = (text, found.abstain)
        return [sum(c.points for c in contribs) for contribs in ranked]

    def explain(self, text: str) -> tuple[list[list[Contribution]], evidence.Evidence]:
        """Every skill's contributions for `text` and the evidence that the best fits."""
        request = Request.of(Query(text))
        contributions, matches = scoring.score_index(self.built, request)
        ranked = rerank.rerank(self.names, contributions, matches, priorities=[r.priority for r in self.records])
        return ranked, evidence.evidence(matches, request, self.names)

    def abstains(self, text: str) -> bool:
        """True when the router answers "no skill fits" for `text`."""
        if self.last[0] != text:
            self(text)
        return self.last[1]


class BM25Run:
    """Plain BM25 with a threshold on its best score for "no skill fits" (calibrated in `calibrate`)."""

    def __init__(self, records: Sequence[SkillRecord]) -> None:
        self.score = bm25_baseline(records)
        self.threshold = 0.0

    def __call__(self, text: str) -> list[float]:
        """Every skill's BM25 score for `text`."""
        return self.score(text)

    def abstains(self, text: str) -> bool:
        """True when the best BM25 score is below the calibrated threshold."""
        return max(self.score(text), default=0.0) < self.threshold

    def calibrate(self, requests: Sequence[dict[str, Any]]) -> float:
        """The threshold on the best score with the best F0.5 over `requests` (the calibration sets)."""
        best = [(not r["skills"], max(self.score(r["q"]), default=0.0)) for r in requests]
        chosen, top = 0.0, -1.0
        for threshold in sorted({b for _, b in best}):
            abstained = [nofit for nofit, b in best if b < threshold]
            nofits = sum(1 for nofit, _ in best if nofit)
            p = sum(abstained) / len(abstained) if abstained else 1.0
            r = sum(abstained) / nofits if nofits else 0.0
            f = 1.25 * p * r / (0.25 * p + r) if p + r else 0.0
            if f > top:
                top, chosen = f, threshold
        self.threshold = chosen
        return chosen


def digests(records: Sequence[SkillRecord], files: dict[str, Path]) -> dict[str, str]:
    """A digest of each request's ranking (every point, reason and the evidence), by set and number."""
    run = RouterRun(records)
    out = {}
    for half, path in files.items():
        for number, request in enumerate(load_requests(path), start=1):
            ranked, found = run.explain(request["q"])
            out[f"{half}:{number}"] = hashlib.sha256(repr((ranked, found)).encode()).hexdigest()
    return out


def check_rankings(records: Sequence[SkillRecord], files: dict[str, Path], recorded: Path) -> int:
    """Write the rankings' digests to `recorded`, or compare with it when it exists: how many requests differ."""
    now = digests(records, files)
    # Created whole under its name and never over a record already there: a second copy of this
    # command running at once compares with the first one's record, never reads half of it.
    if safefs.create_new(recorded, (json.dumps(now, indent=0) + "\n").encode(), mode=0o644, durable=False):
        print(f"bench_routing: the rankings of {len(now)} requests recorded in {recorded}; run again after the change")
        return 0
    before = read_rankings(recorded)
    differ = sorted(key for key in now.keys() | before.keys() if now.get(key) != before.get(key))
    for key in differ[:20]:
        print(f"  differs: {key}")
    print(f"bench_routing: rankings against {recorded}: {len(differ)} of {len(now)} requests differ")
    return len(differ)


def read_rankings(path: Path) -> dict[str, str]:
    """The digests a run recorded in `path`; anything else stops the run naming the file, not a traceback."""
    fix = "give a new file name to record the rankings afresh"
    try:
        if path.stat().st_size > MAX_RANKINGS_BYTES:
            raise ValueError(f"larger than {MAX_RANKINGS_BYTES} bytes")
        before = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # a JSON or UTF-8 error is a ValueError
        raise SystemExit(f"bench_routing: {path} is not a rankings record ({exc}); {fix}") from exc
    if not (isinstance(before, dict) and all(isinstance(v, str) for v in before.values())):
        raise SystemExit(f"bench_routing: {path} is not a rankings record (a JSON object of digests); {fix}")
    return before


def evaluate(
    records: Sequence[SkillRecord],
    requests: Sequence[dict[str, Any]],
    scorer: Callable[[str], list[float]],
    nofit: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """Top-1, top-3 and MRR of one scorer over requests some skill fits; ties are broken by name, as `rank` does.

    With `nofit` (the `skills: []` requests) and a scorer that `abstains`, also the abstention
    precision and recall over every request of the set (top-k is measured as `--all` shows it).
    """
    names = [r.name for r in records]
    requests = [r for r in requests if r["skills"]]  # `skills: []` (no skill fits) has no rank to measure
    abstention: dict[str, Any] = {}
    abstains = getattr(scorer, "abstains", None)
    if nofit and abstains is not None:
        abstained_fit = sum(1 for r in requests if abstains(r["q"]))
        abstained_nofit = sum(1 for r in nofit if abstains(r["q"]))
        total = abstained_fit + abstained_nofit
        abstention = {
            "nofit": len(nofit),
            "abstain_precision": abstained_nofit / total if total else 1.0,
            "abstain_recall": abstained_nofit / len(nofit),
        }
    top1 = top3 = 0
    reciprocal = 0.0
    misses = []
    for request in requests:
        right = set(request["skills"])
        scores = scorer(request["q"])
        order = sorted(range(len(names)), key=lambda i: (-scores[i], names[i]))
        place = next(i for i, index in enumerate(order, start=1) if names[index] in right)
        top1 += place == 1
        top3 += place <= 3
        reciprocal += 1 / place
        if place > 1:
            misses.append({"q": request["q"], "want": sorted(right), "got": names[order[0]], "place": place})
    n = len(requests) or 1
    return {
        "requests": len(requests),
        "top1": top1 / n,
        "top3": top3 / n,
        "mrr": reciprocal / n,
        **abstention,
        "misses": misses,
    }


def table(results: dict[str, dict[str, dict[str, Any]]], skills: int) -> str:
    """The markdown table written into docs/routing.md."""
    lines = [
        f"Over {skills} skills (every candidate ranked for every request):",
        "",
        "| requests | scorer | n | top-1 | top-3 | MRR | no fit | abstain P | abstain R |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for half, by_scorer in results.items():
        for scorer, r in by_scorer.items():
            held = "" if half in CALIBRATION else " (held out)"
            lines.append(
                f"| {half}{held} | {scorer} | {r['requests']} | {r['top1']:.2f} | {r['top3']:.2f} | {r['mrr']:.2f} | "
                f"{r.get('nofit', 0)} | {r.get('abstain_precision', 0):.2f} | {r.get('abstain_recall', 0):.2f} |"
            )
    return "\n".join(lines)


def write_doc(text: str) -> None:
    """Replace the marked section of docs/routing.md with the new table."""
    doc = DOC.read_text(encoding="utf-8")
    if START in doc and END in doc:
        head, rest = doc.split(START, 1)
        _, tail = rest.split(END, 1)
        DOC.write_text(f"{head}{START}\n{text}\n{END}{tail}", encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and write its results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--misses", action="store_true", help="print the requests each scorer got wrong")
    parser.add_argument(
        "--rankings",
        type=Path,
        help="record every request's ranking in this file, or compare with it when it exists (exit 1 if any differ)",
    )
    parser.add_argument(
        "--requests", type=Path, nargs="+", default=[], help="request files (default: bench/routing/requests-*.yaml)"
    )
    args = parser.parse_args(argv)
    if not args.corpus.is_dir() or not any(args.corpus.rglob("SKILL.md")):
        print(
            f"bench_routing: skipped: needs ../shared/corpus/ (real SKILL.md files, not in this repository); "
            f"nothing found at {args.corpus}. See docs/development.md, 'Conformance tests'."
        )
        return
    records = load_skills(args.corpus)
    known = {r.name for r in records}
    results: dict[str, dict[str, dict[str, Any]]] = {}
    files = request_files(args.requests)
    if args.rankings:
        if check_rankings(records, files, args.rankings):
            raise SystemExit(1)
        return
    baseline = BM25Run(records)
    threshold = baseline.calibrate([r for n, p in files.items() if n in CALIBRATION for r in load_requests(p)])
    print(f"bench_routing: BM25 abstains below a best score of {threshold:.3f} (calibrated on {sorted(CALIBRATION)})")
    scorers: dict[str, Callable[[str], list[float]]] = {"router": RouterRun(records), "bm25 name+description": baseline}
    for half, path in files.items():
        everything = load_requests(path)
        nofit = [r for r in everything if not r["skills"]]
        loaded = [r for r in everything if r["skills"]]
        if len(everything) > len(loaded):
            print(f"bench_routing: {len(everything) - len(loaded)} {half} request(s) no skill fits; not in top-k")
        requests = [r for r in loaded if set(r["skills"]) & known]
        unknown = sorted({s for r in loaded for s in r["skills"]} - known)
        if unknown:
            print(f"bench_routing: {path.name} names skills this corpus lacks: {', '.join(unknown)}")
        if len(loaded) > len(requests):
            left_out = len(loaded) - len(requests)
            print(f"bench_routing: {left_out} {half} request(s) name no skill of this corpus; left out")
        if requests:
            results[half] = {name: evaluate(records, requests, fn, nofit) for name, fn in scorers.items()}
    text = table(results, len(records))
    print(text)
    if args.misses:
        for half, by_scorer in results.items():
            for miss in by_scorer["router"]["misses"]:
                print(f"  [{half}] {miss['place']:>2} want {miss['want']} got {miss['got']}: {miss['q']}")
    if args.requests:  # an ad-hoc run: the recorded results and the docs table stay those of the full set
        return
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "routing.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    write_doc(text)


if __name__ == "__main__":
    main()
