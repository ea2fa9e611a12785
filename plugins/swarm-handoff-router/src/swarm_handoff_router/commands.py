"""The `route` operation: "who should take this?" for a request in words, on the command line and over MCP.

Declared once (`ROUTE`), registered through `swarm_handoff_operations`: the command line gets
`swarm-handoff route "REQUEST"` and the MCP server a `route` tool from the same row. The body is
`answer.route()`; "no skill fits" is the document's `abstain` field on every surface.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from swarm_handoff.api import (
    DEFAULT_TOP,
    MAX_REQUEST_CHARS,
    MAX_TOP,
    Operation,
    Param,
    PluginHost,
    UsageError,
    invoke_operation,
    run,
)
from swarm_handoff.api import RANKING_RULE as RULE

if TYPE_CHECKING:
    from swarm_handoff_router.answer import RouteDocument

__all__ = ["OPERATIONS", "ROUTE", "read_request", "route_cli", "route_operation"]

STDIN = "-"

ROUTE = Operation(
    "route",
    "Say which skill should take a request in words: every discovered skill ranked, or 'no skill fits'.\n\n" + RULE,
    (
        Param(
            "request",
            help=f"The request in words; - reads it from stdin (at most {MAX_REQUEST_CHARS:,} characters).",
            required=True,
            argument=True,
            tool_help=f"The request in words (at most {MAX_REQUEST_CHARS:,} characters).",
            tool_schema={"maxLength": MAX_REQUEST_CHARS},
        ),
        Param(
            "top",
            int,
            "How many skills to list.",
            default=DEFAULT_TOP,  # as `rank`
            minimum=1,
            tool_help="How many skills to list.",
            tool_schema={"maximum": MAX_TOP},  # as `rank`
        ),
        Param(
            "scope",
            help="Only skills of this scope (repeatable).",
            repeatable=True,
            tool_help="Only skills of these scopes.",
        ),
        Param(
            "problem_type",
            help="The kind of problem (recorded in the answer; the router reads the words).",
        ),
        Param(
            "show_all",
            bool,
            "List the ranking even when no skill fits.",
            default=False,
            flags=("--all",),
            tool_name="show_all",
            tool_help="List the ranking even when no skill fits (abstain stays true).",
        ),
        Param(
            "cwd",
            Path,
            "Discover skills as if run here (default: current folder).",
            tool_help="Discover as if run from this folder (default: the server's working folder).",
            path=True,
        ),
        Param("explain", bool, "Show each skill's reasons, term by term.", default=False),
    ),
    "swarm_handoff_router.commands:route_operation",
    examples=(
        'swarm-handoff route "fill in this PDF form from my spreadsheet"',
        'echo "review my pull request" | swarm-handoff route - --top 3 --explain',
        'swarm-handoff route "book a table for two" --all -f json',
    ),
    docs="docs/routing.md",
    mcp=True,
    tool_summary="Say which skill should take a request in words: every discovered skill ranked, with "
    "`abstain` true when no skill fits (as `swarm-handoff route`).",
    cli_invoke="swarm_handoff_router.commands:route_cli",
)

OPERATIONS = (ROUTE,)


def route_operation(
    host: PluginHost,
    *,
    request: str,
    top: int | None = DEFAULT_TOP,
    scope: list[str] | None = None,
    problem_type: str | None = None,
    show_all: bool = False,
    cwd: Path | None = None,
    explain: bool = False,
) -> RouteDocument:
    """`route`: rank every discovered skill for the request, or say that none fits (abstain)."""
    from swarm_handoff_router.answer import route  # every command registers this module's row

    found = route(request, cwd=cwd, top=top, scope=scope or None, problem_type=problem_type, show_all=show_all)
    return found.explained(explain)


def read_request(stream: TextIO, limit: int = MAX_REQUEST_CHARS) -> str:
    """Read a request from `stream`, at most `limit` characters: a longer one is refused, never read whole."""
    text = stream.read(limit + 1)
    if len(text) > limit:
        raise UsageError(
            f"the request on stdin is longer than {limit:,} characters",
            hint="pass the request itself, not a whole log or document",
        )
    return text


def route_cli(operation: Operation, values: dict[str, Any]) -> None:
    """The command line's run: `-` reads the request from stdin (bounded), then the operation runs."""
    if values.get("request") == STDIN:
        try:
            values = {**values, "request": read_request(sys.stdin)}
        except UsageError as error:
            refusal = error

            def refuse(host: PluginHost) -> Any:
                raise refusal

            run(str(values.get("format", "text")), refuse)  # printed as every refusal is; exits 2
            return
    invoke_operation(operation, values)
