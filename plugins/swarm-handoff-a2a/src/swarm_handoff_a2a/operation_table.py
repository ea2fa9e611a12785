"""The `a2a` command group's rows: `serve`, `send`, `skills`, `status`, declared as operations.

The plugin's hook registers these rows on every run (they are how `-h` and the parser know the
commands), so this module imports only the operation types; it holds the two facts the rows and
`auth` share (the token's environment variable, the token schemes). The bodies, with their
documents, live in `commands.py` and are imported when one of the commands runs (each row names
its body as "module:function"). None is offered as an MCP tool (`tool` is unset): `serve` runs
until interrupted, and sending over the network from an agent's tool call is what `handoff` will
do.
"""

from __future__ import annotations

from pathlib import Path

from swarm_handoff.api import Group, Operation, Param

TOKEN_ENV = "SWARM_HANDOFF_A2A_TOKEN"
AUTH_SCHEMES = ("bearer", "api-key")  # how a token is presented (not a URL scheme)

DOCS = "docs/a2a.md"
MAX_ATTEMPTS = 100  # connection attempts of one send: `--attempts` here, SWARM_HANDOFF_A2A_ATTEMPTS in `transport`

GROUP = Group(
    "a2a",
    "Hand-offs between machines over A2A (Agent2Agent): receive, send, a host's skills, remote task states.",
    (
        "swarm-handoff a2a serve --session-root ~/a2a-sessions",
        "swarm-handoff a2a skills http://127.0.0.1:8470/",
        "swarm-handoff a2a send handoffs/payload.json --to http://127.0.0.1:8470/",
        "swarm-handoff a2a status --refresh",
    ),
    DOCS,
)

_TOKEN_FILE = Param(
    "token_file",
    Path,
    f"Read the token (or API key) from the first line of this file (mode 0600); else ${TOKEN_ENV} when set.",
    path=True,
)
_SCHEME = Param(
    "auth_scheme",
    str,
    "How the token is presented: bearer (Authorization: Bearer) or api-key (an X-API-Key header).",
    default="bearer",
    choices=AUTH_SCHEMES,
)

OPERATIONS = (
    Operation(
        "a2a serve",
        "Run a receiving host until interrupted: an A2A server whose card lists the skills accepting hand-offs.",
        (
            Param(
                "bind",
                str,
                "Address to bind; anything but loopback needs a token.",
                default="127.0.0.1",
                flags=("--host",),
            ),
            Param("port", int, "Port to listen on (0: a free one; the URL is printed).", default=8470, minimum=0),
            Param(
                "session_root",
                Path,
                "Folder accepted payloads are written under (default ./a2a-sessions).",
                path=True,
            ),
            Param(
                "task_store",
                str,
                "SQLAlchemy async URL of the task store (default SQLite in the config folder).",
            ),
            Param("public_url", str, "The URL the card names, when clients reach this host by another address."),
            _TOKEN_FILE,
            _SCHEME,
        ),
        "swarm_handoff_a2a.commands:serve_operation",
        examples=(
            "swarm-handoff a2a serve",
            "swarm-handoff a2a serve --port 0 --session-root ~/a2a-sessions",
            "swarm-handoff a2a serve --host 0.0.0.0 --token-file ~/.config/swarm-handoff-a2a.token",
        ),
        docs=DOCS,
        formatted=False,
    ),
    Operation(
        "a2a send",
        "Send a sealed payload file to a receiving host (to the payload's target; sent twice, it is one task).",
        (
            Param("payload", Path, "The payload file `handoff` wrote.", required=True, argument=True, path=True),
            Param("to", str, "The receiving host's URL.", required=True),
            Param(
                "attempts",
                int,
                "Connection attempts in all, waits doubling between them.",
                default=6,
                minimum=1,
                maximum=MAX_ATTEMPTS,
            ),
            _TOKEN_FILE,
            _SCHEME,
        ),
        "swarm_handoff_a2a.commands:send_operation",
        examples=(
            "swarm-handoff a2a send handoffs/payload.json --to http://127.0.0.1:8470/",
            "swarm-handoff a2a send handoffs/payload.json --to http://build.example.org:8470/ -f json",
        ),
        docs=DOCS,
    ),
    Operation(
        "a2a skills",
        "List a remote host's skills that accept a hand-off, from its agent card.",
        (
            Param("url", str, "The receiving host's URL.", required=True, argument=True),
            _TOKEN_FILE,
            _SCHEME,
        ),
        "swarm_handoff_a2a.commands:skills_operation",
        examples=("swarm-handoff a2a skills http://127.0.0.1:8470/",),
        docs=DOCS,
    ),
    Operation(
        "a2a status",
        "Show the hand-offs sent to other hosts and their remote task states, from the local history.",
        (
            Param("payload_hash", str, "Only this payload's (its meta.payload_hash)."),
            Param("refresh", bool, "Ask each host for its task's state now (and record it).", default=False),
            _TOKEN_FILE,
            _SCHEME,
        ),
        "swarm_handoff_a2a.commands:status_operation",
        examples=("swarm-handoff a2a status", "swarm-handoff a2a status --refresh -f json"),
        docs=DOCS,
    ),
)
