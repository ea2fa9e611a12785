"""`swarm-handoff mcp --print-config CLIENT`: the snippet each MCP client needs to launch the server.

No SDK import: printing a snippet must not pay for pydantic.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

CLIENTS = ("claude", "codex", "vscode", "cursor")
# How long a question asked through elicitation waits for the client's answer before it counts as
# declined, in seconds (`swarm-handoff mcp --elicit-timeout`, or SWARM_HANDOFF_MCP_ELICIT_TIMEOUT).
DEFAULT_ELICIT_TIMEOUT = 120.0
NAME = "swarm-handoff"


def command_path() -> str:
    """The `swarm-handoff` of this installation (clients launch with their own PATH, often a shorter one)."""
    beside = Path(sys.executable).parent / ("swarm-handoff.exe" if os.name == "nt" else "swarm-handoff")
    if beside.is_file():
        return str(beside)
    return shutil.which("swarm-handoff") or "swarm-handoff"


def snippet(client: str, command: str | None = None) -> str:
    """The configuration file text for `client` (one of CLIENTS), exactly what pastes into the file."""
    command = command or command_path()
    if client in ("claude", "cursor"):  # Claude Code's .mcp.json and Cursor's mcp.json: `mcpServers`
        body = json.dumps({"mcpServers": {NAME: {"command": command, "args": ["mcp"]}}}, indent=2)
        return body + "\n"
    if client == "codex":  # Codex CLI: a table of ~/.codex/config.toml
        return f'[mcp_servers.{NAME}]\ncommand = {json.dumps(command)}\nargs = ["mcp"]\n'
    if client == "vscode":  # VS Code: .vscode/mcp.json uses `servers`, with an explicit type
        body = json.dumps({"servers": {NAME: {"type": "stdio", "command": command, "args": ["mcp"]}}}, indent=2)
        return body + "\n"
    raise ValueError(client)


def placement(client: str, command: str | None = None) -> str:
    """Where the snippet goes, for stderr: stdout stays a file that `> FILE` writes valid."""
    command = command or command_path()
    if client == "claude":
        return (
            "Claude Code: put this in .mcp.json at the project root, or run:\n"
            f"  claude mcp add --scope project {NAME} -- {command} mcp\n"
        )
    if client == "codex":
        return f"Codex: add to ~/.codex/config.toml (or run: codex mcp add {NAME} -- {command} mcp)\n"
    if client == "vscode":
        return "VS Code: put this in .vscode/mcp.json in the workspace\n"
    if client == "cursor":
        return "Cursor: put this in .cursor/mcp.json (project) or ~/.cursor/mcp.json (every project)\n"
    raise ValueError(client)
