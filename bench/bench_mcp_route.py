"""`route` in a warm MCP server at 2,000 real skills (issue 28: at most 20 ms median).

One run starts `swarm-handoff mcp` over stdio with the SDK's own `ClientSession`, on a tree of the
routing benchmark's real skills copied to `--skills` (bench_router_speed.make_real_tree: the
generated tree's 60-word vocabulary would defeat the postings), calls `route` once to warm it (the
index built or read, the code imported), then `--runs` times, each timed from the request to the
parsed `CallToolResult`, cycling through `--requests` labelled requests of holdout13 (written
blind), so no call repeats the one before. The median and the 90th percentile are printed, with
the CPU time of one call in one process without the pipe (`SwarmServer._answer`: the tool body
and its rendering) beside them.

Run: `python bench/bench_mcp_route.py [--skills 2000] [--runs 41] [--requests 8]`; never a unit
test. Needs the MCP and router plugins installed and ../shared/corpus; without the router or the
corpus it says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).parent))
import bench_routing  # sibling scripts, not a package
from bench_mcp_discover import _env
from bench_router_speed import make_real_tree, router_missing

CPU_PER_CALL = """
import json, statistics, sys, time
from swarm_handoff.api import get_host
from swarm_handoff_mcp.server import SwarmServer
from swarm_handoff_mcp.tools import Call
runs, requests = int(sys.argv[1]), json.loads(sys.argv[2])
server = SwarmServer(get_host())
spec = server.tools["route"]
server._answer(spec, Call({"request": requests[0]}, server.host))  # warm
samples = []
for number in range(runs):
    start = time.process_time()
    server._answer(spec, Call({"request": requests[number % len(requests)]}, server.host))
    samples.append(time.process_time() - start)
print(json.dumps(statistics.median(samples)))
"""


def requests(count: int) -> list[str]:
    """The first `count` labelled requests of holdout13 that a skill can take."""
    loaded = bench_routing.load_requests(bench_routing.ROUTING / "requests-holdout13.yaml")
    return [r["q"] for r in loaded if r["skills"]][:count]


async def _mcp(project: Path, env: dict[str, str], runs: int, asks: list[str]) -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    command = str(Path(sys.executable).with_name("swarm-handoff"))  # the installed command, as a user runs it
    params = StdioServerParameters(command=command, args=["mcp"], env=env, cwd=str(project))
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            if "route" not in {tool.name for tool in (await client.list_tools()).tools}:
                return {}
            start = time.perf_counter()
            first = await client.call_tool("route", {"request": asks[0]})
            cold = time.perf_counter() - start
            if first.is_error:
                raise SystemExit(f"route: {first.structured_content}")
            samples = []
            for number in range(runs):
                start = time.perf_counter()
                result = await client.call_tool("route", {"request": asks[number % len(asks)]})
                samples.append(time.perf_counter() - start)
                if result.is_error:
                    raise SystemExit(f"route: {result.structured_content}")
            listed = int(first.structured_content["ranked"]) if first.structured_content else 0
    samples.sort()
    return {
        "first": cold,
        "median": statistics.median(samples),
        "p90": samples[int(0.9 * (len(samples) - 1))],
        "listed": listed,
    }


def main(argv: list[str] | None = None) -> None:
    """Time `route` in a warm MCP server over a tree of real skills."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--skills", type=int, default=2000, help="skills in the tree")
    parser.add_argument("--runs", type=int, default=41, help="timed calls; the median is kept")
    parser.add_argument("--requests", type=int, default=8, help="labelled requests the calls cycle through")
    args = parser.parse_args(argv)
    if router_missing("bench_mcp_route"):
        return
    if not bench_routing.CORPUS.is_dir():
        print(f"bench_mcp_route: skipped: no corpus at {bench_routing.CORPUS} (the real skills it copies)")
        return
    asks = requests(args.requests)
    with tempfile.TemporaryDirectory(prefix="bench-mcp-route-") as tmp:
        root = Path(tmp)
        project = root / "project"
        make_real_tree(project, args.skills)
        env = _env(root)
        load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
        mcp = anyio.run(_mcp, project, env, args.runs, asks, backend="asyncio")
        if not mcp:
            print("bench_mcp_route: skipped: the server offers no `route` tool (install swarm-handoff-router)")
            return
        done = subprocess.run(
            [sys.executable, "-c", CPU_PER_CALL, str(args.runs), json.dumps(asks)],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
        )
        if done.returncode:
            raise SystemExit(done.stderr[-2000:])
        cpu = float(json.loads(done.stdout.strip().splitlines()[-1]))
    print(f"Command: python bench/bench_mcp_route.py --skills {args.skills} --runs {args.runs}")
    print(
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.machine()}, {os.cpu_count()} "
        f"CPUs, Python {platform.python_version()}, load average {load} at the start\n"
    )
    print("| MCP `route`, warm server | skills | median | 90th percentile | CPU per call (no pipe) |")
    print("|---|---:|---:|---:|---:|")
    print(
        f"| {len(asks)} labelled requests in turn | {mcp['listed']:,} | {mcp['median'] * 1000:.0f} ms "
        f"| {mcp['p90'] * 1000:.0f} ms | {cpu * 1000:.0f} ms |"
    )
    print(f"\nfirst call (index built, code imported): {mcp['first'] * 1000:.0f} ms")


if __name__ == "__main__":
    main()
