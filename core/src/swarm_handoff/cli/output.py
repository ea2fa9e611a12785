"""How every command prints: one document on stdout, warnings on stderr, errors with exit codes.

Nothing a command does ends in a Python traceback: a `SwarmError` is reported with its code, and
any other exception becomes INTERNAL_ERROR in the requested format (the traceback goes to stderr
only under SWARM_HANDOFF_DEBUG=1). What goes to stderr is escaped like the text format, since it
quotes names, paths and messages that come from skills and payloads.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import typer

from swarm_handoff.components import Document
from swarm_handoff.errors import ErrorCode, SwarmError, UsageError, cwd_gone, cwd_unavailable, situation_error
from swarm_handoff.formatting import DEFAULT_FORMAT, check_format, render_with
from swarm_handoff.plugins import ENV_LOAD, PluginHost, build_host, get_host
from swarm_handoff.termsafe import escape_controls

__all__ = [
    "ENV_DEBUG",
    "FORMAT_HELP",
    "check_cwd",
    "echo_err",
    "emit",
    "encodable",
    "fail",
    "format_from",
    "format_option",
    "internal_error",
    "report",
    "run",
    "warn",
    "warn_plugin_failures",
]

FORMAT_HELP = "Output format: text, json, yaml, or any installed formatter (xml, ...)."

ENV_DEBUG = "SWARM_HANDOFF_DEBUG"


def echo_err(line: str) -> None:
    """Print one line on stderr (as `typer.echo(err=True)` does: nothing when there is no stderr)."""
    stream = sys.stderr
    if stream is None:  # pythonw, a detached service: there is nowhere to say it
        return
    stream.write(f"{line}\n")
    stream.flush()


def check_cwd(cwd: Path | None, option: str = "--cwd") -> None:
    """Refuse a `--cwd` that is not a folder as a usage error, the same way for every command (`option`: as spelt)."""
    if cwd is not None and not cwd.is_dir():
        if not cwd.is_absolute() and cwd_gone():  # relative to a folder that was removed: say that
            raise cwd_unavailable()
        raise UsageError(f"{option} {cwd} is not a folder", hint="give an existing project folder")


def warn_plugin_failures(host: PluginHost) -> None:
    """Say on stderr which plugins were skipped, so a broken plugin is never silent."""
    for failure in host.failures:
        warn(failure.describe())


def warn(message: str) -> None:
    """Print `warning: message` on stderr as one escaped line: messages quote skills' and payloads' text."""
    echo_err(f"warning: {escape_controls(message)}")


def internal_error(exc: BaseException) -> SwarmError:
    """Turn an exception no code path expected into a coded report, keeping the traceback for debugging."""
    known = situation_error(exc)  # a busy folder, a removed working folder: not a bug
    if known is not None:
        return known
    if os.environ.get(ENV_DEBUG, "") not in ("", "0"):
        import traceback

        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    hint = f"this is a bug in swarm-handoff or one of its plugins: please report it; set {ENV_DEBUG}=1 for details"
    return SwarmError(
        ErrorCode.INTERNAL_ERROR,
        f"unexpected {type(exc).__name__}: {exc}",
        details={"exception": type(exc).__name__},
        hint=hint,
        recoverable=False,
    )


def emit(document: Document, fmt: str, host: PluginHost | None = None) -> None:
    """Print `document` in `fmt` to stdout."""
    host = host or get_host()
    text = encodable(render_with(document, fmt, host), fmt, getattr(sys.stdout, "encoding", None))
    sys.stdout.write(text)
    sys.stdout.flush()


def encodable(text: str, fmt: str, encoding: str | None) -> str:
    """Fit `text` to a stdout that is not UTF-8 (LANG=C, a Windows code page) instead of crashing.

    Characters the encoding lacks become escapes each format reads back: `\\uXXXX` in JSON strings
    (the only place JSON holds non-ASCII), `&#N;` in XML, `\\xe9`-style escapes in text. YAML has no
    escape valid in every scalar style, so it is left as it is (and fails as INTERNAL_ERROR).
    """
    if not encoding:
        return text
    try:
        text.encode(encoding)
        return text
    except (UnicodeEncodeError, LookupError):
        pass
    if fmt == "json":
        return "".join(ch if _fits(ch, encoding) else _json_escape(ch) for ch in text)
    if fmt == "xml":
        return text.encode(encoding, "xmlcharrefreplace").decode(encoding)
    if fmt == DEFAULT_FORMAT:
        return text.encode(encoding, "backslashreplace").decode(encoding)
    return text


def _fits(char: str, encoding: str) -> bool:
    try:
        char.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _json_escape(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # outside the BMP: a UTF-16 surrogate pair, as JSON spells it
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def report(error: SwarmError, fmt: str) -> int:
    """Print `error` (on stdout for machine formats, stderr for text) and give the exit status it means."""
    document = error.to_document()
    try:
        try:
            host = get_host()
        except SwarmError:  # strict mode and a broken plugin: render with the core's own formatters
            host = build_host({ENV_LOAD: ""})
        text = render_with(document, fmt, host) if fmt != DEFAULT_FORMAT else None
        text = None if text is None else encodable(text, fmt, getattr(sys.stdout, "encoding", None))
    except Exception:  # the format is unknown, or even the error cannot be rendered: say it on stderr
        text = None
    if text is not None:
        sys.stdout.write(text)
    else:
        lines = [f"error: {escape_controls(error)}"]
        for problem in error.problems:
            where = f"{problem.location()}: " if problem.location() else ""
            lines.append(f"  {escape_controls(f'{where}{problem.code}: {problem.message}')}")
        lines.extend(_unsaved_payload(error))
        for line in lines:
            echo_err(line)
    return error.exit_code


UNSAVED_BEGIN = "----- BEGIN UNSAVED PAYLOAD (save the lines between the markers as a file) -----"
UNSAVED_END = "----- END UNSAVED PAYLOAD -----"


def _unsaved_payload(error: SwarmError) -> list[str]:
    """The lines printing a payload nowhere on disk could keep: text output has no details, so it shows it."""
    text = error.details.get("payload_text")
    if not isinstance(text, str) or not text:
        return []
    # The payload's own serialiser already escapes what its strings hold; escaping again guards the terminal.
    body = escape_controls(text.rstrip("\n"), multiline=True).split("\n")
    return [UNSAVED_BEGIN, *body, UNSAVED_END]


def format_from(args: list[str]) -> str:
    """The `--format` a command line asks for, read by hand where click could not parse it (a usage error,
    an app that could not be built), so that JSON users still get JSON."""
    for i, arg in enumerate(args):
        if arg in ("--format", "-f") and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--format="):
            return arg.split("=", 1)[1]
    return DEFAULT_FORMAT


def format_option() -> str:
    """Declare the `--format` option the same way on every command."""
    return typer.Option(DEFAULT_FORMAT, "--format", "-f", help=FORMAT_HELP)  # type: ignore[no-any-return]


def fail(error: SwarmError, fmt: str) -> NoReturn:
    """Report `error` (on stdout for machine formats, stderr for text) and exit with its status."""
    raise typer.Exit(report(error, fmt))


def run(fmt: str, action: Callable[[PluginHost], Document]) -> None:
    """Run one command body: resolve plugins, check `--format`, print the result or the error."""
    try:
        host = get_host()
        check_format(fmt, host)
        warn_plugin_failures(host)
        document = action(host)
        emit(document, fmt, host)
    except BrokenPipeError:
        raise  # `main` ends the run quietly (status 1): the reader (`| head`) has what it wanted
    except (typer.Exit, typer.Abort):
        raise  # the command's own way to end (Ctrl-C at a prompt, an exit status)
    except SwarmError as error:
        status = report(error, fmt)
    except Exception as exc:  # a bug here or in a plugin: a coded document, never a traceback
        status = report(internal_error(exc), fmt)
    else:
        return
    if status:
        raise typer.Exit(status)
