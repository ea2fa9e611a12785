"""Discovery benchmark: synthetic skill trees, side by side with the floor and the Agent Skills parser.

For trees of 50, 1,000 and 10,000 realistic skills (25-line frontmatter, 200-line body; a mix of
v3.0, v2.0, no hand-off and broken YAML) it measures, in one run:

* cold discovery (empty user cache), repeated discovery with nothing changed, and repeated
  discovery after one SKILL.md changed, through `swarm_handoff.discovery.discover`;
* the floor: `os.scandir` plus reading each frontmatter's bytes without parsing, and one `os.stat`
  per SKILL.md (what an unchanged repeat cannot avoid);
* `skills_ref.read_properties` (PyPI `skills-ref`) on every skill of the same tree;
* peak memory of a cold discovery (a child process's max RSS, and the tracemalloc peak);
* the CLI: `swarm-handoff discover --format json` over 50 skills vs `agentskills read-properties DIR`.

Each timing is the median of several runs. Results go to bench/results/discovery.json and .md, and
the table replaces the marked section of docs/performance.md. Run: `nox -s bench`, or
`python bench/bench_discovery.py [--sizes 50,1000] [--repeat 3]`. Never part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
DOC = ROOT / "docs" / "performance.md"
START, END = "<!-- bench:discovery:start -->", "<!-- bench:discovery:end -->"
BODY = "\n".join(f"Step {i}: read the request, check the notes, write the result; keep it short." for i in range(200))


def frontmatter(i: int) -> str:
    """One realistic frontmatter; every 10th skill is v2.0, every 7th has none, every 97th is broken."""
    name = f"skill-{i:05d}"
    head = f"---\nname: {name}\ndescription: >-\n  Use when the work needs step {i % 37} of a careful review;\n"
    head += "  plans, checks and hands results to the next specialist.\nversion: 1.2.0\n"
    if i % 97 == 3:
        return head + "summary: Use when: the colon is not quoted\n---\n"
    if i % 7 == 0:
        return head + "license: MIT\nallowed-tools: [Read, Write]\nmetadata:\n  owner: team\n---\n"
    if i % 10 == 1:
        return head + (
            "handoff:\n  accepts_handoff: true\n  handoff_categories: [research, analysis]\n"
            '  handoff_description: "Careful review (1-2 hours)"\n  handoff_trigger: "--handoff {payload_path}"\n'
            '  protocol_version: "2.0"\n  requires:\n    - context.original_prompt\n---\n'
        )
    return head + (
        'handoff:\n  accepts_from:\n    - "*"\n  provides_to:\n    - reviewer\n    - planner\n'
        '  schema_version: "3.0"\n  schema_type: universal\n  requires:\n    - context.original_prompt\n'
        "categories:\n  - research\n  - analysis\ninput_requirements:\n  - specification\n"
        "output_types:\n  - report\n  - code\n---\n"
    )


def make_tree(root: Path, count: int) -> Path:
    """Write `count` skills under root/.claude/skills and return the skills folder."""
    skills = root / ".claude" / "skills"
    for i in range(count):
        folder = skills / f"skill-{i:05d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "SKILL.md").write_text(frontmatter(i) + BODY + "\n", encoding="utf-8")
    return skills


def median_time(action: Any, repeat: int, setup: Any = None) -> float:
    """Median wall time of `action()` over `repeat` runs (each preceded by `setup()`)."""
    times = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def floor_read(skills: Path) -> int:
    """os.scandir plus the frontmatter's bytes of each SKILL.md (no parsing): the I/O floor."""
    total = 0
    for entry in os.scandir(skills):
        with open(os.path.join(entry.path, "SKILL.md"), "rb") as handle:
            head = handle.read(8192)
            end = head.find(b"\n---", 3)
            total += end if end > 0 else len(head)
    return total


def floor_stat(skills: Path) -> int:
    """One os.stat per SKILL.md (listing included): what an unchanged repeat cannot avoid."""
    return sum(os.stat(os.path.join(e.path, "SKILL.md")).st_size for e in os.scandir(skills))


def skills_ref_all(skills: Path) -> int:
    """skills-ref's read_properties on every skill (errors counted, as a broken skill raises)."""
    from skills_ref import read_properties

    failures = 0
    for entry in os.scandir(skills):
        try:
            read_properties(Path(entry.path))
        except Exception:
            failures += 1
    return failures


_CHILD = """
import json, os, resource, sys, time, tracemalloc
from swarm_handoff.discovery import discover, make_context
env = {"HOME": sys.argv[2], "XDG_CACHE_HOME": sys.argv[3], "PATH": os.environ.get("PATH", "")}
context = make_context(sys.argv[1], env)
if sys.argv[4] == "trace":
    tracemalloc.start()
start = time.perf_counter()
result = discover(context)
elapsed = time.perf_counter() - start
peak = tracemalloc.get_traced_memory()[1] if sys.argv[4] == "trace" else 0
print(json.dumps({"seconds": elapsed, "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "traced_peak": peak, "workflows": len(result.workflows)}))
"""


