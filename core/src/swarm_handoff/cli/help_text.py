"""Examples and a docs pointer for the `--help` of commands not declared as operations, and readable usage lines.

An operation's examples come from its row in the operations table (`operation_table/`); a test
checks that every command has examples that parse. Plugins' commands keep their own epilog.
"""

from __future__ import annotations

import functools
from typing import Any

# command path -> (example command lines, docs page), for the commands not declared as operations
# (an operation's examples come from its row: `cli/operations_cli.py` gives its page their block).
EXAMPLES: dict[str, tuple[tuple[str, ...], str]] = {
    # swarm-handoff-mcp's `mcp` stays on the swarm_handoff_cli hook: listed here so its -h has examples.
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
    return examples_block(*entry)


def examples_block(examples: tuple[str, ...], page: str) -> str:
    """Examples kept on their own lines, then the docs page to read more in."""
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
