"""`skills link` / `skills unlink`: declared once here, thin bodies over linking.py."""

from __future__ import annotations

from pathlib import Path

from swarm_handoff.api import Group, Operation, OperationResult, Param, PluginHost, UsageError, check_cwd

_SCOPE = Param(
    "scope",
    help="project: {cwd}/.claude/skills; global: the user's skills folder.",
    default="project",
    choices=("project", "global"),
)
_CWD = Param("cwd", Path, "The project folder for --scope project (default: the current directory).", path=True)

GROUP = Group(
    "skills",
    "Show installed packs' skills to agents that read .claude/skills folders.",
    ("swarm-handoff skills link", "swarm-handoff skills unlink"),
    "docs/skills-link.md",
)

LINK = Operation(
    "skills link",
    "Put each installed pack skill in .claude/skills/<name>/ (a symlink, else a copy); never overwrite.",
    (
        Param("names", help="Skills to link (default: every installed pack skill).", repeatable=True, argument=True),
        _SCOPE,
        _CWD,
        Param("copy", bool, "Copy the skill folders even where a symlink is possible.", default=False),
    ),
    "swarm_handoff_link.commands:link_operation",
    examples=("swarm-handoff skills link", "swarm-handoff skills link SKILL"),
    docs="docs/skills-link.md",
)

UNLINK = Operation(
    "skills unlink",
    "Remove what `skills link` created here, unless it was changed since (then keep it and say so).",
    (
        Param(
            "names",
            help="Skills to unlink (default: everything link created here).",
            repeatable=True,
            argument=True,
        ),
        _SCOPE,
        _CWD,
    ),
    "swarm_handoff_link.commands:unlink_operation",
    examples=("swarm-handoff skills unlink",),
    docs="docs/skills-link.md",
)

OPERATIONS = (LINK, UNLINK)


def _folder(scope: str, cwd: Path | None) -> Path:
    from swarm_handoff_link.linking import LinkScope, skills_dir

    if scope not in {s.value for s in LinkScope}:
        raise UsageError(f"unknown scope {scope!r}", hint="use project or global")
    check_cwd(cwd)
    return skills_dir(scope, cwd)


def link_operation(
    host: PluginHost, *, names: list[str] | None, scope: str, cwd: Path | None, copy: bool
) -> OperationResult:
    """`skills link`: the others are linked; a name that matched nothing still fails the run."""
    from swarm_handoff_link.linking import link_skills, unknown_names

    report = link_skills(_folder(scope, cwd), names or (), scope=scope, copy=copy)
    return OperationResult(report, status=1 if unknown_names(report) else 0)


def unlink_operation(host: PluginHost, *, names: list[str] | None, scope: str, cwd: Path | None) -> OperationResult:
    """`skills unlink`: what link created here and is unchanged since; a name that matched nothing fails the run."""
    from swarm_handoff_link.linking import unknown_names, unlink_skills

    report = unlink_skills(_folder(scope, cwd), names or (), scope=scope)
    return OperationResult(report, status=1 if unknown_names(report) else 0)
