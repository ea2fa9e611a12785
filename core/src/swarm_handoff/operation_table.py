"""The core's operations: every command's name, summary, parameters, examples and body, in one table.

The command line, the MCP tools' schemas and argument checks, the `-h` pages and shell completion
are all generated from these records (`operations.py` says how). Adding an option to a command on
every surface is an edit here: a `Param` in the operation's list.
"""

from __future__ import annotations

from pathlib import Path

from swarm_handoff.operations import CLI, MCP, Group, Operation, Param
from swarm_handoff.ranking_options import DEFAULT_TOP, Autonomy

__all__ = ["CORE_GROUPS", "CORE_OPERATIONS", "MAX_TOP"]

# The largest menu a tool call may ask for (the command line states no bound).
MAX_TOP = 100
# MCP `discover` pages: a first page an agent reads at once, and the rest on request.
DISCOVER_PAGE = 100
MAX_PAGE = 10_000
MAX_OFFSET = 10_000_000

_CLI = frozenset({CLI})
_MCP = frozenset({MCP})


def _scopes_help() -> str:
    """The core's scopes by name (a plugin's source declares its own only when it is built)."""
    from swarm_handoff.records import Scope
    from swarm_handoff.scopes import CORE

    core = [s.value for s in Scope if s.declared_by == CORE]
    return f"Only these scopes: {', '.join(core)}, or a plugin's (repeatable)."


_DISCOVER_CWD = Param(
    "cwd",
    Path,
    "Discover as if run from DIR (default: the current directory).",
    tool_help="Discover as if run from this folder (default: the server's working folder).",
    path=True,
)
_TOOL_CWD = "Discover as if run from this folder (default: the server's working folder)."

DISCOVER = Operation(
    "discover",
    "List the skills that accept a hand-off, most local first (project > git-root > global > installed).",
    (
        _DISCOVER_CWD,
        Param(
            "session",
            Path,
            "Session folder: cache the result in DIR/available-workflows.yaml.",
            surfaces=_CLI,
        ),
        Param(
            "category",
            help="Only workflows in this category (repeatable).",
            default=[],
            repeatable=True,
            tool_help="Only workflows in these categories.",
        ),
        Param(
            "scope",
            help=_scopes_help,
            default=[],
            repeatable=True,
            complete="scope",
            tool_help="Only these scopes: the core's and every installed source's, most local first.",
        ),
        Param(
            "show_all",
            bool,
            "Also list skipped skills (with reason) and shadowed ones.",
            default=False,
            flags=("--all",),
            tool_name="all",
            tool_help="Also list skipped and shadowed skills.",
        ),
        Param("refresh", bool, "Ignore every cache and scan again.", default=False, surfaces=_CLI),
        Param(
            "resume",
            bool,
            "The session resumes from a checkpoint: record it and rebuild its cache (needs --session).",
            default=False,
            surfaces=_CLI,
        ),
        Param(
            "accepts_from",
            help="Only targets that accept a hand-off from SKILL.",
            complete="skill",
            tool_help="Only workflows that accept a hand-off from this skill (--accepts-from).",
        ),
        Param(
            "schema_version",
            help="Only targets a payload of version V suits.",
            tool_help="Only workflows a payload of this version suits (--schema-version).",
        ),
        Param(
            "inputs",
            help="Only targets listing REQ in input_requirements (repeatable).",
            default=[],
            repeatable=True,
            flags=("--input",),
            tool_name="input",
            tool_help="Only workflows that take all these inputs (--input).",
        ),
        # Over MCP `discover` answers in pages (docs/mcp.md); the command line prints the whole list.
        Param(
            "limit",
            int,
            f"At most this many workflows (default {DISCOVER_PAGE}); a cut list has `page`.",
            minimum=1,
            surfaces=_MCP,
            tool_schema={"maximum": MAX_PAGE},
        ),
        Param(
            "offset",
            int,
            "Start at this workflow (default 0): the previous answer's `page.next_offset`.",
            minimum=0,
            surfaces=_MCP,
            tool_schema={"maximum": MAX_OFFSET},
        ),
    ),
    "swarm_handoff.cli.discovery_commands:discover_operation",
    examples=("swarm-handoff discover", "swarm-handoff discover --all", "swarm-handoff discover --category research"),
    docs="docs/discovery.md",
    tool="discover",
    tool_summary=(
        "List the skills that accept a hand-off, most local first (as `swarm-handoff discover --format json`)."
    ),
)

