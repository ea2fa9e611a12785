"""The bodies of the hand-off commands: `handoff`, `validate`, `verify`, `convert`, `ack` and `history`.

Each is a thin layer over `swarm_handoff.payload` and `swarm_handoff.history`; the only thing
decided here is how to ask the user (a `[y/N]` prompt at a terminal, a refusal without one unless
`--yes`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TextIO

import attrs
import typer

from swarm_handoff.cli.operations_cli import invoke
from swarm_handoff.cli.output import warn
from swarm_handoff.components import Document
from swarm_handoff.errors import ErrorCode, Severity, SwarmError, folder_busy
from swarm_handoff.operations import Operation, OperationResult
from swarm_handoff.plugins import PluginHost
from swarm_handoff.safefs import FolderBusy, create_new
from swarm_handoff.termsafe import escape_controls

if TYPE_CHECKING:
    from swarm_handoff.transport import RemoteDelivery


def _is_terminal() -> bool:
    """True when a person can answer a prompt (tests replace this)."""
    return sys.stdin.isatty()


def make_confirm(yes: bool) -> Callable[[str], bool]:
    """Ask at a terminal; without one, refuse unless `--yes` was given. Messages go to stderr."""

    def confirm(message: str) -> bool:
        # it names skills, which come from other people's folders: escaped, line by line (its own breaks stay)
        message = "\n".join(escape_controls(line) for line in message.split("\n"))
        if yes:
            typer.echo(f"{message} yes (--yes)", err=True)
            return True
        if _is_terminal():
            return bool(typer.confirm(message, default=False, err=True))
        typer.echo(f"{message} no: there is no terminal to answer at; pass --yes to proceed", err=True)
        return False

    return confirm


@attrs.frozen
class SentHandoff:
    """The `handoff --to` document: the local hand-off's, with what the remote host said under `remote`."""

    kind: ClassVar[str] = "handoff"
    local: Any
    remote: RemoteDelivery

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form: the `handoff` document plus `remote`."""
        return {**self.local.to_data(), "remote": self.remote.to_data()}


def _warn(problems: Any) -> None:
    for problem in problems:
        if problem.severity != Severity.ERROR:
            warn(f"{problem.code}: {problem.message}")


def handoff_operation(
    host: PluginHost,
    *,
    target: str,
    session: str,
    synthesis: Path | None,
    received: Path | None,
    request: str | None = None,
    problem_type: str | None = None,
    schema: str | None,
    source: str | None,
    reason: str,
    feedback: str | None,
    chain: str | None,
    health_check: bool,
    confirm: bool,
    sign: bool,
    override_accepts_from: bool,
    allow_undeclared: bool,
    expires_in: str | None,
    require_signature: bool | None,
    to: str | None = None,
) -> Document | OperationResult:
    """`handoff`: build, validate and write a hand-off payload; with `to`, then send it to that host."""
    from swarm_handoff.chains import chain_names
    from swarm_handoff.discovery import make_context
    from swarm_handoff.payload.lifecycle import HandoffOptions, check_session, hand_off
    from swarm_handoff.request_words import words_or_synthesis
    from swarm_handoff.session_life import parse_duration
    from swarm_handoff.transport import remote_target, transport_for

    check_session(session)  # the text as given: Path("") would quietly mean "."
    options = HandoffOptions(  # every option checked here, before any host is asked
        target=target,
        synthesis=words_or_synthesis(
            synthesis, request, problem_type, command="handoff", continues=True, received=received
        ),
        session=Path(session),
        schema=schema,
        source=source,
        reason=reason,
        feedback=feedback,
        chain=chain_names(chain),
        health_check=health_check,
        sign=sign,
        override_accepts_from=override_accepts_from,
        received=received,
        allow_undeclared=allow_undeclared,
        expires_in=parse_duration(expires_in, "--expires-in") if expires_in is not None else None,
        require_signature=require_signature,
    )
    transport = remote = None
    if to is not None:  # the remote host is asked next: a hand-off it cannot take is never written
        transport = transport_for(host, to)
        remote = remote_target(transport.skills(to), target, to)  # its card's entry wins over a skill here
    result = hand_off(options, host=host, context=make_context(), confirm=make_confirm(confirm), remote=remote)
    _warn(result.warnings)
    for dropped in result.dropped:
        typer.echo(f"warning: dropped {dropped} (down-converted to v{result.version})", err=True)
    if transport is None or to is None:
        return result
    sent = transport.send(Path(result.payload_path), to, result.target)
    return OperationResult(SentHandoff(result, sent), status=0 if sent.ok else 1, notes=(sent.line(),))


def validate_operation(host: PluginHost, *, payload: Path) -> Document:
    """`validate`: a payload of any version (by its `version` field), every problem reported."""
    from swarm_handoff.payload.validate import validate_file

    report = validate_file(payload, host)
    if not report.valid:
        raise report.to_error()
    _warn(report.warnings)
    return report


def verify_operation(host: PluginHost, *, payload: Path, require_signature: bool) -> Document:
    """`verify`: a payload's hash, size, files, signature and expiry."""
    from swarm_handoff.payload.verify import verify_file  # only `verify` pays for the checker

    return verify_file(payload, require_signature=require_signature, host=host)


