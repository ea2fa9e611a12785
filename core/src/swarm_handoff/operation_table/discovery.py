"""The rows of the discovery commands: `discover`, `why`, `lint` and `plugins`."""

from __future__ import annotations

from pathlib import Path

from swarm_handoff.operation_table.shared_help import TOOL_CWD
from swarm_handoff.operations import CLI_ONLY, MCP_ONLY, Operation, Param
from swarm_handoff.scopes import CORE, Scope

# MCP `discover` pages: a first page an agent reads at once, and the rest on request.
DISCOVER_PAGE = 100
MAX_PAGE = 10_000
MAX_OFFSET = 10_000_000


def _scopes_help() -> str:
    """The core's scopes by name (a plugin's source declares its own only when it is built)."""
    core = [s.value for s in Scope if s.declared_by == CORE]
    return f"Only these scopes: {', '.join(core)}, or a plugin's (repeatable)."


_DISCOVER_CWD = Param(
    "cwd",
    Path,
    "Discover as if run from DIR (default: the current directory).",
    tool_help=TOOL_CWD,
    path=True,
)

DISCOVER = Operation(
    "discover",
    "List the skills that accept a hand-off, most local first (project > git-root > global > installed).",
    (
        _DISCOVER_CWD,
        Param(
            "session",
            Path,
            "Session folder: cache the result in DIR/available-workflows.yaml.",
            surfaces=CLI_ONLY,
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
        Param("refresh", bool, "Ignore every cache and scan again.", default=False, surfaces=CLI_ONLY),
        Param(
            "resume",
            bool,
            "The session resumes from a checkpoint: record it and rebuild its cache (needs --session).",
            default=False,
            surfaces=CLI_ONLY,
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
        Param(
            "remote",
            help="List the skills the host at this URL takes a hand-off for, from its card, instead "
            "(needs a transport plugin: swarm-handoff-a2a for http(s)).",
            surfaces=CLI_ONLY,
        ),
        # Over MCP `discover` answers in pages (docs/mcp.md); the command line prints the whole list.
        Param(
            "limit",
            int,
            f"At most this many workflows (default {DISCOVER_PAGE}); a cut list has `page`.",
            minimum=1,
            surfaces=MCP_ONLY,
            tool_schema={"maximum": MAX_PAGE},
        ),
        Param(
            "offset",
            int,
            "Start at this workflow (default 0): the previous answer's `page.next_offset`.",
            minimum=0,
            surfaces=MCP_ONLY,
            tool_schema={"maximum": MAX_OFFSET},
        ),
    ),
    "swarm_handoff.cli.discovery_commands:discover_operation",
    examples=(
        "swarm-handoff discover",
        "swarm-handoff discover --all",
        "swarm-handoff discover --category research",
        "swarm-handoff discover --remote http://build-host:8470/",
    ),
    docs="docs/discovery.md",
    mcp=True,
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
    mcp=True,
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
    mcp=True,
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
