"""`swarm-handoff mcp` options: client snippets, the loopback rule for --http, and the HTTP transport itself."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import anyio
import pytest

from swarm_handoff.api import UsageError
from swarm_handoff_mcp.command import MIN_TOKEN, TOKEN_ENV, parse_http
from swarm_handoff_mcp.config import CLIENTS, snippet
from swarm_handoff_mcp.testing import World, server_command


def _body(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("#"))


def test_print_config_prints_each_clients_snippet(swarm_cli: Any) -> None:
    """claude/cursor: mcpServers; vscode: servers with type stdio; codex: TOML [mcp_servers.NAME]."""
    for client in CLIENTS:
        result = swarm_cli("mcp", "--print-config", client)
        assert result.exit_code == 0, result.stderr
        assert result.stdout == snippet(client)
    for client in ("claude", "cursor"):
        server = json.loads(_body(snippet(client, "/bin/swarm-handoff")))["mcpServers"]["swarm-handoff"]
        assert server == {"command": "/bin/swarm-handoff", "args": ["mcp"]}
    vscode = json.loads(_body(snippet("vscode", "/bin/swarm-handoff")))["servers"]["swarm-handoff"]
    assert vscode == {"type": "stdio", "command": "/bin/swarm-handoff", "args": ["mcp"]}
    if sys.version_info >= (3, 11):
        import tomllib

        codex = tomllib.loads(snippet("codex", "/bin/swarm-handoff"))["mcp_servers"]["swarm-handoff"]
        assert codex == {"command": "/bin/swarm-handoff", "args": ["mcp"]}
    unknown = swarm_cli("mcp", "--print-config", "emacs")
    assert unknown.exit_code == 2
    assert "USAGE" in unknown.stderr


def test_print_config_does_not_import_the_sdk() -> None:
    """Printing a snippet (like every other command) never pays for the SDK and pydantic."""
    code = (
        "import sys; from swarm_handoff.cli.entry import main\n"
        "try:\n main(['mcp', '--print-config', 'claude'])\nexcept SystemExit:\n pass\n"
        "bad = [m for m in ('mcp', 'pydantic', 'swarm_handoff_mcp.server') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("address", "loopback"),
    [("127.0.0.1:8765", True), ("localhost:1", True), ("[::1]:8765", True), ("0.0.0.0:8765", False)],
)
def test_http_is_loopback_only_unless_allowed_with_a_token(address: str, loopback: bool) -> None:
    """A non-loopback address needs --allow-remote and a long token; loopback needs neither."""
    if loopback:
        assert parse_http(address, False, None)[1] == int(address.rsplit(":", 1)[1])
        return
    with pytest.raises(UsageError, match="not a loopback address"):
        parse_http(address, False, None)
    with pytest.raises(UsageError, match=TOKEN_ENV):
        parse_http(address, True, "short")
    assert parse_http(address, True, "x" * MIN_TOKEN) == ("0.0.0.0", 8765)


@pytest.mark.parametrize("address", ["8765", "host:", ":80", "127.0.0.1:99999", "127.0.0.1:http"])
def test_http_address_must_be_host_and_port(address: str) -> None:
    with pytest.raises(UsageError, match="HOST:PORT"):
        parse_http(address, False, None)


def test_http_refusal_from_the_command_line(swarm_cli: Any) -> None:
    result = swarm_cli("mcp", "--http", "0.0.0.0:8765")
    assert result.exit_code == 2
    assert "--allow-remote" in result.stderr


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_streamable_http_on_loopback_with_a_token(world: World) -> None:
    """The real client over streamable HTTP: refused without the bearer token, served with it."""
    pytest.importorskip("mcp")
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    port = _free_port()
    token = "t" * MIN_TOKEN
    proc = subprocess.Popen(
        [*server_command(), "--http", f"127.0.0.1:{port}"],
        env={**world.env, TOKEN_ENV: token},
        cwd=world.project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    watchdog = threading.Timer(120, proc.kill)  # a safety net, not a limit under test
    watchdog.start()
    try:
        while proc.poll() is None:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"
        request = urllib.request.Request(url, data=b"{}", method="POST", headers={"content-type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        assert refused.value.code == 401

        async def main() -> tuple[list[str], Any]:
            headers = {"Authorization": f"Bearer {token}"}
            async with (
                httpx2.AsyncClient(headers=headers, timeout=60) as http,
                streamable_http_client(url, http_client=http) as (read, write, *_),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                tools = [tool.name for tool in (await client.list_tools()).tools]
                return tools, await client.call_tool("discover", {"scope": ["project"]})

        tools, discovered = anyio.run(main)
        assert "handoff" in tools
        assert not discovered.is_error
        assert {w["skill"] for w in discovered.structured_content["workflows"]} == {"lit-review", "market-scan"}
    finally:
        proc.terminate()
        _out, err = proc.communicate(timeout=60)
        watchdog.cancel()
    assert "Traceback" not in err


def test_print_config_stdout_pastes_as_a_valid_file(swarm_cli: Any) -> None:
    """`mcp --print-config claude > .mcp.json` writes a valid file: the notes on where it goes are on stderr."""
    for client in ("claude", "vscode", "cursor"):
        result = swarm_cli("mcp", "--print-config", client)
        assert result.exit_code == 0, result.stderr
        assert isinstance(json.loads(result.stdout), dict), client
        assert "put this in" in result.stderr, client
    codex = swarm_cli("mcp", "--print-config", "codex")
    assert codex.stdout.startswith("[mcp_servers.swarm-handoff]"), codex.stdout
    assert "config.toml" in codex.stderr


def test_mcp_help_shows_examples_and_the_docs_page(swarm_cli: Any) -> None:
    page = swarm_cli("mcp", "-h").stdout
    assert "Examples:\n    swarm-handoff mcp\n" in page, page
    assert "swarm-handoff mcp --print-config claude > .mcp.json" in page
    assert "More: docs/mcp.md" in page


@pytest.mark.parametrize("bad", ["0", "-1", "nan", "soon", "3601"])
def test_a_bad_elicit_timeout_is_a_usage_error_before_serving(bad: str) -> None:
    from swarm_handoff_mcp.command import parse_elicit_timeout

    with pytest.raises(UsageError) as caught:
        parse_elicit_timeout(bad)
    assert "--elicit-timeout" in caught.value.message


def test_the_elicit_timeout_defaults_and_reads_seconds() -> None:
    from swarm_handoff_mcp.command import parse_elicit_timeout
    from swarm_handoff_mcp.config import DEFAULT_ELICIT_TIMEOUT

    assert parse_elicit_timeout(None) == DEFAULT_ELICIT_TIMEOUT == 120.0
    assert parse_elicit_timeout("2.5") == 2.5
