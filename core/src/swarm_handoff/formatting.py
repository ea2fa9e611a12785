"""Render a document with the formatter a given plugin host names: the engine under `render`.

`text` is the core's own, like `json` and `yaml`: every human layout lives in `swarm_handoff.textviews`,
so every command prints a readable page with the core alone (a host built without the built-ins
still gets it). Text goes through `termsafe.escape_controls` once more here, whichever formatter
produced it, so nothing a skill or payload holds can drive the terminal.

A value nested deeper than a formatter can walk (every formatter recurses) becomes the coded
error OUTPUT_TOO_DEEP, never a RecursionError traceback, whatever the input parsers let through.

The caller hands the host in (the command line has built it already); `render` adds the
process-wide host for a caller that has none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from swarm_handoff.components import Document, Kind
from swarm_handoff.errors import ErrorCode, SwarmError, UsageError
from swarm_handoff.isolation import quiet
from swarm_handoff.termsafe import escape_controls
from swarm_handoff.textviews import text_of

if TYPE_CHECKING:
    from swarm_handoff.plugins import PluginHost

DEFAULT_FORMAT = "text"


def available_formats(host: PluginHost) -> list[str]:
    """List the names `--format` accepts with `host` (its registered formatters, and `text` always)."""
    return sorted(set(host.components(Kind.FORMATTER)) | {DEFAULT_FORMAT})


def check_format(name: str, host: PluginHost) -> str:
    """Fail early, as a usage error, when `--format` names no formatter of `host`."""
    formats = available_formats(host)
    if name not in formats:
        raise UsageError(f"unknown format {name!r}", hint=f"use one of: {', '.join(formats)}", available=formats)
    return name


def render_with(document: Document, name: str, host: PluginHost) -> str:
    """Render `document` with `host`'s formatter called `name`; too deep a document is OUTPUT_TOO_DEEP, not a crash."""
    check_format(name, host)
    try:
        if name == DEFAULT_FORMAT and name not in host.components(Kind.FORMATTER):
            text = text_of(document)  # a host without the built-ins: the same layouts
        else:
            formatter = host.get(Kind.FORMATTER, name)
            with quiet():  # what a formatter prints is not the document; its return value is
                text = str(formatter.render(document))
    except RecursionError:
        raise too_deep(document.kind, name) from None
    # Text is for a terminal, from whichever formatter: a second pass catches any field a layout missed.
    return escape_controls(text, multiline=True) if name == DEFAULT_FORMAT else text


def too_deep(kind: str, fmt: str) -> SwarmError:
    """The error for a document nested deeper than Python's stack lets a formatter walk."""
    return SwarmError(
        ErrorCode.OUTPUT_TOO_DEEP,
        f"the {kind} document is nested too deeply to print as {fmt}",
        details={"kind": kind, "format": fmt},
        hint="a value nested hundreds of levels deep (a SKILL.md field, a payload) cannot be printed; flatten it",
    )
