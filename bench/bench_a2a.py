"""Hand-offs between machines over A2A on loopback: latency (median, p99) and hand-offs per second.

Run with `python3 -m nox -s bench` (or directly, in an environment with swarm-handoff-a2a installed;
without it the script says so and stops). Two receiving hosts listen on loopback (port 0), each
with its own config folder, task store and session root; `--senders` threads each send their share
of `--handoffs` sealed v3.0 payloads (built beforehand by `hand_off`, so only the transport and the
receiver's checks are timed), alternating between the hosts. A hand-off's latency is one `send`:
reading the card, sending, and the receiver's every check, write and history record before it
answers WORKING. Afterwards the script checks what the issue asks: none lost, none duplicated, every
one in the receivers' histories with the same payload hash, every task COMPLETED after `ack`.

The baseline is the same payloads taken in on one machine with no network (`accept_incoming`
called directly): the ratio is what A2A costs on top of the checks themselves. With `--doc` the
table replaces the one between the `bench:a2a` markers in docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

SYNTHESIS = """
original_prompt: Should we expand into Europe?
problem_type: strategic
synthesis_summary: Regulation is the main risk.
convergence_level: medium
"""


def _skill(folder: Path, name: str) -> None:
    (folder / name).mkdir(parents=True, exist_ok=True)
    (folder / name / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: The {name} skill.\ncategories: [research]\n"
        "handoff:\n  accepts_from: ['*']\n  schema_version: '3.0'\n---\n",
        encoding="utf-8",
    )


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def main() -> None:
    """Run the benchmark and print (or write into the docs) its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--handoffs", type=int, default=200)
    parser.add_argument("--senders", type=int, default=10)
    parser.add_argument("--doc", action="store_true", help="write the table into docs/performance.md")
    args = parser.parse_args()
    try:
        from swarm_handoff_a2a.ack import ack_task
        from swarm_handoff_a2a.receiver import build_receiver
        from swarm_handoff_a2a.sender import send
    except ImportError:
        print("bench_a2a: swarm-handoff-a2a is not installed; skipped")
        return
    from swarm_handoff.api import HandoffOptions, accept_incoming, hand_off, make_context, open_history

    work = Path(tempfile.mkdtemp(prefix="bench-a2a-"))
    project = work / "project"
    for name in ("alpha", "beta"):
        _skill(project / ".claude" / "skills", name)
    os.chdir(project)
    os.environ["CLAUDE_CONFIG_DIR"] = str(work / "sender-config")
    session = work / "session"
    (session / "perspectives").mkdir(parents=True)
    synthesis = work / "synthesis.yaml"
    synthesis.write_text(SYNTHESIS, encoding="utf-8")
    paths = [
        Path(hand_off(HandoffOptions(target="beta", synthesis=synthesis, session=session, source="alpha")).payload_path)
        for _ in range(args.handoffs)
    ]
    texts = [p.read_text(encoding="utf-8") for p in paths]

    # baseline: the receiver's checks, write and record, with no network
    local = make_context(project, env={**os.environ, "CLAUDE_CONFIG_DIR": str(work / "local-config")})
    started = time.perf_counter()
    local_times = []
    for text in texts:
        t0 = time.perf_counter()
        accept_incoming(text, work / "local-inbox", context=local)
        local_times.append(time.perf_counter() - t0)
    local_rate = len(texts) / (time.perf_counter() - started)

    hosts = []
    for index in range(2):
        env = {**os.environ, "CLAUDE_CONFIG_DIR": str(work / f"receiver-{index}-config")}
        built = build_receiver(
            work / f"inbox-{index}", port=0, context=make_context(project, env=env), rate=1e6, burst=1_000_000
        )
        built.start()
        hosts.append(built)
    latencies: list[float] = []
    results: list[Any] = []
    lock = threading.Lock()

    def sender(share: list[int]) -> None:
        for i in share:
            t0 = time.perf_counter()
            result = send(paths[i], hosts[i % 2].url, record=False)
            spent = time.perf_counter() - t0
            with lock:
                latencies.append(spent)
                results.append((i, result))

    shares = [list(range(k, len(paths), args.senders)) for k in range(args.senders)]
    threads = [threading.Thread(target=sender, args=(share,)) for share in shares]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started

    # none lost, none duplicated, the same hashes on both sides, every task COMPLETED after ack
    assert all(r.delivered and r.state == "working" for _, r in results), [r for _, r in results if not r.delivered]
    assert len({r.task_id for _, r in results}) == len(paths)
    recorded: list[str] = []
    for index in range(len(hosts)):
        with open_history(work / f"receiver-{index}-config") as history:
            recorded += [row.payload_hash or "" for row in history.list(limit=len(paths) + 10)]
    assert sorted(recorded) == sorted(r.payload_hash for _, r in results)
    for i, result in results:
        built = hosts[i % 2]
        assert ack_task("success", task_id=result.task_id, store_url=built.store_url) == "completed"
    for built in hosts:
        built.stop()

    median, p99 = statistics.median(latencies), _percentile(latencies, 0.99)
    local_median = statistics.median(local_times)
    rate = len(paths) / elapsed
    table = "\n".join(
        [
            f"{len(paths)} hand-offs, {args.senders} senders, 2 receiving hosts on loopback "
            f"(Python {platform.python_version()}, {os.cpu_count()} CPUs; a shared machine):",
            "",
            "| measure | over A2A | taken in locally (no network) | ratio |",
            "| --- | --- | --- | --- |",
            f"| median latency | {median * 1000:.1f} ms | {local_median * 1000:.1f} ms | "
            f"{median / local_median:.1f}x |",
            f"| 99th percentile | {p99 * 1000:.1f} ms | {_percentile(local_times, 0.99) * 1000:.1f} ms | "
            f"{p99 / _percentile(local_times, 0.99):.1f}x |",
            f"| hand-offs per second | {rate:.1f} | {local_rate:.1f} | {local_rate / rate:.1f}x fewer |",
            "",
            "None lost, none duplicated; every one in its receiver's history with the sender's payload hash; "
            "every task COMPLETED after `ack`.",
        ]
    )
    print(table)
    if args.doc:
        doc = Path(__file__).resolve().parents[1] / "docs" / "performance.md"
        text = doc.read_text(encoding="utf-8")
        start, end = "<!-- bench:a2a:start -->", "<!-- bench:a2a:end -->"
        before, rest = text.split(start, 1)
        _old, after = rest.split(end, 1)
        doc.write_text(f"{before}{start}\n{table}\n{end}{after}", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