WHY = Operation(
    "why",
    "Say every place NAME was looked for and what happened there.",
    (
        Param(
            "name",
            help="The skill's name: its folder name, or the name its frontmatter gives.",
            required=True,
            argument=True,
            complete="skill",
            tool_help="The skill's name (its folder name).",
        ),
        _DISCOVER_CWD,
    ),
    "swarm_handoff.cli.discovery_commands:why_operation",
    examples=("swarm-handoff why code-review",),
    docs="docs/discovery.md",
    tool="why",
    tool_summary="Say every place a skill was looked for and what happened there (as `swarm-handoff why`).",
)

LINT = Operation(
    "lint",
    "Check SKILL.md files against the v2.0/v3.0 hand-off rules and the Agent Skills spec; exit 1 on errors.",
    (
        Param(
            "paths",
            Path,
            "SKILL.md files, skill folders, or folders of skills (each skill inside).",
            required=True,
            repeatable=True,
            argument=True,
            tool_name="path",
            tool_help="A SKILL.md file or skill folder, or a list of them.",
            tool_type="text-or-list",
            path=True,
        ),
        Param(
            "strict_spec",
            bool,
            "Agent Skills spec findings (and this project's extensions) are errors.",
            default=False,
            tool_help="Make Agent Skills spec findings errors (as `lint --strict-spec`).",
        ),
    ),
    "swarm_handoff.cli.discovery_commands:lint_operation",
    examples=("swarm-handoff lint .claude/skills", "swarm-handoff lint path/to/SKILL.md"),
    docs="docs/discovery.md",
    tool="lint",
    tool_summary="Check SKILL.md files or skill folders against the hand-off rules (as `swarm-handoff lint`).",
)

PLUGINS = Operation(
    "plugins",
    "List plugins with their distribution, version, hooks and components, and every failure.",
    (),
    "swarm_handoff.cli.core_commands:plugins_operation",
    examples=("swarm-handoff plugins", "swarm-handoff plugins --format json"),
    docs="docs/plugin-guide.md",
)

_SYNTHESIS_TOOL_HELP = "The synthesis: an object (as in a synthesis file), or the path of a YAML/JSON synthesis file."

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
            tool_required=True,
            tool_type="text-or-object",
            tool_help=_SYNTHESIS_TOOL_HELP,
            path=True,
        ),
        Param(
            "request",
            help="The request in words, instead of a synthesis file: every discovered skill is ranked "
            "(declared or not; the router when installed).",
            surfaces=_CLI,
        ),
        Param(
            "problem_type",
            help="With --request: the problem type it carries (default: analytical).",
            surfaces=_CLI,
        ),
        Param(
            "cwd",
            Path,
            "Discover skills as if run here (default: current folder).",
            tool_help=_TOOL_CWD,
            path=True,
        ),
        Param(
            "workflows",
            Path,
            "Rank the workflows listed in this file (e.g. a session's available-workflows.yaml) "
            "instead of discovering.",
            surfaces=_CLI,
        ),
        Param(
            "session",
            Path,
            "Session folder: write relevance_score into its available-workflows.yaml.",
            surfaces=_CLI,
        ),
        Param(
            "scorer",
            help="Scorer name (see `swarm-handoff plugins`); default: the ranking rule above.",
            complete="scorer",
            tool_help="Scorer name (default: the built-in one).",
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
            surfaces=_MCP,
        ),
        Param("autonomy", Autonomy, "Preferred supervision of the target.", surfaces=_CLI),
        Param(
            "history",
            Path,
            "YAML/JSON file of past hand-offs (skill: {successes: N, failures: M}); "
            "default: the hand-off history recorded by `handoff` and `ack`.",
            surfaces=_CLI,
        ),
        Param("explain", bool, "Show every factor's points and reason.", default=False),
        Param("category", help="Only targets in this category (repeatable).", repeatable=True, surfaces=_CLI),
        Param(
            "accepts_from",
            help="Only targets that accept a hand-off from SKILL.",
            complete="skill",
            surfaces=_CLI,
        ),
        Param(
            "schema_version",
            help="Only targets a payload of version V suits (and show its fit).",
            surfaces=_CLI,
        ),
        Param(
            "inputs",
            help="Only targets listing REQ in input_requirements (repeatable).",
            repeatable=True,
            flags=("--input",),
            surfaces=_CLI,
        ),
        Param(
            "show_all",
            bool,
            "Also list the targets the query left out, with the reason.",
            default=False,
            flags=("--all",),
            surfaces=_CLI,
        ),
        Param(
            "include_undeclared",
            bool,
            "Also rank skills that declare no hand-off metadata (marked; hand off with --allow-undeclared).",
            default=False,
            tool_help="Also rank skills that declare no hand-off metadata (marked undeclared).",
        ),
    ),
    "swarm_handoff.cli.rank_commands:rank_operation",
    examples=(
        "swarm-handoff rank --synthesis synthesis.yaml",
        "swarm-handoff rank --synthesis synthesis.yaml --explain",
        'swarm-handoff rank --request "review my pull request for security holes"',
    ),
    docs="docs/rank.md",
    takes_format=True,
    tool="rank",
    tool_summary="Rank the discovered hand-off targets for a synthesis: the Stage 4 menu (as `swarm-handoff rank`).",
)

