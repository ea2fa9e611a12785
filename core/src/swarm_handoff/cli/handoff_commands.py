"""The hand-off commands: `handoff`, `validate`, `verify`, `convert`, `ack` and `history`.

Each is a thin layer over `swarm_handoff.payload` and `swarm_handoff.history`; the only thing
decided here is how to ask the user (a `[y/N]` prompt at a terminal, a refusal without one unless
`--yes`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, ClassVar

import attrs
import typer

from swarm_handoff.cli.output import format_option, run, warn
from swarm_handoff.components import Document
from swarm_handoff.errors import ErrorCode, Problem, Severity, SwarmError, UsageError
from swarm_handoff.plugins import PluginHost
from swarm_handoff.termsafe import escape_controls

PayloadArg = Annotated[Path, typer.Argument(help="The payload file (YAML or JSON).")]


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


@attrs.frozen(kw_only=True)
class AckReport:
    """The `ack` document: the hand-off as the history now has it."""

    kind: ClassVar[str] = "acknowledgment"
    handoff: Any
    problems: tuple[Problem, ...] = ()

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {"handoff": self.handoff.to_data(), "problems": [p.to_data() for p in self.problems]}


def _warn(problems: Any) -> None:
    for problem in problems:
        if problem.severity != Severity.ERROR:
            warn(f"{problem.code}: {problem.message}")


def trace_report(store: Any, trace_id: str, skill: str | None = None) -> Document:
    """One chain hop by hop (`history --trace`); `--skill` with it is refused rather than ignored."""
    from swarm_handoff.history_reports import TraceReport

    if skill is not None:
        raise UsageError("--trace and --skill cannot be combined", hint="pass one of them", option="--trace")
    return TraceReport(trace_id=trace_id, hops=store.trace(trace_id), problems=store.problems)


def register(app: typer.Typer) -> None:
    """Add the hand-off commands to `app`."""

    @app.command("handoff")
    def handoff(
        target: Annotated[str, typer.Argument(help="The skill to hand the work to.")],
        session: Annotated[
            str, typer.Option("--session", help="The session folder the payload is written into (must exist).")
        ],
        synthesis: Annotated[
            Path | None,
            typer.Option("--synthesis", help="The synthesis file (YAML or JSON); with --from, replaces its context."),
        ] = None,
        received: Annotated[
            Path | None,
            typer.Option(
                "--from",
                help="Continue the chain of the payload this skill received (checked first; no synthesis needed).",
            ),
        ] = None,
        schema: Annotated[
            str | None,
            typer.Option("--schema", help="Force the payload version (2.0 or 3.0); default: the target's version."),
        ] = None,
        source: Annotated[str | None, typer.Option("--source", help="The handing-off skill (v3.0 only).")] = None,
        reason: Annotated[str, typer.Option("--reason", help="Why this hand-off (meta.handoff_reason).")] = "",
        feedback: Annotated[
            str | None, typer.Option("--feedback", help="The user's feedback (meta.user_feedback).")
        ] = None,
        chain: Annotated[
            str | None, typer.Option("--chain", help="The chain so far, comma-separated, source first.")
        ] = None,
        health_check: Annotated[
            bool, typer.Option("--health-check", help="Run the target's health_check first.")
        ] = False,
        yes: Annotated[bool, typer.Option("--yes", "-y", help="Confirm loop and long-chain questions.")] = False,
        sign: Annotated[
            bool, typer.Option("--sign", help="Add an HMAC signature with your key (made on first use).")
        ] = False,
        override_accepts_from: Annotated[
            bool,
            typer.Option(
                "--override-accepts-from",
                help="Hand off although the target's accepts_from does not list the source (recorded).",
            ),
        ] = False,
        allow_undeclared: Annotated[
            bool,
            typer.Option(
                "--allow-undeclared",
                help="Hand off to a skill that declares no hand-off metadata (recorded; rank --include-undeclared).",
            ),
        ] = False,
        expires_in: Annotated[
            str | None,
            typer.Option(
                "--expires-in",
                help="How long the payload stays valid: 90m, 3h, 2d (at most 30d); default: 1h.",
            ),
        ] = None,
        require_signature: Annotated[
            bool | None,
            typer.Option(
                "--require-signature/--no-require-signature",
                help="With --from: refuse an unsigned received payload, or one with an unsigned hop "
                "(default: on when you have a signing key; --no-require-signature continues, recorded).",
            ),
        ] = None,
        fmt: str = format_option(),
    ) -> None:
        """Build, validate and write a hand-off payload, then print the command that hands it over."""
        from swarm_handoff.discovery import make_context
        from swarm_handoff.payload.lifecycle import HandoffOptions, check_session, hand_off
        from swarm_handoff.ranking_options import chain_names

        def action(host: PluginHost) -> Document:
            from swarm_handoff.session_life import parse_duration

            check_session(session)  # the text as given: Path("") would quietly mean "."
            options = HandoffOptions(
                target=target,
                synthesis=synthesis,
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
            result = hand_off(options, host=host, context=make_context(), confirm=make_confirm(yes))
            _warn(result.warnings)
            for dropped in result.dropped:
                typer.echo(f"warning: dropped {dropped} (down-converted to v{result.version})", err=True)
            return result

        run(fmt, action)

    @app.command("validate")
    def validate(payload: PayloadArg, fmt: str = format_option()) -> None:
        """Validate a payload of any version (by its `version` field), reporting every problem."""
        from swarm_handoff.payload.validate import validate_file

        def action(host: PluginHost) -> Document:
            report = validate_file(payload, host)
            if not report.valid:
                raise report.to_error()
            _warn(report.warnings)
            return report

        run(fmt, action)

    @app.command("verify")
    def verify(
        payload: PayloadArg,
        require_signature: Annotated[
            bool, typer.Option("--require-signature", help="Fail when the payload is not signed.")
        ] = False,
        fmt: str = format_option(),
    ) -> None:
        """Check a payload's hash, size, files, signature and expiry; exit 1 when any fails."""
        from swarm_handoff.payload.verify import verify_file  # only `verify` pays for the checker

        run(fmt, lambda host: verify_file(payload, require_signature=require_signature, host=host))

    @app.command("convert")
    def convert(
        payload: Annotated[Path, typer.Argument(help="The payload file.")],
        to: Annotated[str, typer.Option("--to", help="The version to convert to: 3.0 or 2.0.")],
        output: Annotated[
            str | None,
            typer.Option(
                "--output",
                "-o",
                help="Also write the converted payload here; - for stdout (the report goes to stderr).",
            ),
        ] = None,
        fmt: str = format_option(),
    ) -> None:
        """Convert a payload between 2.0 and 3.0, listing every field the conversion drops."""
        import contextlib
        import errno

        from swarm_handoff.errors import folder_busy
        from swarm_handoff.payload.convert import convert_payload
        from swarm_handoff.payload.io import dump_payload
        from swarm_handoff.payload.output import standard_stream, write_output
        from swarm_handoff.payload.validate import load_payload
        from swarm_handoff.safefs import FolderBusy, create_new

        def action(host: PluginHost) -> Document:
            result = convert_payload(load_payload(payload), to, host)
            try:
                for side_path, content in result.side_files:  # a fresh name each: never replaces a file
                    if not create_new(Path(side_path), dump_payload(content, Path(side_path)).encode("utf-8")):
                        raise FileExistsError(errno.EEXIST, "a file of that name is already there", str(side_path))
                if output is not None:
                    write_output(output, dump_payload(result.payload, Path(output)), stdout=payload_out)
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

        payload_out = sys.stdout
        if output is not None and standard_stream(output) == 1:
            # stdout holds the payload alone, so that `convert -o - | other-tool` reads a payload
            with contextlib.redirect_stdout(sys.stderr):
                run(fmt, action)
        else:
            run(fmt, action)

    @app.command("ack")
    def ack(
        payload: Annotated[Path, typer.Argument(help="The payload file being acknowledged.")],
        status: Annotated[str, typer.Option("--status", help="received, processed, success or failure.")],
        require_signature: Annotated[
            bool | None,
            typer.Option(
                "--require-signature/--no-require-signature",
                help="Refuse an unsigned payload, or one with an unsigned hop "
                "(default: on when you have a signing key).",
            ),
        ] = None,
        fmt: str = format_option(),
    ) -> None:
        """Record the target's acknowledgment of a hand-off in the history."""
        from swarm_handoff.discovery import config_dir
        from swarm_handoff.history import ACK_STATUSES, open_history
        from swarm_handoff.payload.validate import load_payload
        from swarm_handoff.payload.verify import require_intact

        def action(host: PluginHost) -> Document:
            if status not in ACK_STATUSES:
                raise SwarmError(
                    ErrorCode.USAGE, f"unknown status {status!r}", hint=f"use one of: {', '.join(ACK_STATUSES)}"
                )
            data = load_payload(payload)
            if not isinstance(data, dict) or not isinstance(data.get("handoff"), dict):
                raise SwarmError(ErrorCode.INVALID_PAYLOAD, f"{payload} is not a hand-off payload")
            require_intact(payload, data, config_dir(), require_signature=require_signature, host=host)
            with open_history(config_dir()) as history:
                row = history.acknowledge(payload.resolve(), data, status)
                _warn(history.problems)
                return AckReport(handoff=row, problems=history.problems)

        run(fmt, action)

    @app.command("history")
    def history(
        skill: Annotated[str | None, typer.Option("--skill", help="Only hand-offs from or to this skill.")] = None,
        trace: Annotated[
            str | None, typer.Option("--trace", help="Show one chain (a v3.0 trace_id) hop by hop, oldest first.")
        ] = None,
        fmt: str = format_option(),
    ) -> None:
        """List recorded hand-offs, newest first, with their latest acknowledgment; or one chain with --trace."""
        from swarm_handoff.discovery import config_dir
        from swarm_handoff.history import open_history
        from swarm_handoff.history_reports import HistoryReport

        def action(host: PluginHost) -> Document:
            with open_history(config_dir()) as store:
                _warn(store.problems)
                if trace is not None:
                    return trace_report(store, trace, skill)
                return HistoryReport(handoffs=tuple(store.list(skill)), skill=skill, problems=store.problems)

        run(fmt, action)
