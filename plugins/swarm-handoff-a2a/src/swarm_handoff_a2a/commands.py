"""The bodies of the `a2a` command group: `serve`, `send`, `skills`, `status`.

Each command is a thin layer over the library (`receiver.build_receiver`, `sender.send`,
`sender.remote_skills`, `sender.remote_status`): it reads the options, reads the token from an
environment variable or a file (never from an argument: other users see arguments in `ps`), and
turns the outcome into a document. The rows that declare the commands are in `operation_table.py`,
which the plugin registers on every run; this module is imported only when one of the commands
runs, and imports the A2A SDK only inside the command that talks A2A. A hand-off built and sent in
one command is the core's `handoff TARGET --to URL`, which reaches this plugin through its
transport (`transport.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

import attrs
import typer

from swarm_handoff.api import (
    OperationResult,
    PluginHost,
    SwarmError,
    UsageError,
    escape_controls,
)
from swarm_handoff_a2a.auth import receiver_auth, sender_credentials

if TYPE_CHECKING:
    from swarm_handoff_a2a.auth import Credentials

A2A_BIND_FAILED = "A2A_BIND_FAILED"  # `a2a serve` cannot listen on the address and port asked for


@attrs.frozen
class ServedDocument:
    """What `a2a serve` prints once it stops."""

    kind: ClassVar[str] = "a2a-served"
    url: str
    skills: tuple[str, ...]

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {"url": self.url, "skills": list(self.skills), "stopped": True}

    def to_text(self) -> str:
        """One line: where it served."""
        return f"stopped serving at {escape_controls(self.url)}\n"


def serve_operation(
    host: PluginHost,
    *,
    bind: str,
    port: int,
    session_root: Path | None,
    task_store: str | None,
    public_url: str | None,
    token_file: Path | None,
    auth_scheme: str,
) -> OperationResult:
    """`a2a serve`: build the receiving host, say where it listens, serve until interrupted."""
    from swarm_handoff_a2a.receiver import build_receiver

    if port > 65535:
        raise UsageError(f"--port {port} is not a port (0 to 65535)", hint="--port 8470, or --port 0 for a free one")
    auth = receiver_auth(token_file, auth_scheme)
    root = session_root or Path.cwd() / "a2a-sessions"
    try:
        receiver = build_receiver(
            root, host=bind, port=port, store_url=task_store, auth=auth, public_url=public_url, plugin_host=host
        )
    except OSError as exc:  # the address is taken, or not this machine's
        raise SwarmError(
            A2A_BIND_FAILED,
            f"cannot listen on {bind}:{port}: {exc.strerror or exc}",
            hint="choose another --port (0 picks a free one), or stop what listens there",
        ) from None
    skills = tuple(skill.id for skill in receiver.card.skills)
    if receiver.cleared:
        typer.echo(f"a2a: cleared {len(receiver.cleared)} file(s) a stopped receiver left in {root}", err=True)
    typer.echo(
        f"a2a: receiving at {receiver.url} for {len(skills)} skill(s): {', '.join(skills) or '(none)'}"
        f" (session root {root}; Ctrl-C to stop)",
        err=True,
    )
    try:
        receiver.run()
    except KeyboardInterrupt:  # uvicorn stops on Ctrl-C, then raises it again: the normal end of a server
        pass
    finally:
        receiver.sock.close()
    return OperationResult(ServedDocument(receiver.url, skills))


@attrs.frozen
class SentDocument:
    """What `a2a send` prints: the remote task and its state, or why it was not delivered."""

    kind: ClassVar[str] = "a2a-sent"
    result: Any

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form (the library's `SendResult`)."""
        data: dict[str, Any] = self.result.to_data()
        data["warnings"] = list(data.get("warnings", ()))
        return data

    def to_text(self) -> str:
        """The state and task id; a refusal's code, message and hint."""
        r = self.result
        head = f"{r.target} at {r.url}: {r.state}" + (f" (task {r.task_id})" if r.task_id else "")
        lines = [head, f"payload {r.payload_hash}, {r.attempts} attempt(s)"]
        if r.error:
            lines.append(f"{r.error.get('code')}: {r.error.get('message')}")
            if r.error.get("hint"):
                lines.append(f"hint: {r.error.get('hint')}")
        lines.extend(f"warning: {w}" for w in r.warnings)
        return "\n".join(escape_controls(line) for line in lines) + "\n"