_PAYLOAD = Param(
    "payload",
    Path,
    "The payload file (YAML or JSON).",
    required=True,
    argument=True,
    tool_name="path",
    path=True,
)

HANDOFF = Operation(
    "handoff",
    "Build, validate and write a hand-off payload, then print the command that hands it over.",
    (
        Param(
            "target",
            help="The skill to hand the work to.",
            required=True,
            argument=True,
            complete="skill",
        ),
        Param(
            "session",
            help="The session folder the payload is written into (must exist).",
            required=True,
            path=True,
        ),
        Param(
            "synthesis",
            Path,
            "The synthesis file (YAML or JSON); with --from, replaces its context.",
            tool_type="text-or-object",
            tool_help=_SYNTHESIS_TOOL_HELP,
            path=True,
        ),
        Param(
            "request",
            help="A request in words instead of a synthesis file: it becomes original_prompt "
            "(see docs/payloads.md for the defaults).",
            surfaces=_CLI,
        ),
        Param(
            "received",
            Path,
            "Continue the chain of the payload this skill received (checked first; no synthesis needed).",
            flags=("--from",),
            tool_name="from_payload",
            tool_help="The payload this skill received: continue its chain (checked first; synthesis then "
            "optional, and replaces its context) (as --from).",
            path=True,
        ),
        Param(
            "schema",
            help="Force the payload version (2.0 or 3.0); default: the target's version.",
            choices=("2.0", "3.0"),
            tool_help="Payload version.",
        ),
        Param("source", help="The handing-off skill (v3.0 only).", complete="skill"),
        Param("reason", help="Why this hand-off (meta.handoff_reason).", default=""),
        Param("feedback", help="The user's feedback (meta.user_feedback)."),
        Param(
            "chain",
            help="The chain so far, comma-separated, source first.",
            tool_type="list",
            tool_help="The chain so far, source first.",
        ),
        Param("health_check", bool, "Run the target's health_check first.", default=False),
        Param(
            "confirm",
            bool,
            "Confirm loop and long-chain questions.",
            default=False,
            flags=("--yes", "-y"),
            tool_name="confirm_loop",
            tool_help="The user confirmed handing off to a skill already in the chain, and "
            "approves a long chain (--yes).",
        ),
        Param(
            "sign",
            bool,
            "Add an HMAC signature with your key (made on first use).",
            default=False,
            tool_help="Add an HMAC signature with the user's key.",
        ),
        Param(
            "override_accepts_from",
            bool,
            "Hand off although the target's accepts_from does not list the source (recorded).",
            default=False,
            tool_help="Hand off although the target's accepts_from does not list the source "
            "(recorded in the payload and the history).",
        ),
        Param(
            "allow_undeclared",
            bool,
            "Hand off to a skill that declares no hand-off metadata (recorded; rank --include-undeclared).",
            default=False,
            tool_help="Hand off to a skill that declares no hand-off metadata (recorded as such).",
        ),
        Param(
            "expires_in",
            help="How long the payload stays valid: 90m, 3h, 2d (at most 30d); default: 1h.",
            tool_help="How long the payload stays valid: 90m, 3h, 2d (at most 30d); default 1h (as --expires-in).",
        ),
        Param(
            "require_signature",
            bool,
            "With --from: refuse an unsigned received payload, or one with an unsigned hop "
            "(default: on when you have a signing key; --no-require-signature continues, recorded).",
            flags=("--require-signature/--no-require-signature",),
            tool_help="With from_payload: refuse an unsigned received payload or one with an "
            "unsigned hop. Default: true when the user has a signing key; false continues, recorded "
            "in the new payload (as --require-signature/--no-require-signature).",
        ),
    ),
    "swarm_handoff.cli.handoff_commands:handoff_operation",
    examples=(
        "swarm-handoff handoff code-review --synthesis synthesis.yaml --source planner --session DIR",
        'swarm-handoff handoff code-review --request "review my change for security holes" --session DIR',
    ),
    docs="docs/payloads.md",
    tool="handoff",
    tool_summary="Build, validate and write a hand-off payload into the session folder (as `swarm-handoff handoff`). "
    "A target already in the chain needs the user's confirmation: asked through elicitation when the "
    "client supports it, else pass confirm_loop=true once the user agreed.",
)

