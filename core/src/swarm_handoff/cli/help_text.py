"""Examples and a docs pointer for every core command's `--help`, and readable usage lines.

Kept apart from the commands so that one table says what each help page shows, and a test can check
that every command has an entry whose examples parse. Plugins' commands keep their own epilog.
"""

from __future__ import annotations

import functools
from typing import Any

# command path -> (example command lines, docs page)
EXAMPLES: dict[str, tuple[tuple[str, ...], str]] = {
    "plugins": (("swarm-handoff plugins", "swarm-handoff plugins --format json"), "docs/plugin-guide.md"),
    "discover": (
        ("swarm-handoff discover", "swarm-handoff discover --all", "swarm-handoff discover --category research"),
        "docs/discovery.md",
    ),
    "why": (("swarm-handoff why code-review",), "docs/discovery.md"),
    "lint": (("swarm-handoff lint .claude/skills", "swarm-handoff lint path/to/SKILL.md"), "docs/discovery.md"),
    "rank": (
        ("swarm-handoff rank --synthesis synthesis.yaml", "swarm-handoff rank --synthesis synthesis.yaml --explain"),
        "docs/rank.md",
    ),
    "handoff": (
        ("swarm-handoff handoff code-review --synthesis synthesis.yaml --source planner --session DIR",),
        "docs/payloads.md",
    ),
    "validate": (("swarm-handoff validate DIR/handoff-payload.yaml",), "docs/payloads.md"),
    "verify": (("swarm-handoff verify DIR/handoff-payload.yaml",), "docs/payloads.md"),
    "convert": (("swarm-handoff convert DIR/handoff-payload.yaml --to 3.0",), "docs/payloads.md"),
    "ack": (
        (
            "swarm-handoff ack DIR/handoff-payload.yaml --status received",
            "swarm-handoff ack DIR/handoff-payload.yaml --status success",
        ),
        "docs/payloads.md",
    ),
    "history": (("swarm-handoff history", "swarm-handoff history --skill code-review -f json"), "docs/payloads.md"),
    "demo": (("swarm-handoff demo", "swarm-handoff demo --keep"), "README.md"),
    "workflow": (("swarm-handoff workflow list", "swarm-handoff workflow step NAME"), "docs/workflows.md"),
    "workflow list": (("swarm-handoff workflow list",), "docs/workflows.md"),
    "workflow show": (("swarm-handoff workflow show NAME",), "docs/workflows.md"),
    "workflow check": (("swarm-handoff workflow check", "swarm-handoff workflow check NAME"), "docs/workflows.md"),
    "workflow graph": (("swarm-handoff workflow graph NAME",), "docs/workflows.md"),
    "workflow step": (
        ("swarm-handoff workflow step NAME", "swarm-handoff workflow step NAME STEP_ID"),
        "docs/workflows.md",
    ),
    "skills": (("swarm-handoff skills link", "swarm-handoff skills unlink"), "docs/skills-link.md"),
    "skills link": (("swarm-handoff skills link", "swarm-handoff skills link SKILL"), "docs/skills-link.md"),
    "skills unlink": (("swarm-handoff skills unlink",), "docs/skills-link.md"),
    "session": (("swarm-handoff session new", "swarm-handoff session gc"), "docs/payloads.md"),
    "session new": (("swarm-handoff session new",), "docs/payloads.md"),
    "session close": (("swarm-handoff session close DIR",), "docs/payloads.md"),
    "session gc": (("swarm-handoff session gc",), "docs/payloads.md"),
    "session resume": (("swarm-handoff session resume DIR",), "docs/payloads.md"),
    # Plugins' groups (swarm-handoff-registry, swarm-handoff-mcp): listed here so every -h has examples.
    "registry": (("swarm-handoff registry sync", "swarm-handoff registry show"), "docs/registry.md"),
    "registry path": (("swarm-handoff registry path",), "docs/registry.md"),
    "registry show": (("swarm-handoff registry show", "swarm-handoff registry show -f json"), "docs/registry.md"),
    "registry sync": (("swarm-handoff registry sync", "swarm-handoff registry sync --packs"), "docs/registry.md"),
    "registry prune": (("swarm-handoff registry prune",), "docs/registry.md"),
    "mcp": (
        (
            "swarm-handoff mcp",
            "swarm-handoff mcp --print-config claude > .mcp.json",
            "swarm-handoff mcp --http 127.0.0.1:8765",
        ),
        "docs/mcp.md",
    ),
}


def epilog(path: str) -> str | None:
    """The help page's closing block for `path`: examples kept on their own lines, then where to read more."""
    entry = EXAMPLES.get(path)
    if entry is None:
        return None
    examples, page = entry
    # "\b" tells click not to rewrap the paragraph that follows, so each example stays one line.
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in examples) + f"\n\nMore: {page} (repository docs)"


def finish(command: Any, path: str = "") -> None:
    """Give a converted click command (and its subcommands) its examples and readable argument names."""
    if command.epilog is None:
        command.epilog = epilog(path)
    readable = _readable_argument()
    for param in command.params:
        if readable is not None and param.__class__.__name__ == "TyperArgument":  # typer's own, not yet swapped
            param.__class__ = readable
    for name, sub in (getattr(command, "commands", None) or {}).items():
        finish(sub, f"{path} {name}".strip())


@functools.cache
def _readable_argument() -> Any:
    """typer's argument class printing `NAME`, `[NAME]`, `NAMES...` as click does; None where typer already does.

    typer 0.16+ writes `{name}` in usage lines (its `make_metavar` takes `usage`); earlier ones print
    click's form, so nothing is swapped there. Decided once per process.
    """
    import inspect

    from typer.core import TyperArgument

    if "usage" not in inspect.signature(TyperArgument.make_metavar).parameters:
        return None

    class ReadableArgument(TyperArgument):
        def make_metavar(self, ctx: Any = None, *, usage: bool = False) -> str:
            """`NAME` rather than typer's `{name}`: the form every other Unix tool's usage line uses."""
            var = self.metavar or (self.name or "").upper()
            if self.nargs != 1:
                var += "..."
            if usage and not self.required:
                var = f"[{var}]"
            return var

    return ReadableArgument
