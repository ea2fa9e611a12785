"""The row of `rank`: the Stage 4 menu of hand-off targets."""

from __future__ import annotations

from pathlib import Path

from swarm_handoff.operation_table.shared_help import SYNTHESIS_TOOL_HELP, TOOL_CWD
from swarm_handoff.operations import CLI_ONLY, MCP_ONLY, Operation, Param
from swarm_handoff.ranking_options import DEFAULT_TOP, MAX_REQUEST_CHARS, Autonomy

# The largest menu a tool call may ask for (the command line states no bound).
MAX_TOP = 100

REQUEST_TOOL_HELP = (
    "The request in words, instead of synthesis: every discovered skill is ranked "
    "(declared or not; the router when installed)."
)

RANKING_RULE = (
    "Ranking rule: the router by default for undeclared candidates or a request in words; "
    "swarm-v2 for synthesis-based ranking of declared targets."
)

RANK = Operation(
    "rank",
    "Rank the discovered hand-off targets for a synthesis and print the menu (C, D, E, ...).\n\n"
    "--request ranks for a request in words instead, over every discovered skill (no synthesis file).\n\n"
    + RANKING_RULE,
    (
        Param(
            "synthesis",
            Path,
            "The synthesis file (YAML, or JSON by extension); or give --request.",
            tool_type="text-or-object",
            tool_help=SYNTHESIS_TOOL_HELP,
            path=True,
        ),
        Param(
            "request",
            help="The request in words, instead of a synthesis file: every discovered skill is ranked "
            "(declared or not; the router when installed).",
            tool_help=REQUEST_TOOL_HELP,
            tool_schema={"maxLength": MAX_REQUEST_CHARS},  # as `route`: one bound for a request in words
        ),
        Param(
            "problem_type",
            help="With --request: the problem type it carries (default: analytical).",
            tool_help="With request: the problem type it carries (default: analytical).",
        ),
        Param(
            "cwd",
            Path,
            "Discover skills as if run here (default: current folder).",
            tool_help=TOOL_CWD,
            path=True,
        ),
        Param(
            "workflows",
            Path,
            "Rank the workflows listed in this file (e.g. a session's available-workflows.yaml) "
            "instead of discovering.",
            surfaces=CLI_ONLY,
        ),
        Param(
            "session",
            Path,
            "Session folder: write relevance_score into its available-workflows.yaml.",
            surfaces=CLI_ONLY,
        ),
        Param(
            "scorer",
            help="Scorer name (see `swarm-handoff plugins`); default: the ranking rule above.",
            complete="scorer",
            tool_help="Scorer name (default: the ranking rule: the router for a request in words or undeclared "
            "candidates, swarm-v2 for declared targets of a synthesis).",
        ),
        Param(
            "top",
            int,
            "How many targets the menu shows.",
            default=DEFAULT_TOP,
            minimum=1,
            tool_help="Menu size.",
            tool_schema={"maximum": MAX_TOP},
        ),
        Param(
            "chain",
            help="The hand-off chain so far, comma-separated.",
            default="",
            tool_type="list",
            tool_help="The hand-off chain so far, source first.",
        ),
        Param(
            "source",
            help="The skill handing off (put at the head of the chain).",
            surfaces=MCP_ONLY,
        ),
        Param(
            "autonomy",
            Autonomy,
            "Preferred supervision of the target.",
            tool_help="Preferred supervision of the target (--autonomy).",
            tool_schema={"enum": [a.value for a in Autonomy]},  # the values the CLI's enum option takes
        ),
        Param(
            "history",
            Path,
            "YAML/JSON file of past hand-offs (skill: {successes: N, failures: M}); "
            "default: the hand-off history recorded by `handoff` and `ack`.",
            surfaces=CLI_ONLY,
        ),
        Param("explain", bool, "Show every factor's points and reason.", default=False),
        Param(
            "category",
            help="Only targets in this category (repeatable).",
            repeatable=True,
            tool_help="Only targets in these categories (--category).",
        ),
        Param(
            "accepts_from",
            help="Only targets that accept a hand-off from SKILL.",
            complete="skill",
            tool_help="Only targets that accept a hand-off from this skill (--accepts-from).",
        ),
        Param(
            "schema_version",
            help="Only targets a payload of version V suits (and show its fit).",
            tool_help="Only targets a payload of this version suits, with its fit (--schema-version).",
        ),
        Param(
            "inputs",
            help="Only targets listing REQ in input_requirements (repeatable).",
            repeatable=True,
            flags=("--input",),
            tool_name="input",
            tool_help="Only targets that take all these inputs (--input).",
        ),
        Param(
            "show_all",
            bool,
            "Also list the targets the query left out, with the reason.",
            default=False,
            flags=("--all",),
            tool_name="all",
            tool_help="Also list the targets the query left out, with the reason (--all).",
        ),
        Param(
            "include_undeclared",
            bool,
            "Also rank skills that declare no hand-off metadata (marked; hand off with --allow-undeclared).",
            default=False,
            tool_help="Also rank skills that declare no hand-off metadata (marked undeclared).",
        ),
        Param(
            "remote",
            help="Also rank the skills the host at this URL takes a hand-off for (marked remote, with the URL).",
            surfaces=CLI_ONLY,
        ),
    ),
    "swarm_handoff.cli.rank_commands:rank_operation",
    examples=(
        "swarm-handoff rank --synthesis synthesis.yaml",
        "swarm-handoff rank --synthesis synthesis.yaml --explain",
        'swarm-handoff rank --request "review my pull request for security holes"',
        "swarm-handoff rank --synthesis synthesis.yaml --remote http://build-host:8470/",
    ),
    docs="docs/rank.md",
    takes_format=True,
    mcp=True,
    tool_summary="Rank the discovered hand-off targets for a synthesis, or every discovered skill for a request "
    "in words: the Stage 4 menu (as `swarm-handoff rank`).",
)
