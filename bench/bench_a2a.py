"""Hand-offs between machines over A2A on loopback: latency (median, p99) and hand-offs per second.

Run with `python3 -m nox -s bench` (or directly, in an environment with swarm-handoff-a2a installed;
without it the script says so and stops). What issue 29's "Done when" asks, on one machine: two
receiving hosts, each a process of its own on loopback with its own config folder, task store and
session root; `--senders` threads in this process each send their share of `--handoffs` sealed
v3.0 payloads (built beforehand by `hand_off`, so only the transport and the receiver's checks are
timed), alternating between the hosts. Once `--kill-at` of them are delivered, the first host is
killed with SIGKILL and started again on the same port; its senders keep retrying (the same
message, so never a second task) until it is back. A hand-off's latency is one `send`: reading the
card, sending (retries included), and the receiver's every check, write and history record before
it answers WORKING.

Afterwards the script checks: none lost (every one delivered, each receiver's inbox holds exactly
its payloads), none duplicated (one task and one history row per payload), every one in both
histories (the sender's and its receiver's) with the same payload hash, and every task COMPLETED
after `ack`, as the receiving host itself answers over A2A (the sender's history records that).

The baseline is the same payloads taken in on one machine with no network (`accept_incoming`
called directly): the ratio is what A2A costs on top of the checks themselves. With `--doc` the
table replaces the one between the `bench:a2a` markers in docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import socket
import statistics
import subprocess
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


def serve(root: Path, port: int) -> None:
    """The receiving host's process (`--receiver ROOT PORT`): prints READY once it listens."""
    from swarm_handoff_a2a.receiver import build_receiver

    # no rate limit here: ten senders on one address are the load being measured, not abuse
    receiver = build_receiver(root, port=port, rate=1e6, burst=1_000_000)
    print("READY", receiver.url, flush=True)
    receiver.run()


class Host:
    """A receiving host in a process of its own: started, killed with SIGKILL, started again on its port."""

    def __init__(self, work: Path, index: int) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.config = work / f"receiver-{index}-config"
        self.inbox = work / f"inbox-{index}"
        self.project = work / "project"
        self.url = f"http://127.0.0.1:{self.port}/"
        self.proc: subprocess.Popen[str] | None = None

    @property
    def store_url(self) -> str:
        """Its SQL task store (the receiver's default, under its config folder)."""
        return f"sqlite+aiosqlite:///{self.config / 'swarm-handoff' / 'a2a-tasks.sqlite3'}"

    def start(self) -> None:
        """Start the process and wait until it listens."""
        env = {**os.environ, "CLAUDE_CONFIG_DIR": str(self.config)}
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--receiver", str(self.inbox), str(self.port)],
            cwd=self.project,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.startswith("READY"):
            raise SystemExit(f"bench_a2a: the receiver on port {self.port} did not start: {line!r}")

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()

    def stop(self) -> None:
        """End the process (SIGTERM) at the end of the run."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)


def main() -> None:
    """Run the benchmark and print (or write into the docs) its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--handoffs", type=int, default=200)
    parser.add_argument("--senders", type=int, default=10)
    parser.add_argument("--kill-at", type=float, default=0.5, help="kill the first host after this share (0: never)")
    parser.add_argument("--doc", action="store_true", help="write the table into docs/performance.md")
    parser.add_argument("--receiver", nargs=2, metavar=("ROOT", "PORT"), help=argparse.SUPPRESS)
    args, _unknown = parser.parse_known_args()  # `nox -s bench -- ...` passes its arguments to every script
    if args.receiver:
        serve(Path(args.receiver[0]), int(args.receiver[1]))
        return
    try:
        import swarm_handoff_a2a.sender  # noqa: F401
    except ImportError:
        print("bench_a2a: swarm-handoff-a2a is not installed; skipped")
        return
    from swarm_handoff.api import HandoffOptions, accept_incoming, hand_off, make_context

    work = Path(tempfile.mkdtemp(prefix="bench-a2a-"))
    project = work / "project"
    for name in ("alpha", "beta"):
        _skill(project / ".claude" / "skills", name)
    os.chdir(project)
    sender_config = work / "sender-config"
    os.environ["CLAUDE_CONFIG_DIR"] = str(sender_config)
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

    hosts = [Host(work, index) for index in range(2)]
    try:
        for host in hosts:
            host.start()
        table = _run(args, hosts, paths, texts, sender_config, local_times, local_rate)
    finally:
        for host in hosts:
            host.stop()
    print(table)
    if args.doc:
        doc = Path(__file__).resolve().parents[1] / "docs" / "performance.md"
        text = doc.read_text(encoding="utf-8")
        start, end = "<!-- bench:a2a:start -->", "<!-- bench:a2a:end -->"
        before, rest = text.split(start, 1)
        _old, after = rest.split(end, 1)
        doc.write_text(f"{before}{start}\n{table}\n{end}{after}", encoding="utf-8")