VALIDATE = Operation(
    "validate",
    "Validate a payload of any version (by its `version` field), reporting every problem.",
    (_PAYLOAD,),
    "swarm_handoff.cli.handoff_commands:validate_operation",
    examples=("swarm-handoff validate DIR/handoff-payload.yaml",),
    docs="docs/payloads.md",
    tool="validate",
    tool_summary="Validate a payload of any version, reporting every problem (as `swarm-handoff validate`).",
)

VERIFY = Operation(
    "verify",
    "Check a payload's hash, size, files, signature and expiry; exit 1 when any fails.",
    (
        _PAYLOAD,
        Param(
            "require_signature",
            bool,
            "Fail when the payload is not signed.",
            default=False,
            tool_help="Fail when unsigned.",
        ),
    ),
    "swarm_handoff.cli.handoff_commands:verify_operation",
    examples=("swarm-handoff verify DIR/handoff-payload.yaml",),
    docs="docs/payloads.md",
    tool="verify",
    tool_summary="Check a payload's hash, size, files, signature and expiry (as `swarm-handoff verify`).",
)

CONVERT = Operation(
    "convert",
    "Convert a payload between 2.0 and 3.0, listing every field the conversion drops.",
    (
        Param("payload", Path, "The payload file.", required=True, argument=True),
        Param("to", help="The version to convert to: 3.0 or 2.0.", required=True, choices=("3.0", "2.0")),
        Param(
            "output",
            help="Also write the converted payload here; - for stdout (the report goes to stderr).",
            flags=("--output", "-o"),
        ),
    ),
    "swarm_handoff.cli.handoff_commands:convert_operation",
    examples=("swarm-handoff convert DIR/handoff-payload.yaml --to 3.0",),
    docs="docs/payloads.md",
    cli_invoke="swarm_handoff.cli.handoff_commands:convert_invoke",
)

ACK = Operation(
    "ack",
    "Record the target's acknowledgment of a hand-off in the history.",
    (
        Param(
            "payload",
            Path,
            "The payload file being acknowledged.",
            required=True,
            argument=True,
            tool_name="path",
            tool_help="The payload file (YAML or JSON).",
            path=True,
        ),
        Param(
            "status",
            help="received, processed, success or failure.",
            required=True,
            choices="swarm_handoff.history:ACK_STATUSES",
            tool_help="The outcome.",
        ),
        Param(
            "require_signature",
            bool,
            "Refuse an unsigned payload, or one with an unsigned hop (default: on when you have a signing key).",
            flags=("--require-signature/--no-require-signature",),
            tool_help="Refuse an unsigned payload or one with an unsigned hop. Default: true "
            "when the user has a signing key.",
        ),
    ),
    "swarm_handoff.cli.handoff_commands:ack_operation",
    examples=(
        "swarm-handoff ack DIR/handoff-payload.yaml --status received",
        "swarm-handoff ack DIR/handoff-payload.yaml --status success",
    ),
    docs="docs/payloads.md",
    tool="ack",
    tool_summary="Record the target's acknowledgment of a hand-off in the history (as `swarm-handoff ack`).",
)

