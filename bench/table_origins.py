"""Where each entry of the router's tables came from: the commit that gave it its final form, and the sets then.

`tables.json`'s `justified_by` is the first labelled request an entry fires on in file order (dev,
extra, holdout10, ...), chosen after the fact: it is not the request the entry was written for,
and for many entries it comes from a set written after the entry. So a leave-one-set-out check
cannot take its origin from there. The repository's history can say more: an entry (a phrase's
pattern and words, or a synonym group's words) took its final form in some commit, and the only
sets it can have been tuned on are the request sets that were in the repository at that commit
and were used to build the router (`bench_routing.CALIBRATION`; the others say in their header
that they were run once and never used to change it).

For every entry this walks the history of the router's sources (git must be at hand, branches
included, oldest first), finds the first commit holding the entry in its final form, and records
in `tables.json`:
`origin: {commit, date, tuned_on: [the CALIBRATION sets present then, on which it fires]}`.
`bench/ablate_tables.py` judges each entry on every labelled set outside `tuned_on`.
Run: `python bench/table_origins.py [--write]`; never a unit test.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import bench_routing

ROOT = Path(__file__).resolve().parent.parent
SRC = "plugins/swarm-handoff-router/src/swarm_handoff_router"
TABLES = ROOT / SRC / "tables.json"
TABLE_NAMES = ("IDIOMS", "SYNONYM_GROUPS")


def git(*args: str) -> str:
    """One git command's output, in the repository."""
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True).stdout


def tables_at(commit: str) -> tuple[set[tuple[str, str]], set[tuple[str, ...]]]:
    """The phrase entries and synonym groups of the router at `commit` (from its Python sources, or tables.json)."""
    files = git("ls-tree", "-r", "--name-only", commit, SRC).split()
    if f"{SRC}/tables.json" in files:
        data = json.loads(git("show", f"{commit}:{SRC}/tables.json"))
        return (
            {(e["pattern"], e["stands_for"]) for e in data["phrases"]},
            {tuple(e["words"]) for e in data["synonyms"]},
        )
    found: dict[str, Any] = {}
    for name in files:
        if name.endswith(".py"):
            found.update(_evaluate(git("show", f"{commit}:{name}")))
    return set(found.get("IDIOMS", ())), set(found.get("SYNONYM_GROUPS", ()))


def _evaluate(source: str) -> dict[str, Any]:
    """The module's top-level constants and helpers, run one statement at a time (imports of the package skipped)."""
    tree = ast.parse(source)
    space: dict[str, Any] = {"re": re}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom | ast.Import) and "swarm_handoff" in ast.unparse(node):
            continue
        if isinstance(node, ast.Import | ast.ImportFrom | ast.Assign | ast.AnnAssign | ast.FunctionDef):
            try:
                exec(compile(ast.Module([node], []), "<table>", "exec"), space)  # our own history, not input
            except Exception:  # a statement needing the package: not a table
                continue
    return {k: space[k] for k in TABLE_NAMES if k in space}


def sets_at(commit: str) -> set[str]:
    """The request sets in the repository at `commit`."""
    names = git("ls-tree", "--name-only", commit, "bench/routing/").split()
    return {Path(n).stem.removeprefix("requests-") for n in names if Path(n).name.startswith("requests-")}


def fires(entry: dict[str, Any], kind: str, request: str) -> bool:
    """Whether an entry can change the ranking of one request (as bench/ablate_tables.py decides it)."""
    from swarm_handoff_router import text

    if kind == "phrases":
        return re.search(entry["pattern"], request, re.I) is not None
    return bool({text.stem(w) for w in entry["words"]} & set(text.tokenize(request)))


def main(argv: list[str] | None = None) -> None:
    """Find every entry's origin and print it; with --write, record it in tables.json."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--write", action="store_true", help="record the origins in tables.json")
    args = parser.parse_args(argv)
    commits = git("log", "--date-order", "--reverse", "--format=%H %aI", "HEAD", "--", SRC).split("\n")
    history = [(c.split()[0], c.split()[1]) for c in commits if c.strip()]
    snapshots = [(commit, date, tables_at(commit)) for commit, date in history]
    data = json.loads(TABLES.read_text(encoding="utf-8"))
    requests = {name: bench_routing.load_requests(path) for name, path in bench_routing.request_files().items()}
    for kind, key in (("phrases", 0), ("synonyms", 1)):
        for entry in data[kind]:
            value = (entry["pattern"], entry["stands_for"]) if kind == "phrases" else tuple(entry["words"])
            start = next(((c, d) for c, d, tables in snapshots if value in tables[key]), None)
            if start is None:
                raise SystemExit(f"table_origins: {kind} entry {value!r} is not in HEAD's history")
            present = sets_at(start[0]) & bench_routing.CALIBRATION
            tuned = sorted(s for s in present if any(fires(entry, kind, r["q"]) for r in requests.get(s, ())))
            entry["origin"] = {"commit": start[0][:10], "date": start[1], "tuned_on": tuned}
            label = entry.get("pattern", " ".join(entry.get("words", [])))[:60]
            print(f"{kind:8} {label:60} {start[0][:8]} {start[1][:16]} tuned on {','.join(tuned) or '-'}")
    if args.write:
        TABLES.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
