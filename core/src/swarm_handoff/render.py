"""Choose a formatter by name and render a document with it.

`text` is the core's own, like `json` and `yaml`: every human layout lives in `swarm_handoff.textviews`,
so every command prints a readable page with the core alone (a host built without the built-ins
still gets it). Text goes through `termsafe.escape_controls` once more here, whichever formatter
produced it, so nothing a skill or payload holds can drive the terminal.

A value nested deeper than a formatter can walk (every formatter recurses) becomes the coded
error OUTPUT_TOO_DEEP, never a RecursionError traceback, whatever the input parsers let through.
"""

from __future__ import annotations

from typing import Any

from swarm_handoff.components import Document, Kind
from swarm_handoff.errors import ErrorCode, SwarmError, UsageError
from swarm_handoff.plugin_checks import quiet
from swarm_handoff.plugins import PluginHost, get_host
from swarm_handoff.termsafe import escape_controls

DEFAULT_FORMAT = "text"


def available_formats(host: PluginHost | None = None) -> list[str]:
    """List the names `--format` accepts right now (registered formatters, and `text` always)."""
    host = host or get_host()
    return sorted(set(host.components(Kind.FORMATTER)) | {DEFAULT_FORMAT})


def check_format(name: str, host: PluginHost | None = None) -> str:
    """Fail early, as a usage error, when `--format` names no installed formatter."""
    formats = available_formats(host)
    if name not in formats:
        raise UsageError(f"unknown format {name!r}", hint=f"use one of: {', '.join(formats)}", available=formats)
    return name


def render(document: Document, name: str = DEFAULT_FORMAT, host: PluginHost | None = None) -> str:
    """Render `document` with the formatter called `name`; too deep a document is OUTPUT_TOO_DEEP, not a crash."""
    host = host or get_host()
    check_format(name, host)
    try:
        if name == DEFAULT_FORMAT and name not in host.components(Kind.FORMATTER):
            from swarm_handoff.textviews import text_of  # a host without the built-ins: the same layouts

            text = text_of(document)
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


def plain_text(data: Any, indent: int = 0) -> str:
    """Render plain data as indented `key: value` lines: readable, if not pretty.

    A string with line breaks (a graph's source, a health check's output) is written as a block
    under `key: |`, every line indented, so no line of it can pass for a key of its own.
    """
    lines: list[str] = []
    _plain_lines(data, indent, lines)
    return "\n".join(lines) + "\n"


def _plain_lines(data: Any, indent: int, lines: list[str]) -> None:
    pad = "  " * indent
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, (dict, list, tuple)) and value:
                lines.append(f"{pad}{escape_controls(key)}:")
                _plain_lines(value, indent + 1, lines)
            else:
                _plain_scalar(f"{pad}{escape_controls(key)}: ", value, pad, lines)
    elif isinstance(data, (list, tuple)):
        for item in data:
            if isinstance(item, (dict, list, tuple)) and item:
                lines.append(f"{pad}-")
                _plain_lines(item, indent + 1, lines)
            else:
                _plain_scalar(f"{pad}- ", item, pad, lines)
    else:
        _plain_scalar(pad, data, pad, lines)


def _plain_scalar(lead: str, value: Any, pad: str, lines: list[str]) -> None:
    if isinstance(value, str) and "\n" in value.rstrip("\n"):
        lines.append(f"{lead}|")
        body = escape_controls(value.removesuffix("\n"), multiline=True)
        lines += [f"{pad}    {line}" if line else "" for line in body.split("\n")]
    else:
        lines.append(f"{lead}{_scalar(value)}")


def _scalar(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (dict, list, tuple)):
        return "(none)"
    return escape_controls(value)  # one line per value: a newline in data must not forge a line
