"""The rows of the `session` group and its group record, and `demo` (one whole session, start to step one)."""

from __future__ import annotations

from pathlib import Path

from swarm_handoff.operations import Group, Operation, Param

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

SESSION_GROUP = Group(
    "session",
    "Make, close, resume and clean up session folders.",
    ("swarm-handoff session new", "swarm-handoff session gc"),
    "docs/payloads.md",
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
    "swarm_handoff.demo:demo_operation",
    examples=("swarm-handoff demo", "swarm-handoff demo --keep"),
    docs="README.md",
    cli_invoke="swarm_handoff.cli.demo_commands:demo_invoke",
)
