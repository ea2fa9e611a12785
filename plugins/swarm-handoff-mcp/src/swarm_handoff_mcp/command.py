"""The `swarm-handoff mcp` command: option parsing only; the SDK is imported when the server starts."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from swarm_handoff.api import SwarmError, UsageError

TOKEN_ENV = "SWARM_HANDOFF_MCP_TOKEN"
MIN_TOKEN = 32
LOOPBACK_NAMES = {"localhost"}


def parse_http(value: str, allow_remote: bool, token: str | None) -> tuple[str, int]:
    """Split HOST:PORT and refuse a non-loopback address unless --allow-remote and a long token are given."""
    import contextlib
    import ipaddress  # here, not at the top: every CLI run imports this module to add `mcp`

    host, sep, port_text = value.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise UsageError(f"--http {value!r} is not HOST:PORT", hint="for example --http 127.0.0.1:8765")
    loopback = host in LOOPBACK_NAMES
    with contextlib.suppress(ValueError):  # a name, not an address: only "localhost" counts
        loopback = loopback or ipaddress.ip_address(host).is_loopback
    if not loopback:
        if not allow_remote:
            raise UsageError(
                f"--http {host} is not a loopback address: anyone who can reach it could hand off and read skills",
                hint="serve on 127.0.0.1, or pass --allow-remote with a token in $" + TOKEN_ENV,
            )
        if token is None or len(token) < MIN_TOKEN:
            raise UsageError(
                f"--allow-remote needs a bearer token of at least {MIN_TOKEN} characters in ${TOKEN_ENV}",
                hint=f"for example: export {TOKEN_ENV}=$(python -c 'import secrets; print(secrets.token_urlsafe(32))')",
            )
    return host, int(port_text)


ELICIT_TIMEOUT_ENV = "SWARM_HANDOFF_MCP_ELICIT_TIMEOUT"
MAX_ELICIT_TIMEOUT = 3600.0


def parse_elicit_timeout(text: str | None) -> float:
    """The elicitation bound in seconds: a number above 0 and at most an hour; absent, the default (120)."""
    from swarm_handoff_mcp.config import DEFAULT_ELICIT_TIMEOUT

    if text is None or not text.strip():
        return DEFAULT_ELICIT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= MAX_ELICIT_TIMEOUT:  # NaN fails too
        raise UsageError(
            f"--elicit-timeout ({ELICIT_TIMEOUT_ENV}) is {text[:40]!r}, not a number of seconds above 0 and at most "
            f"{MAX_ELICIT_TIMEOUT:g}",
            hint="give seconds, for example --elicit-timeout 120",
        )
    return value


def register(app: typer.Typer) -> None:
    """Add `mcp` to `app`."""

    @app.command("mcp")
    def mcp_command(
        http: Annotated[
            str | None,
            typer.Option("--http", help="Serve streamable HTTP at HOST:PORT (loopback only) instead of stdio."),
        ] = None,
        allow_remote: Annotated[
            bool,
            typer.Option("--allow-remote", help=f"Allow a non-loopback --http address (needs ${TOKEN_ENV})."),
        ] = False,
        print_config: Annotated[
            str | None,
            typer.Option(
                "--print-config",
                help="Print the client's config file (claude, codex, vscode, cursor); where it goes is on stderr.",
            ),
        ] = None,
        elicit_timeout: Annotated[
            str | None,
            typer.Option(
                "--elicit-timeout",
                envvar=ELICIT_TIMEOUT_ENV,
                help="Seconds an elicitation (the loop question) waits for the client's answer before it counts "
                "as declined (default 120).",
            ),
        ] = None,
    ) -> None:
        """Serve swarm-handoff over the Model Context Protocol (stdio by default), or print a client's config."""
        from swarm_handoff_mcp.config import CLIENTS, placement, snippet

        try:
            if print_config is not None:
                if print_config not in CLIENTS:
                    raise UsageError(f"unknown client {print_config!r}", hint=f"use one of: {', '.join(CLIENTS)}")
                sys.stderr.write(placement(print_config))  # stdout is the file alone: `> .mcp.json` works
                sys.stdout.write(snippet(print_config))
                return
            token = os.environ.get(TOKEN_ENV) or None
            address = parse_http(http, allow_remote, token) if http is not None else None
            waits = parse_elicit_timeout(elicit_timeout)
        except SwarmError as error:
            typer.echo(f"error: {error}", err=True)
            raise typer.Exit(error.exit_code) from None
        import anyio

        from swarm_handoff_mcp import transports

        try:
            if address is None:
                status = anyio.run(lambda: transports.serve_stdio(elicit_timeout=waits))
                if status:
                    raise typer.Exit(status)
            else:
                typer.echo(f"swarm-handoff MCP server on http://{address[0]}:{address[1]}/mcp", err=True)
                anyio.run(
                    lambda: transports.serve_http(
                        address[0], address[1], token, allow_remote=allow_remote, elicit_timeout=waits
                    )
                )
        except KeyboardInterrupt:  # Ctrl-C ends the server; no traceback for the person who pressed it
            raise typer.Exit(130) from None
