"""The MCP server from a plain `pip install` of swarm-handoff-mcp in a fresh venv, spoken to over stdio."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import venv
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def test_the_mcp_server_runs_from_a_plain_pip_install(tmp_path: Path) -> None:
    """`pip install plugins/swarm-handoff-mcp` brings the SDK; `swarm-handoff mcp` answers over stdio."""
    path = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(path)
    bin_dir = path / ("Scripts" if os.name == "nt" else "bin")
    home = tmp_path / "home"
    home.mkdir()
    folders = [str(ROOT / f) for f in ("core", "plugins/swarm-handoff-frontmatter", "plugins/swarm-handoff-mcp")]
    pip = [str(bin_dir / "python"), "-m", "pip", "--disable-pip-version-check", "install", "--quiet", *folders]
    installed = subprocess.run(pip, capture_output=True, text=True)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    base = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_"))}
    base.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
    proc = subprocess.Popen(
        [str(bin_dir / "swarm-handoff"), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=home,
        env=base,
    )
    watchdog = threading.Timer(300, proc.kill)  # a safety net, not a limit under test
    watchdog.start()
    assert proc.stdin is not None
    assert proc.stdout is not None

    def ask(message: dict[str, Any]) -> dict[str, Any]:
        assert proc.stdin is not None
        assert proc.stdout is not None
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        while True:
            answer = json.loads(proc.stdout.readline())
            if answer.get("id") == message["id"]:
                return dict(answer)

    info = {"name": "e2e", "version": "0"}
    init = ask(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": info},
        }
    )
    assert init["result"]["serverInfo"]["name"] == "swarm-handoff"
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    tools = ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert {t["name"] for t in tools["result"]["tools"]} >= {"discover", "rank", "handoff", "verify", "ack"}
    called = ask({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "discover", "arguments": {}}})
    assert not called["result"].get("isError")
    assert "workflows" in called["result"]["structuredContent"]
    _out, err = proc.communicate()  # EOF: the server ends
    watchdog.cancel()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