HISTORY = Operation(
    "history",
    "List recorded hand-offs, newest first, with their latest acknowledgment; or one chain with --trace.",
    (
        Param("skill", help="Only hand-offs from or to this skill.", complete="skill"),
        Param(
            "trace",
            help="Show one chain (a v3.0 trace_id) hop by hop, oldest first.",
            tool_help="Show one chain (a v3.0 trace_id) hop by hop, oldest first (as --trace).",
        ),
    ),
    "swarm_handoff.cli.handoff_commands:history_operation",
    examples=("swarm-handoff history", "swarm-handoff history --skill code-review -f json"),
    docs="docs/payloads.md",
    tool="history",
    tool_summary="List recorded hand-offs, newest first, with their latest acknowledgment "
    "(as `swarm-handoff history`).",
)

DEMO = Operation(
    "demo",
    "Discover installed skills, rank them for an example synthesis, hand off, verify, run step one.\n\n"
    "It leaves no trace: its config and cache folders are temporary (your history and your\n"
    "~/.claude are untouched), and its session folder is removed unless you pass --keep or --dir.",
    (
        Param(
            "folder",
            Path,
            "Session folder to use (created if missing); default: a fresh temporary one.",
            flags=("--dir",),
        ),
        Param("cwd", Path, "Working directory for discovery (default: here)."),
        Param("keep", bool, "Keep the temporary session folder (default: removed at the end).", default=False),
    ),
    "swarm_handoff.cli.demo_commands:demo_operation",
    examples=("swarm-handoff demo", "swarm-handoff demo --keep"),
    docs="README.md",
    cli_invoke="swarm_handoff.cli.demo_commands:demo_invoke",
)

_WORKFLOW_NAME = Param("name", help="The workflow's name.", required=True, argument=True, complete="workflow")
_PROJECT = Param(
    "project",
    Path,
    "Project whose .claude/conventions override.",
    default=Path("."),
    tool_help="Project folder whose .claude/conventions override (default: '.').",
    path=True,
)

WORKFLOW_LIST = Operation(
    "workflow list",
    "List the registered workflows and the skill packs that failed to load.",
    (),
    "swarm_handoff.cli.workflow_commands:list_operation",
    examples=("swarm-handoff workflow list",),
    docs="docs/workflows.md",
)

WORKFLOW_SHOW = Operation(
    "workflow show",
    "Show a workflow's parameters, steps, transitions and which conventions it embeds.",
    (_WORKFLOW_NAME, _PROJECT),
    "swarm_handoff.cli.workflow_commands:show_operation",
    examples=("swarm-handoff workflow show NAME",),
    docs="docs/workflows.md",
)

WORKFLOW_CHECK = Operation(
    "workflow check",
    "Validate every registered workflow (or one); exit 1 when any is invalid.",
    (
        Param("name", help="Check only this workflow.", argument=True, complete="workflow"),
        Param("cases", bool, "Also run every generated test case.", default=False),
        _PROJECT,
    ),
    "swarm_handoff.cli.workflow_commands:check_operation",
    examples=("swarm-handoff workflow check", "swarm-handoff workflow check NAME"),
    docs="docs/workflows.md",
)

WORKFLOW_GRAPH = Operation(
    "workflow graph",
    "Export the transition graph (outcomes on edges, an explicit end node).",
    (
        _WORKFLOW_NAME,
        Param(
            "syntax",
            help="Graph syntax: mermaid or dot.",
            default="mermaid",
            flags=("--as",),
            choices="swarm_handoff.workflow.graph:FORMATS",
        ),
    ),
    "swarm_handoff.cli.workflow_commands:graph_operation",
    examples=("swarm-handoff workflow graph NAME",),
    docs="docs/workflows.md",
    cli_invoke="swarm_handoff.cli.workflow_commands:graph_invoke",
)

