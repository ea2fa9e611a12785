"""The server as a process: EOF and Ctrl-C end it cleanly, stdout is the protocol's alone, broken plugins are survived.

These speak raw JSON-RPC lines, so that every byte the server writes on stdout can be checked.
"""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from swarm_handoff_mcp.testing import World, server_command

pytest.importorskip("mcp")

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class Raw:
    """A server process and a line-by-line JSON-RPC conversation with it (a watchdog kills a hung one)."""

    def __init__(self, world: World, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            server_command(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**world.env, **(env or {})},
            cwd=world.project,
            text=True,
        )
        self.watchdog = threading.Timer(120, self.proc.kill)  # a safety net, not a limit under test
        self.watchdog.start()
        self.lines: list[str] = []

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def receive(self, request_id: int) -> dict[str, Any]:
        """Read lines up to the response to `request_id`; every line must be a JSON-RPC message."""
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            assert line, "the server closed stdout before answering"
            self.lines.append(line)
            message = json.loads(line)  # a stray print on stdout would fail here
            assert message["jsonrpc"] == "2.0"
            if message.get("id") == request_id:
                return dict(message)

    def start(self) -> None:
        self.send(INITIALIZE)
        assert "result" in self.receive(1)
        self.send(INITIALIZED)

    def finish(self) -> tuple[int, str, str]:
        """Close stdin (EOF), wait for the exit, and return (status, rest of stdout, stderr)."""
        out, err = self.proc.communicate()
        self.watchdog.cancel()
        for line in out.splitlines():
            assert json.loads(line)["jsonrpc"] == "2.0"
        return self.proc.returncode, out, err


def call(tool: str, arguments: dict[str, Any], request_id: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }


def test_eof_in_the_middle_of_a_call_ends_the_server_cleanly(world: World) -> None:
    """The client goes away while a slow hand-off runs: the server exits 0, no traceback, payload intact."""
    check = f'{shlex.quote(sys.executable)} -c "import time; time.sleep(1.5)"'
    world.tree.add_handoff("slow", health_check=check)
    server = Raw(world)
    server.start()
    arguments = {
        "target": "slow",
        "synthesis": str(world.synthesis),
        "session": str(world.session),
        "health_check": True,
    }
    server.send(call("handoff", arguments, 2))
    status, _out, err = server.finish()
    assert status == 0, err
    assert "Traceback" not in err
    assert not list(world.session.glob("*.tmp*"))  # nothing half written left behind


def test_ctrl_c_ends_the_server_without_a_traceback(world: World) -> None:
    """SIGINT (Ctrl-C at the terminal that launched it) ends the server with status 130 and no traceback."""
    if sys.platform == "win32":
        pytest.skip("POSIX signals")
    server = Raw(world)
    server.start()
    server.send(call("discover", {}, 2))
    assert "result" in server.receive(2)
    server.proc.send_signal(signal.SIGINT)
    status = server.proc.wait()  # stdin still open: the signal alone ends it
    status, _out, err = server.finish()
    assert status == 130, err
    assert "Traceback" not in err
    assert "stopped by signal" in err


PLUGINS = """
import os
import sys

from swarm_handoff.api import hookimpl
from swarm_handoff.records import SourceResult


class Noisy:
    priority = 50

    def discover(self, context):
        print("NOISE from a plugin's print")
        os.write(1, b"RAW NOISE written to fd 1\\n")
        return SourceResult(records=(), scanned=0)


@hookimpl
def swarm_handoff_discovery_sources(register):
    register("noisy", Noisy)
"""


def install_test_plugins(root: Path) -> str:
    """A distribution on PYTHONPATH with a plugin that fails to import and one that prints on stdout."""
    site = root / "site"
    site.mkdir()
    (site / "mcp_test_noisy.py").write_text(PLUGINS, encoding="utf-8")
    (site / "mcp_test_broken.py").write_text("raise RuntimeError('boom at import')\n", encoding="utf-8")
    info = site / "mcp_test_plugins-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mcp-test-plugins\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[swarm_handoff]\nmcp-test-noisy = mcp_test_noisy\nmcp-test-broken = mcp_test_broken\n", encoding="utf-8"
    )
    return str(site)


def test_broken_plugin_is_reported_and_stdout_stays_the_protocols(world: World) -> None:
    """A plugin that fails to import is named in each result; a plugin's prints never reach stdout."""
    site = install_test_plugins(world.root)
    server = Raw(world, env={"PYTHONPATH": site})
    server.start()
    server.send(call("discover", {}, 2))
    response = server.receive(2)
    server.send(call("why", {"name": "lit-review"}, 3))
    assert not server.receive(3)["result"].get("isError")
    status, _out, err = server.finish()
    result = response["result"]
    assert not result.get("isError")
    assert "lit-review" in json.dumps(result["structuredContent"])
    warnings = " ".join(block["text"] for block in result["content"])
    assert "mcp-test-broken" in warnings
    assert "boom at import" in warnings
    assert status == 0
    assert "NOISE from a plugin's print" in err
    assert "RAW NOISE written to fd 1" in err
    assert "mcp-test-broken" in err
    assert not any("NOISE" in line for line in server.lines)


def nested_call(depth: int, request_id: int) -> str:
    """A `rank` call whose synthesis nests `depth` objects, written as text (json.dumps would recurse)."""
    deep = '{"a":' * depth + "{}" + "}" * depth
    head = f'{{"jsonrpc": "2.0", "id": {request_id}, "method": "tools/call", '
    return head + f'"params": {{"name": "rank", "arguments": {{"synthesis": {deep}}}}}}}'


@pytest.mark.parametrize("depth", [200, 5000])
def test_a_call_nested_too_deep_gets_a_coded_answer_and_the_server_lives_on(world: World, depth: int) -> None:
    """Issue 25: the SDK's parser gives up on such a line and nothing answered; now the request id is answered."""
    from swarm_handoff_mcp.depth import MAX_MESSAGE_DEPTH, TOO_DEEP

    server = Raw(world)
    server.start()
    assert server.proc.stdin is not None
    server.proc.stdin.write(nested_call(depth, 2) + "\n")
    server.proc.stdin.flush()
    error = server.receive(2)["error"]
    assert error["code"] == -32602
    assert error["data"]["code"] == TOO_DEEP
    assert f"more than the {MAX_MESSAGE_DEPTH}" in error["message"]
    server.send(call("why", {"name": "lit-review"}, 3))
    assert not server.receive(3)["result"].get("isError")  # the next call is served as before
    status, _out, err = server.finish()
    assert status == 0, err
    assert "Traceback" not in err
