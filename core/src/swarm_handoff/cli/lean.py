"""`discover` without typer: the same command, parsed by hand when its command line is a plain one.

A `discover` that cannot be replayed (a changed environment, a changed tree) used to spend a
third of its time importing typer and converting the command before the first SKILL.md was
looked at. The command line of a scripted or agent-run `discover` is simple (a few known options,
each with its value), so `main` hands exactly those to `run`, which calls the same body the typer
command calls (`discover_document`) and prints through the same functions (`cli/printing.py`).
Anything else (`--help`, an unknown or abbreviated option, a value that looks like an option, a
repeated single option, `--`, a `--cwd` or `--session` that exists but cannot be read, strict
plugin loading, a shell's completion request in `_SWARM_HANDOFF_COMPLETE`) goes to typer, which
owns the errors and help. `tests/test_lean_discover.py` runs both paths on the same command lines
and compares the output byte for byte.

One thing the lean path does not do: it does not let plugins add their commands (there is no
typer app to add them to), so a plugin whose `swarm_handoff_cli` hook fails is reported by every
other command and by `swarm-handoff plugins`, not by a plain `discover`. And the traceback that
`SWARM_HANDOFF_DEBUG=1` adds to an INTERNAL_ERROR names this module's frames, not the typer
command's: the report itself is the same.
"""

from __future__ import annotations

from swarm_handoff.cli import answers
from swarm_handoff.cli.printing import check_cwd, echo_err, run_document
from swarm_handoff.errors import UsageError
from swarm_handoff.records import Scope

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: importing typing costs start-up time
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from swarm_handoff.cli.answers import Answer
    from swarm_handoff.components import Document
    from swarm_handoff.discovery import DiscoveryResult
    from swarm_handoff.plugins import PluginHost

COMMAND = "discover"
# Option spellings of `discover` (as `discovery_commands.register` declares them) -> parameter.
_FLAGS = {"--all": "show_all", "--refresh": "refresh", "--resume": "resume"}
_SINGLE = {
    "--cwd": "cwd",
    "--session": "session",
    "--accepts-from": "accepts_from",
    "--schema-version": "schema_version",
    "--format": "fmt",
    "-f": "fmt",
}
_REPEATED = {"--category": "category", "--scope": "scope", "--input": "input_types"}
_PATHS = frozenset({"cwd", "session"})


def parse(args: Sequence[str]) -> dict[str, object] | None:
    """The parameters of a plain `discover` command line, or None when typer must parse it."""
    if not args or args[0] != COMMAND:
        return None
    from swarm_handoff.render import DEFAULT_FORMAT

    found: dict[str, object] = {"fmt": DEFAULT_FORMAT}
    given: set[str] = set()
    lists: dict[str, list[str]] = {name: [] for name in _REPEATED.values()}
    rest = list(args[1:])
    while rest:
        token = rest.pop(0)
        name, eq, attached = token.partition("=") if token.startswith("--") else (token, "", "")
        if name in _FLAGS and not eq:
            found[_FLAGS[name]] = True
            continue
        param = _SINGLE.get(name) or _REPEATED.get(name)
        if param is None:
            return None  # a positional, `--help`, `--`, an unknown or abbreviated option: typer's to judge
        if eq:
            value = attached
        elif rest:
            value = rest.pop(0)
        else:
            return None  # a missing value: typer says so
        if not value or value.startswith("-"):
            return None  # empty, or an option where a value belongs: typer's rules decide
        if param in lists:
            lists[param].append(value)
        elif param in given:
            return None  # given twice: typer keeps the last, and says nothing; let it
        else:
            given.add(param)
            found[param] = value
    if not all(_readable(str(found[name])) for name in _PATHS if name in found):
        return None  # typer's Path type refuses it as a usage error: let typer say so
    found.update(lists)
    return found


def _readable(path: str) -> bool:
    """Whether typer's Path type lets `path` through: absent, or there and readable (`TyperPath.convert`)."""
    import os

    try:
        os.stat(path)
    except OSError:
        return True  # absent: typer passes it on, and the command reports it
    except ValueError:
        return False  # a NUL byte: whatever typer makes of it, it is not ours to judge
    return os.access(path, os.R_OK)


def run(params: dict[str, object], answer: Answer | None) -> None:
    """Run a parsed `discover` and exit with its status, saving the replayable answer as typer's path does."""
    from pathlib import Path

    for name in _PATHS:
        if isinstance(params.get(name), str):
            params[name] = Path(str(params[name]))
    fmt = str(params.pop("fmt"))
    try:
        status = run_document(fmt, lambda host: discover_document(host, **params))  # type: ignore[arg-type]
    except KeyboardInterrupt:  # Ctrl-C: 130, quietly, as typer's command ends it (never a traceback)
        raise SystemExit(130) from None
    if answer is not None:
        answer.save(status)
    raise SystemExit(status)


def discover_document(
    host: PluginHost,
    *,
    cwd: Path | None = None,
    session: Path | None = None,
    category: Sequence[str] = (),
    scope: Sequence[str] = (),
    show_all: bool = False,
    refresh: bool = False,
    resume: bool = False,
    accepts_from: str | None = None,
    schema_version: str | None = None,
    input_types: Sequence[str] = (),
) -> Document:
    """The body of `discover`, shared by the typer command and the lean path so that both print the same."""
    from swarm_handoff.discovery import discover_detailed, make_context

    check_cwd(cwd)
    if resume and session is None:
        raise UsageError("--resume needs --session DIR", hint="name the session folder being resumed")
    context = make_context(cwd, refresh=refresh)
    if session is not None:
        from swarm_handoff.session import discover_with_session

        if resume:
            from swarm_handoff.session_life import write_checkpoint

            write_checkpoint(session)
        result = discover_with_session(context, host, session, show_all=show_all)
    else:
        result, inputs = discover_detailed(context, host, show_all=show_all)
        given = str(cwd) if cwd is not None else "."
        answers.rest_on(inputs, [(given, str(context.cwd))])  # what a replay must find unchanged
    # Checked once the sources ran: a plugin's source declares its own scopes when it is built.
    known = [s.value for s in Scope]
    bad = [s for s in scope if s not in known]
    if bad:
        raise UsageError(f"unknown scope {bad[0]!r}", hint=f"use one of: {', '.join(known)}")
    from swarm_handoff.eligibility import Query

    query = Query(accepts_from=accepts_from, schema_version=schema_version, inputs=tuple(input_types))
    result = result.filtered(tuple(category), tuple(scope)).queried(query)
    if not show_all:
        _note_set_aside(result)
    return result


def set_aside_note(skipped: int, shadowed: int) -> str | None:
    """The one stderr line plain `discover` prints about what it did not list, or None when nothing was."""
    if not skipped and not shadowed:
        return None
    from swarm_handoff.command_name import command_name

    return (
        f"note: {skipped} skipped and {shadowed} shadowed skill(s) not listed;"
        f" `{command_name()} discover --all` shows them with the reason"
    )


def _note_set_aside(result: DiscoveryResult) -> None:
    """Print the set-aside line on stderr; the replayed-answer cache stores it with the answer."""
    line = set_aside_note(result.skipped_count, result.shadowed_count)
    if line is not None:
        echo_err(line)
        answers.printed(f"{line}\n", err=True)