def child(root: Path, home: Path, cache: Path, mode: str) -> dict[str, Any]:
    """Run one discovery in a fresh interpreter and return its timing and memory."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(root), str(home), str(cache), mode],
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def settle() -> None:
    """Wait until files just written are old enough for the caches to trust them (see filecache.RACY_NS)."""
    from swarm_handoff import filecache

    time.sleep(2 * filecache.RACY_NS / 1e9)


def bench_size(count: int, repeat: int, work: Path, with_skills_ref: bool) -> dict[str, Any]:
    """All measurements for one tree size."""
    from swarm_handoff.discovery import discover, make_context
    from swarm_handoff.plugins import get_host

    root = work / f"tree-{count}"
    skills = make_tree(root, count)
    settle()
    home = work / "home"
    home.mkdir(exist_ok=True)
    caches = work / f"cache-{count}"
    env = {"HOME": str(home), "XDG_CACHE_HOME": str(caches), "PATH": os.environ.get("PATH", "")}
    host = get_host()

    def run() -> None:
        discover(make_context(root, env), host)

    def clear() -> None:
        shutil.rmtree(caches, ignore_errors=True)

    row: dict[str, Any] = {"skills": count}
    floor_read(skills)  # warm the page cache once so every method sees the same state
    row["floor_read_s"] = median_time(lambda: floor_read(skills), repeat)
    row["floor_stat_s"] = median_time(lambda: floor_stat(skills), repeat)
    row["cold_s"] = median_time(run, repeat, setup=clear)
    run()
    row["repeat_unchanged_s"] = median_time(run, repeat)
    target = skills / "skill-00001" / "SKILL.md"
    counter = [0]

    def touch() -> None:
        counter[0] += 1
        target.write_text(frontmatter(1).replace("careful", f"careful ({counter[0]})") + BODY, encoding="utf-8")

    row["repeat_one_change_s"] = median_time(run, repeat, setup=touch)
    clear()
    measured = child(root, home, caches, "rss")
    row["cold_child_s"] = measured["seconds"]
    row["peak_rss_mb"] = round(measured["maxrss_kb"] / 1024, 1)
    clear()
    row["traced_peak_mb"] = round(child(root, home, caches, "trace")["traced_peak"] / 1e6, 1)
    row["workflows"] = measured["workflows"]
    if with_skills_ref:
        row["skills_ref_s"] = median_time(lambda: skills_ref_all(skills), 1 if count > 1000 else repeat)
    return row


def bench_cli(work: Path, repeat: int) -> dict[str, Any]:
    """`swarm-handoff discover --format json` over 50 skills vs skills-ref's CLI on one skill."""
    root = work / "tree-50"
    if not root.exists():
        make_tree(root, 50)
        settle()
    env = {**os.environ, "HOME": str(work / "home"), "XDG_CACHE_HOME": str(work / "cache-cli")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # .pyc files as an installed wheel has them
    bindir = Path(sys.executable).parent
    ours = [str(bindir / "swarm-handoff"), "discover", "--cwd", str(root), "--format", "json"]
    subprocess.run(ours, env=env, capture_output=True, check=True)  # fill the user cache (and write .pyc files)
    row: dict[str, Any] = {
        "python_pass_s": median_time(lambda: subprocess.run([sys.executable, "-c", "pass"]), repeat),
        "discover_json_50_cached_s": median_time(lambda: subprocess.run(ours, env=env, capture_output=True), repeat),
    }
    runs = iter(range(1_000_000))  # another environment each run: the stored answer never matches

    def not_replayed() -> None:
        subprocess.run(ours, env={**env, "SWARM_BENCH_RUN": str(next(runs))}, capture_output=True)

    row["discover_json_50_not_replayed_s"] = median_time(not_replayed, repeat)
    no_cache = {**env, "SWARM_HANDOFF_NO_CACHE": "1"}
    row["discover_json_50_no_cache_s"] = median_time(
        lambda: subprocess.run(ours, env=no_cache, capture_output=True), repeat
    )
    for label, extra in (("version_s", ["--version"]), ("plugins_json_s", ["plugins", "--format", "json"])):
        shell = [str(bindir / "swarm-handoff"), *extra]
        row[label] = median_time(lambda shell=shell: subprocess.run(shell, env=env, capture_output=True), repeat)
    theirs = bindir / "agentskills"
    if theirs.exists():
        one = [str(theirs), "read-properties", str(root / ".claude" / "skills" / "skill-00002")]
        subprocess.run(one, env=env, capture_output=True)  # its .pyc files too
        row["agentskills_read_properties_1_s"] = median_time(
            lambda: subprocess.run(one, env=env, capture_output=True), repeat
        )
    return row


def ratio(a: float | None, b: float | None) -> str:
    """a / b with one decimal, or '-'."""
    return f"{a / b:.1f}x" if a and b else "-"


def ms(seconds: float | None) -> str:
    """Seconds as whole milliseconds, or '-'."""
    return f"{seconds * 1000:,.0f} ms" if seconds is not None else "-"


def render(rows: list[dict[str, Any]], cli: dict[str, Any], meta: dict[str, Any]) -> str:
    """The Markdown table for docs/performance.md."""
    lines = [
        f"Command: `{meta['command']}` (what `python3 -m nox -s bench` runs first)  ",
        f"Measured {meta['when']} on {meta['machine']}, Python {meta['python']}, YAML loader: {meta['loader']}, "
        f"median of {meta['repeat']} runs (page cache warm; skills-ref at 10,000 once), "
        f"load average {meta['load']} at the start.",
        "",
        "| skills | cold | cold, fresh process* | repeat, unchanged | repeat, one change | floor: scandir+read "
        "| floor: stat | skills-ref | skills-ref ÷ cold | unchanged ÷ stat | peak RSS | traced peak |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['skills']:,} | {ms(r['cold_s'])} | {ms(r['cold_child_s'])} | {ms(r['repeat_unchanged_s'])} "
            f"| {ms(r['repeat_one_change_s'])} "
            f"| {ms(r['floor_read_s'])} | {ms(r['floor_stat_s'])} | {ms(r.get('skills_ref_s'))} "
            f"| {ratio(r.get('skills_ref_s'), r['cold_s'])} "
            f"| {ratio(r['repeat_unchanged_s'], r['floor_stat_s'])} "
            f"| {r['peak_rss_mb']} MB | {r['traced_peak_mb']} MB |"
        )
    lines += [
        "",
        "\\* a new interpreter: imports, plugin loading and entry-point scanning included.",
        "",
        "| CLI (a new process each run) | wall | ÷ `agentskills read-properties` |",
        "|---|---:|---:|",
    ]
    theirs = cli.get("agentskills_read_properties_1_s")
    for label, key in (
        (
            "`swarm-handoff discover --format json`, 50 skills, repeated (caches warm)",
            "discover_json_50_cached_s",
        ),
        ("the same, another environment each run (result cache warm)", "discover_json_50_not_replayed_s"),
        ("the same with `SWARM_HANDOFF_NO_CACHE=1` (no cache at all)", "discover_json_50_no_cache_s"),
        ("`agentskills read-properties DIR`, one skill (the target)", "agentskills_read_properties_1_s"),
        ("for reference: `python -c pass`", "python_pass_s"),
        ("for reference: `swarm-handoff --version`", "version_s"),
        ("for reference: `swarm-handoff plugins --format json` (no discovery)", "plugins_json_s"),
    ):
        value = cli.get(key)
        lines.append(
            f"| {label} | {ms(value)} | {value / theirs:.2f} |"
            if value and theirs
            else f"| {label} | {ms(value)} | - |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and write its results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="50,1000,10000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-skills-ref", action="store_true")
    parser.add_argument("--no-doc", action="store_true", help="do not rewrite docs/performance.md")
    args = parser.parse_args(argv)
    from swarm_handoff.yamlio import loader_kind

    try:
        import skills_ref  # noqa: F401

        with_ref = not args.no_skills_ref
    except ImportError:
        with_ref = False
    meta = {
        "command": " ".join(["python bench/bench_discovery.py", *(argv if argv is not None else sys.argv[1:])]),
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}",
        "python": platform.python_version(),
        "loader": loader_kind(),
        "repeat": args.repeat,
        "load": " / ".join(f"{x:.1f}" for x in os.getloadavg()),
    }
    if meta["loader"] != "C":
        print("note: ruamel.yaml.clib is not installed; install swarm-handoff-core[fast] for the C loader")
    rows = []
    with tempfile.TemporaryDirectory(prefix="swarm-bench-") as tmp:
        work = Path(tmp)
        for size in (int(s) for s in args.sizes.split(",")):
            print(f"{size} skills ...", flush=True)
            rows.append(bench_size(size, args.repeat, work, with_ref))
            print(json.dumps(rows[-1]), flush=True)
        cli = bench_cli(work, max(args.repeat, 11))
    table = render(rows, cli, meta)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "discovery.json").write_text(json.dumps({"meta": meta, "sizes": rows, "cli": cli}, indent=2) + "\n")
    (RESULTS / "discovery.md").write_text(table)
    print(table)
    if not args.no_doc and DOC.exists():
        text = DOC.read_text()
        if START in text and END in text:
            head, rest = text.split(START, 1)
            DOC.write_text(head + START + "\n" + table + END + rest.split(END, 1)[1])


if __name__ == "__main__":
    main()
