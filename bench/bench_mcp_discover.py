"""`discover` over MCP at 2,000 skills, side by side with the CLI's `discover --format json`.

Issue 27: a warm MCP server must answer `discover` at 2,000 skills in at most 40 ms (median), the
client's parse included, and concurrent read-only calls must overlap. One run measures, on the
same synthetic tree (bench_discovery.make_tree) with every cache warm:

- the CLI: `swarm-handoff discover --format json`, a new process each run, its output parsed with
  `json.loads` (what a client of the CLI does);
- the MCP server (`swarm-handoff mcp` over stdio, the SDK's own `ClientSession`): one `discover`
  call after another, each timed from the request to the parsed `CallToolResult` (the SDK validates
  the JSON-RPC message into pydantic models: the client's parse); with no argument (the first page)
  and with `limit: 10000` (every skill: the whole document, as before pages existed);
- overlap: 8 read-only calls at once (`asyncio.gather` on one connection) against the same 8 one
  after another, with `why` (one skill's lookup) and with `discover`.

A last table gives the CPU time of one call (`time.process_time`, in one process without the
pipe): the server's work (`SwarmServer._answer`: the tool body and its rendering), the SDK's
serialisation of the result and the client's parse of it (`CallToolResult.model_validate_json`).
CPU time is what a call costs whatever else the machine runs; on an idle machine the wall time
of a call is about that plus the pipe.

Each figure is the median of `--runs`. Run: `python bench/bench_mcp_discover.py [--skills 2000]
[--runs 15]` (also run by `nox -s bench`); never a unit test. Needs the MCP plugin installed.
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

import anyio

sys.path.insert(0, str(Path(__file__).parent))
from bench_discovery import make_tree  # a sibling script, not a package


def _env(root: Path) -> dict[str, str]:
    home = root / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_", "XDG_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # users have their .pyc files
    env.update(
        HOME=str(home),
        CLAUDE_CONFIG_DIR=str(home / ".claude"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_CONFIG_HOME=str(home / ".config"),
        PYTHONPYCACHEPREFIX=str(root / "pycache"),
    )
    return env


def _cli(project: Path, env: dict[str, str], runs: int) -> tuple[float, int]:
    command = [shutil.which("swarm-handoff") or "swarm-handoff", "discover", "--format", "json"]
    times, count = [], 0
    for i in range(runs + 1):  # the first run fills the caches
        start = time.perf_counter()
        done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, check=True)
        count = len(json.loads(done.stdout)["workflows"])
        if i:
            times.append(time.perf_counter() - start)
    return statistics.median(times), count


CPU_PER_CALL = """
import json, statistics, sys, time
import mcp_types as types
from swarm_handoff.api import get_host
from swarm_handoff_mcp.server import SwarmServer
from swarm_handoff_mcp.tools import Call
runs = int(sys.argv[1])
server = SwarmServer(get_host())
spec = server.tools["discover"]
out = {}
for key, arguments in (("page", {}), ("all", {"limit": 10_000})):
    server._answer(spec, Call(arguments, server.host))  # warm
    samples = []
    for _ in range(runs):
        start = time.process_time()
        data, text = server._answer(spec, Call(arguments, server.host))
        result = types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=data)
        wire = result.model_dump_json(by_alias=True, exclude_none=True)
        types.CallToolResult.model_validate_json(wire)
        samples.append(time.process_time() - start)
    out[key] = statistics.median(samples)
print(json.dumps(out))
"""


def _cpu(project: Path, env: dict[str, str], runs: int) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", CPU_PER_CALL, str(runs)], cwd=project, env=env, capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(done.stderr[-2000:])
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


async def _mcp(project: Path, env: dict[str, str], runs: int) -> dict[str, Any]:
    import asyncio

    from mcp import ClientSession, StdioServerParameters, stdio_client

    command = shutil.which("swarm-handoff") or "swarm-handoff"
    params = StdioServerParameters(command=command, args=["mcp"], env=env, cwd=str(project))
    out: dict[str, Any] = {}
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as client:
            await client.initialize()

            async def timed(name: str, arguments: dict[str, Any]) -> tuple[float, Any]:
                start = time.perf_counter()
                result = await client.call_tool(name, arguments)
                elapsed = time.perf_counter() - start
                if result.is_error:
                    raise SystemExit(f"{name} {arguments}: {result.structured_content}")
                return elapsed, result.structured_content

            for arguments in ({}, {"limit": 10_000}):
                await timed("discover", arguments)  # warm: caches filled, code paths imported
                samples = [await timed("discover", arguments) for _ in range(runs)]
                key = "page" if not arguments else "all"
                out[f"discover_{key}"] = statistics.median(t for t, _ in samples)
                out[f"count_{key}"] = len(samples[-1][1]["workflows"])
                out[f"chars_{key}"] = len(json.dumps(samples[-1][1]))
            for name, arguments in (("why", {"name": "skill-00001"}), ("discover", {})):
                sequential, concurrent = [], []
                for _ in range(max(3, runs // 3)):
                    start = time.perf_counter()
                    for _ in range(8):
                        await timed(name, arguments)
                    sequential.append(time.perf_counter() - start)
                    start = time.perf_counter()
                    await asyncio.gather(*(timed(name, arguments) for _ in range(8)))
                    concurrent.append(time.perf_counter() - start)
                out[f"{name}_sequential"] = statistics.median(sequential)
                out[f"{name}_concurrent"] = statistics.median(concurrent)
    return out


def main(argv: list[str] | None = None) -> None:
    """Time the CLI and the MCP server on one tree, and 8 calls at once against 8 in a row."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--skills", type=int, default=2000, help="skills in the tree")
    parser.add_argument("--runs", type=int, default=15, help="runs per figure; the median is kept")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as tmp:
        root = Path(tmp)
        project = root / "project"
        make_tree(project, args.skills)
        env = _env(root)
        load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
        cli, cli_count = _cli(project, env, args.runs)
        mcp = anyio.run(_mcp, project, env, args.runs, backend="asyncio")
        cpu = _cpu(project, env, args.runs)
    print(f"Command: python bench/bench_mcp_discover.py --skills {args.skills} --runs {args.runs}")
    print(
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.machine()}, {os.cpu_count()} "
        f"CPUs, Python {platform.python_version()}, load average {load} at the start; median of {args.runs}\n"
    )
    print("| call | skills listed | result | median |\n|---|---:|---:|---:|")
    print(f"| CLI `discover --format json` (new process, parsed) | {cli_count:,} | | {cli * 1000:,.0f} ms |")
    for key, label in (
        ("page", "`discover` (first page, the default)"),
        ("all", "`discover` with `limit: 10000` (every skill)"),
    ):
        print(
            f"| MCP {label} | {mcp['count_' + key]:,} | {mcp['chars_' + key]:,} chars "
            f"| {mcp['discover_' + key] * 1000:,.0f} ms |"
        )
    print("\n| 8 read-only calls | one after another | all at once | at once ÷ in a row |\n|---|---:|---:|---:|")
    for name in ("why", "discover"):
        seq, con = mcp[f"{name}_sequential"], mcp[f"{name}_concurrent"]
        print(f"| `{name}` | {seq * 1000:,.0f} ms | {con * 1000:,.0f} ms | {con / seq:.2f} |")
    print("\n| CPU time of one `discover` call (server, SDK, client parse) | median |\n|---|---:|")
    print(f"| first page (the default) | {cpu['page'] * 1000:,.0f} ms |")
    print(f"| `limit: 10000` (every skill) | {cpu['all'] * 1000:,.0f} ms |")


if __name__ == "__main__":
    main()
