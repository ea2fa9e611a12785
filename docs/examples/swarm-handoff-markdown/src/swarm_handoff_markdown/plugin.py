"""The hook implementation: one function that registers one formatter by name."""

from __future__ import annotations

from typing import Any

from swarm_handoff.api import Register, hookimpl


def _build() -> Any:
    # Imported here, not at the top: the module is only loaded when `--format markdown` is used.
    from swarm_handoff_markdown.formatter import MarkdownFormatter

    return MarkdownFormatter()


@hookimpl
def swarm_handoff_formatters(register: Register) -> None:
    """Offer `markdown` to every command's `--format` option."""
    register("markdown", _build, summary="GitHub-flavoured Markdown, for pasting into issues")