def _run(
    args: argparse.Namespace,
    hosts: list[Host],
    paths: list[Path],
    texts: list[str],
    sender_config: Path,
    local_times: list[float],
    local_rate: float,
) -> str:
    """Send every hand-off (killing and restarting the first host midway), check the outcome; the table."""
    from swarm_handoff.api import open_history
    from swarm_handoff_a2a.ack import ack_task
    from swarm_handoff_a2a.sender import Retry, remote_status_async, send

    latencies: list[float] = []
    results: list[Any] = []
    lock = threading.Lock()
    kill_after = int(len(paths) * args.kill_at) if args.kill_at > 0 else None
    reached = threading.Event()
    # a bound long enough to outlast a restart on a loaded machine (about 40 s of waiting in all)
    retry = Retry(attempts=60, first=0.05, longest=1.0)

    def sender(share: list[int]) -> None:
        for i in share:
            t0 = time.perf_counter()
            result = send(paths[i], hosts[i % 2].url, retry=retry, config_dir=sender_config)
            spent = time.perf_counter() - t0
            with lock:
                latencies.append(spent)
                results.append((i, result))
                if kill_after is not None and len(results) >= kill_after:
                    reached.set()

    downtime = 0.0

    def killer() -> None:
        nonlocal downtime
        reached.wait()
        t0 = time.perf_counter()
        hosts[0].kill()
        hosts[0].start()
        downtime = time.perf_counter() - t0

    shares = [list(range(k, len(paths), args.senders)) for k in range(args.senders)]
    threads = [threading.Thread(target=sender, args=(share,)) for share in shares]
    if kill_after is not None:
        threads.append(threading.Thread(target=killer))
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started

    # none lost: every one delivered, each inbox holds exactly its payloads
    lost = [r for _, r in results if not (r.delivered and r.state == "working")]
    assert not lost, lost[:5]
    for index, host in enumerate(hosts):
        mine = sorted(texts[i] for i in range(len(texts)) if i % 2 == index)
        written = sorted(p.read_text(encoding="utf-8") for p in host.inbox.glob("*/handoffs/*.json"))
        assert written == mine, f"host {index}: {len(written)} payloads written for {len(mine)} sent"
    # none duplicated: one task per payload, one history row per payload on its receiver
    assert len({r.task_id for _, r in results}) == len(paths)
    sent_hashes = {i: r.payload_hash for i, r in results}
    for index, host in enumerate(hosts):
        with open_history(host.config) as history:
            received = sorted(row.payload_hash or "" for row in history.list(limit=len(paths) + 10))
        assert received == sorted(h for i, h in sent_hashes.items() if i % 2 == index), f"host {index}"
    # in both histories with the same hash: the sender's has each hand-off and its remote task
    with open_history(sender_config) as history:
        local_rows = {row.payload_hash for row in history.list(limit=len(paths) + 10)}
        remote = {row["payload_hash"]: row for row in history.remote()}
    assert set(sent_hashes.values()) <= local_rows
    assert set(remote) == set(sent_hashes.values())
    # every task COMPLETED after ack, as each host answers over A2A (and the sender's history records)
    for i, result in results:
        assert ack_task("success", task_id=result.task_id, store_url=hosts[i % 2].store_url) == "completed"

    async def states() -> list[str]:
        gate = asyncio.Semaphore(args.senders)

        async def one(i: int, result: Any) -> str:
            async with gate:
                return await remote_status_async(
                    hosts[i % 2].url, result.task_id, payload_hash=result.payload_hash, config_dir=sender_config
                )

        return list(await asyncio.gather(*(one(i, r) for i, r in results)))

    assert set(asyncio.run(states())) == {"completed"}
    with open_history(sender_config) as history:
        assert {row["state"] for row in history.remote()} == {"completed"}
    leftovers = sum(1 for host in hosts for p in host.inbox.rglob("*") if p.is_file()) - len(paths)
    median, p99 = statistics.median(latencies), _percentile(latencies, 0.99)
    local_median, local_p99 = statistics.median(local_times), _percentile(local_times, 0.99)
    rate = len(paths) / elapsed
    retried = sum(1 for _, r in results if r.attempts > 1)
    killed = (
        f"The first host was killed with SIGKILL after {kill_after} deliveries and was back {downtime:.1f} s later; "
        f"{retried} sends needed more than one attempt. "
        if kill_after is not None
        else ""
    )
    table = "\n".join(
        [
            f"{len(paths)} hand-offs, {args.senders} senders, 2 receiving hosts (processes) on loopback "
            f"(Python {platform.python_version()}, {os.cpu_count()} CPUs; a shared machine):",
            "",
            "| measure | over A2A | taken in locally (no network) | ratio |",
            "| --- | --- | --- | --- |",
            f"| median latency | {median * 1000:.1f} ms | {local_median * 1000:.1f} ms "
            f"| {median / local_median:.1f}x |",
            f"| 99th percentile | {p99 * 1000:.1f} ms | {local_p99 * 1000:.1f} ms | {p99 / local_p99:.1f}x |",
            f"| hand-offs per second | {rate:.1f} | {local_rate:.1f} | {local_rate / rate:.1f}x fewer |",
            "",
            f"{killed}None lost, none duplicated; every one in the sender's and its receiver's history with the "
            "same payload hash; every task COMPLETED after `ack`."
            + (
                f" The kill left {leftovers} partial file(s) (a temporary or quarantine copy) beside them."
                if leftovers
                else ""
            ),
        ]
    )
    return table


if __name__ == "__main__":
    sys.exit(main())