def convert_operation(
    host: PluginHost, *, payload: Path, to: str, output: str | None, stdout: TextIO | None = None
) -> Document:
    """`convert`: a payload between 2.0 and 3.0, every dropped field listed; `output` also written."""
    import errno

    from swarm_handoff.payload.convert import convert_payload
    from swarm_handoff.payload.io import dump_payload
    from swarm_handoff.payload.output import write_output
    from swarm_handoff.payload.validate import load_payload

    result = convert_payload(load_payload(payload), to, host)
    try:
        for side_path, content in result.side_files:  # a fresh name each: never replaces a file
            if not create_new(Path(side_path), dump_payload(content, Path(side_path)).encode("utf-8")):
                raise FileExistsError(errno.EEXIST, "a file of that name is already there", str(side_path))
        if output is not None:
            write_output(output, dump_payload(result.payload, Path(output)), stdout=stdout or sys.stdout)
    except FolderBusy as busy:
        raise folder_busy(busy) from None
    except OSError as exc:
        raise SwarmError(
            ErrorCode.VALIDATION_FAILED,
            f"cannot write the converted payload: {exc}",
            details={"missing_fields": [], "validation_errors": [str(exc)]},
        ) from None
    for dropped in result.dropped:
        warn(f"dropped {dropped}")
    return result


def convert_invoke(operation: Operation, values: dict[str, Any]) -> None:
    """Run `convert`; with `-o -` stdout holds the payload alone (`convert -o - | other-tool`), the report stderr."""
    import contextlib

    from swarm_handoff.payload.output import standard_stream

    output = values["output"]
    payload_out = sys.stdout
    if output is not None and standard_stream(output) == 1:
        with contextlib.redirect_stdout(sys.stderr):
            invoke(operation, {**values, "stdout": payload_out})
    else:
        invoke(operation, {**values, "stdout": payload_out})


def ack_operation(
    host: PluginHost, *, payload: Path, status: str, require_signature: bool | None
) -> Document | OperationResult:
    """`ack`: record the target's acknowledgment of a hand-off in the history, after the integrity check."""
    from swarm_handoff.acknowledgment import acknowledge

    report = acknowledge(host, payload, status, require_signature=require_signature)
    _warn(report.problems)
    # what a transport said (it moved its remote task) is also a line on stderr
    return OperationResult(report, notes=report.transports) if report.transports else report


def history_operation(host: PluginHost, *, skill: str | None, trace: str | None) -> Document:
    """`history`: recorded hand-offs, newest first, with their latest acknowledgment; or one chain."""
    from swarm_handoff.discovery import config_dir
    from swarm_handoff.history import open_history
    from swarm_handoff.history_reports import history_report

    with open_history(config_dir()) as store:
        _warn(store.problems)
        return history_report(store, skill, trace=trace)