WORKFLOW_STEP = Operation(
    "workflow step",
    "Print one step (title, actions) and the exact command(s) to run next.\n\n"
    "The skills-system contract is accepted as an alternative front end: `--step N\n"
    "--total-steps M` name the step by position, and `--qr-iteration N --qr-fail --qr-status\n"
    "pass|fail` stand for `--state qr_iteration=N --state qr_failed=true --state qr_status=...`.",
    (
        Param(
            "name",
            help="The workflow's name.",
            required=True,
            argument=True,
            complete="workflow",
            tool_name="skill",
            tool_help="The workflow's name (the skill pack's workflow).",
        ),
        Param(
            "step_id",
            help="The step to show (or give --step N); default: the first.",
            argument=True,
            tool_name="step",
            tool_required=True,
            tool_help="The step to show.",
        ),
        Param(
            "params",
            help="A workflow parameter, key=value (repeat).",
            repeatable=True,
            flags=("--param",),
            tool_type="object",
            tool_help="Workflow parameters, key: value.",
        ),
        Param(
            "state",
            help="Carried state, key=value (repeat).",
            repeatable=True,
            tool_type="object",
            tool_help="Carried state, key: value.",
        ),
        _PROJECT,
        Param("position", int, "The step by position, 1 to the number of steps.", flags=("--step",), surfaces=_CLI),
        Param("total_steps", int, "With --step: the workflow's number of steps (checked).", surfaces=_CLI),
        Param("qr_iteration", int, "Alias of --state <qr>_iteration=N.", surfaces=_CLI),
        Param("qr_fail", bool, "Alias of --state <qr>_failed=true.", default=False, surfaces=_CLI),
        Param("qr_status", help="Alias of --state <qr>_status=pass|fail.", surfaces=_CLI),
    ),
    "swarm_handoff.cli.workflow_commands:step_operation",
    examples=("swarm-handoff workflow step NAME", "swarm-handoff workflow step NAME STEP_ID"),
    docs="docs/workflows.md",
    tool="workflow_step",
    tool_summary="Show one workflow step (title, actions) and what to run next (as `swarm-handoff workflow step`).",
    takes_format=True,
)

_SESSION_DIR = Param("folder", Path, "The session folder.", required=True, argument=True)
_ROOT = Param("root", Path, "Look here instead of $TMPDIR or the system's temporary folder.")

SESSION_NEW = Operation(
    "session new",
    "Make a session folder in the temporary folder and print its path (gc removes it once closed or old).",
    (_ROOT,),
    "swarm_handoff.cli.session_commands:new_operation",
    examples=("swarm-handoff session new",),
    docs="docs/payloads.md",
)

SESSION_CLOSE = Operation(
    "session close",
    "Close a session; refused while a hand-off from it is not acknowledged (unless --force).",
    (_SESSION_DIR, Param("force", bool, "Close even while a hand-off from it is not acknowledged.", default=False)),
    "swarm_handoff.cli.session_commands:close_operation",
    examples=("swarm-handoff session close DIR",),
    docs="docs/payloads.md",
)

SESSION_GC = Operation(
    "session gc",
    "Remove closed or expired swarm-session-* folders this tool made in the temporary folder.",
    (
        Param(
            "older_than",
            help="Remove open sessions created longer ago than this (30m, 24h, 2d).",
            default="24h",
        ),
        Param("dry_run", bool, "Only say what would be removed.", default=False),
        _ROOT,
    ),
    "swarm_handoff.cli.session_commands:gc_operation",
    examples=("swarm-handoff session gc",),
    docs="docs/payloads.md",
)

SESSION_RESUME = Operation(
    "session resume",
    "Mark a session as resumed from a checkpoint: its discovery cache is rebuilt on next use.",
    (_SESSION_DIR,),
    "swarm_handoff.cli.session_commands:resume_operation",
    examples=("swarm-handoff session resume DIR",),
    docs="docs/payloads.md",
)

# In the order the command line lists them (groups after the commands, as typer lists them).
CORE_OPERATIONS: tuple[Operation, ...] = (
    PLUGINS,
    DISCOVER,
    WHY,
    LINT,
    RANK,
    HANDOFF,
    VALIDATE,
    VERIFY,
    CONVERT,
    ACK,
    HISTORY,
    DEMO,
    WORKFLOW_LIST,
    WORKFLOW_SHOW,
    WORKFLOW_CHECK,
    WORKFLOW_GRAPH,
    WORKFLOW_STEP,
    SESSION_NEW,
    SESSION_CLOSE,
    SESSION_GC,
    SESSION_RESUME,
)
CORE_GROUPS: tuple[Group, ...] = (
    Group(
        "workflow",
        "Run and inspect workflows defined by skill packs.",
        ("swarm-handoff workflow list", "swarm-handoff workflow step NAME"),
        "docs/workflows.md",
    ),
    Group(
        "session",
        "Make, close, resume and clean up session folders.",
        ("swarm-handoff session new", "swarm-handoff session gc"),
        "docs/payloads.md",
    ),
)