def send_operation(
    host: PluginHost, *, payload: Path, to: str, attempts: int, token_file: Path | None, auth_scheme: str
) -> OperationResult:
    """`a2a send`: send one payload file; status 1 when it was refused or not delivered."""
    from swarm_handoff_a2a.sender import Retry, send

    credentials = sender_credentials(token_file, auth_scheme)
    result = send(payload, _url(to), credentials=credentials, retry=Retry(attempts=attempts))
    failed = not result.delivered or result.state == "rejected"
    return OperationResult(SentDocument(result), status=1 if failed else 0)


@attrs.frozen
class SkillsDocument:
    """What `a2a skills` prints: a host's accepting skills and whether it takes our payloads."""

    kind: ClassVar[str] = "a2a-skills"
    found: Any

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form (the library's `RemoteSkills`)."""
        data: dict[str, Any] = self.found.to_data()
        data["skills"] = list(data["skills"])
        return data

    def to_text(self) -> str:
        """One line per skill: id, description, tags."""
        f = self.found
        takes = "takes swarm-handoff payloads" if f.extension else "does NOT declare the swarm-handoff extension"
        lines = [f"{f.name} at {f.url}: {len(f.skills)} skill(s), {takes}"]
        for skill in f.skills:
            tags = f" [{', '.join(skill['tags'])}]" if skill["tags"] else ""
            lines.append(f"  {skill['id']}  {skill['description']}{tags}")
        return "\n".join(escape_controls(line) for line in lines) + "\n"


def _url(url: str) -> str:
    """Check a host URL: http(s) with a host, nothing else reaches a receiver."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"{url!r} is not an http(s) URL of a host", hint="for example http://127.0.0.1:8470/")
    return url


def skills_operation(host: PluginHost, *, url: str, token_file: Path | None, auth_scheme: str) -> SkillsDocument:
    """`a2a skills`: a remote host's accepting skills, from its agent card."""
    import httpx
    from a2a.client.errors import A2AClientError, AgentCardResolutionError

    from swarm_handoff_a2a.bounded import remote_failure
    from swarm_handoff_a2a.sender import remote_skills

    credentials = sender_credentials(token_file, auth_scheme)
    try:
        return SkillsDocument(remote_skills(_url(url), credentials=credentials))
    except (httpx.HTTPError, A2AClientError, AgentCardResolutionError, OSError, ValueError) as exc:
        raise remote_failure(url, exc) from None


@attrs.frozen
class StatusDocument:
    """What `a2a status` prints: the remote tasks of the local history, newest first."""

    kind: ClassVar[str] = "a2a-status"
    rows: tuple[dict[str, Any], ...]

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {"remote_tasks": [dict(row) for row in self.rows]}

    def to_text(self) -> str:
        """One line per hand-off sent: state, payload hash, host, task id."""
        if not self.rows:
            return "no hand-off sent to another host yet\n"
        lines = [
            f"{row['state']:<12} {str(row['payload_hash'])[:19]}  {row['url']}  {row['task_id'] or '-'}"
            for row in self.rows
        ]
        return "\n".join(escape_controls(line) for line in lines) + "\n"


def status_operation(
    host: PluginHost,
    *,
    payload_hash: str | None,
    refresh: bool,
    token_file: Path | None,
    auth_scheme: str,
) -> OperationResult:
    """`a2a status`: the local history's remote tasks; with --refresh, each host is asked first."""
    from swarm_handoff.api import make_context, open_history  # the history (sqlite3) only for this command

    config = make_context().config_dir
    with open_history(config) as history:
        rows = history.remote(payload_hash)
    notes: list[str] = []
    if refresh and rows:
        notes = _refresh(rows, sender_credentials(token_file, auth_scheme), config)
        with open_history(config) as history:
            rows = history.remote(payload_hash)
    return OperationResult(StatusDocument(tuple(rows)), status=1 if notes else 0, notes=tuple(notes))


def _refresh(rows: Sequence[dict[str, Any]], credentials: Credentials, config: Path) -> list[str]:
    """Ask each row's host for its task's state (recorded in the history); one host down never stops the rest."""
    import httpx
    from a2a.client.errors import A2AClientError, AgentCardResolutionError

    from swarm_handoff_a2a.bounded import remote_failure
    from swarm_handoff_a2a.sender import remote_status

    notes: list[str] = []
    for row in rows:
        if not row["task_id"] or row["state"] in ("undelivered", "completed", "failed", "rejected", "canceled"):
            continue  # nothing to ask: never delivered (send it again), or already final
        try:
            remote_status(
                row["url"], row["task_id"], payload_hash=row["payload_hash"], credentials=credentials, config_dir=config
            )
        except (httpx.HTTPError, A2AClientError, AgentCardResolutionError, OSError, ValueError) as exc:
            notes.append(f"warning: {remote_failure(row['url'], exc).message} (state kept: {row['state']})")
    return notes
