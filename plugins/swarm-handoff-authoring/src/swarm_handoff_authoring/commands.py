"""The `graph` and `adopt` operations: declared once here, thin bodies over graph.py and adopt.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from swarm_handoff.api import Document, Operation, Param, PluginHost, UsageError, check_cwd

_CWD = Param("cwd", Path, "Discover as if run from DIR (default: the current directory).", path=True)

GRAPH = Operation(
    "graph",
    "Draw who hands off to whom among the discovered skills, from every hand-off form.\n\n"
    "Examples: swarm-handoff graph; swarm-handoff graph --edges-only;\n"
    "swarm-handoff graph --as dot | dot -Tsvg > handoffs.svg (docs/handoff-metadata.md).",
    (
        Param("style", help="Text output: mermaid (default) or dot.", default="mermaid", flags=("--as",)),
        Param("edges_only", bool, "Leave out the skills no hand-off edge touches.", default=False),
        _CWD,
    ),
    "swarm_handoff_authoring.commands:graph_operation",
    docs="docs/handoff-metadata.md",
)

ADOPT = Operation(
    "adopt",
    "Write hand-off metadata into an existing SKILL.md so the skill becomes a hand-off target.\n\n"
    "Examples: swarm-handoff adopt .claude/skills/NAME --dry-run;\n"
    "swarm-handoff adopt NAME --category review (docs/handoff-metadata.md).",
    (
        Param(
            "skill",
            help="A skill folder, its SKILL.md, or a skill name.",
            required=True,
            argument=True,
            complete="skill",
        ),
        Param("form", help="metadata (spec-conformant, default) or v3.", default="metadata"),
        Param(
            "accepts_from",
            help="A skill it accepts work from (repeat; default: any, '*').",
            repeatable=True,
            complete="skill",
        ),
        Param("category", help="A hand-off category for ranking (repeat).", repeatable=True),
        Param("dry_run", bool, "Show the change as a diff; write nothing.", default=False),
        _CWD,
    ),
    "swarm_handoff_authoring.commands:adopt_operation",
    docs="docs/handoff-metadata.md",
)

OPERATIONS = (GRAPH, ADOPT)


def graph_operation(host: PluginHost, *, style: str, edges_only: bool, cwd: Path | None) -> Document:
    """`graph`: the discovered skills and the hand-off edges between them, in mermaid or dot."""
    from swarm_handoff.api import discover, make_context
    from swarm_handoff_authoring.graph import STYLES, build, discovered, with_style
    from swarm_handoff_authoring.graph import edges_only as only_edges

    if style not in STYLES:
        raise UsageError(f"unknown graph style {style!r}", hint="use --as mermaid or --as dot")
    check_cwd(cwd)
    found = discover(make_context(cwd), host, show_all=True)
    graph = build(discovered(found.workflows, found.ineligible))
    return with_style(only_edges(graph) if edges_only else graph, style)


def adopt_operation(
    host: PluginHost,
    *,
    skill: str,
    form: str,
    accepts_from: list[str] | None,
    category: list[str] | None,
    dry_run: bool,
    cwd: Path | None,
) -> Document:
    """`adopt`: write hand-off metadata into an existing SKILL.md (or show the diff with `dry_run`)."""
    from swarm_handoff.api import discover, make_context
    from swarm_handoff_authoring.adopt import adopt, resolve
    from swarm_handoff_authoring.edit import FORMS

    if form not in FORMS:
        raise UsageError(f"unknown form {form!r}", hint="use --form metadata or --form v3")
    check_cwd(cwd)
    given = Path(skill)
    records: list[Any] = []
    if not given.exists() and not given.is_symlink():  # a name: ask discovery where it lives
        found = discover(make_context(cwd), host, show_all=True)
        records = [*found.workflows, *found.ineligible, *(s.record for s in found.shadowed)]
    path = resolve(skill, records)
    return adopt(path, form=form, accepts_from=accepts_from or ["*"], categories=category or [], dry_run=dry_run)
