"""The A2A transport: what the core's `handoff TARGET --to URL` and `ack` reach through `swarm_handoff_transports`.

Registered under the `http` and `https` schemes. `skills` reads the host's agent card (bounded
retries, like a send); `send` is `sender.send` (by the card `skills` read, bounded retries, the
remote task recorded in the local history); `acknowledged` moves the A2A task of a payload this
host received over A2A (COMPLETED on `success`, FAILED on `failure`). Nothing here imports the A2A
SDK at import time, and `acknowledged` pays for it only when the payload's task is in this host's
task store: an `ack` of a local payload costs one `stat` (no task store) or one SQLite lookup.

Settings come from the environment (the core's `--to` has no token options; a token never comes
from an argument): `SWARM_HANDOFF_A2A_TOKEN` or `SWARM_HANDOFF_A2A_TOKEN_FILE`,
`SWARM_HANDOFF_A2A_AUTH_SCHEME` (bearer or api-key), `SWARM_HANDOFF_A2A_ATTEMPTS` (connection
attempts, default 6) and `SWARM_HANDOFF_A2A_TASK_STORE` (the receiver's task store URL when it is
not the default SQLite file).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

from swarm_handoff.api import RemoteDelivery, RemoteSkill, SwarmError, UsageError, config_dir, read_text
from swarm_handoff_a2a.auth import sender_credentials
from swarm_handoff_a2a.ids import EXTENSION_URI, TASK_STORE_ENV, store_file, task_id_for
from swarm_handoff_a2a.operation_table import MAX_ATTEMPTS

if TYPE_CHECKING:
    from swarm_handoff_a2a.auth import Credentials
    from swarm_handoff_a2a.cardcache import ReadCard
    from swarm_handoff_a2a.sender import Retry

TOKEN_FILE_ENV = "SWARM_HANDOFF_A2A_TOKEN_FILE"
AUTH_SCHEME_ENV = "SWARM_HANDOFF_A2A_AUTH_SCHEME"
ATTEMPTS_ENV = "SWARM_HANDOFF_A2A_ATTEMPTS"
_CARD_LISTS = ("accepts_from", "requires", "optional_consumes")


def credentials() -> Credentials:
    """What `handoff --to` presents: the token file's or the variable's secret, in the scheme the environment says."""
    token_file = os.environ.get(TOKEN_FILE_ENV, "").strip()
    scheme = os.environ.get(AUTH_SCHEME_ENV, "").strip() or "bearer"
    return sender_credentials(Path(token_file) if token_file else None, scheme)


def retry() -> Retry:
    """The retry bound: `SWARM_HANDOFF_A2A_ATTEMPTS` connection attempts (default 6)."""
    from swarm_handoff_a2a.sender import Retry

    given = os.environ.get(ATTEMPTS_ENV, "").strip()
    if not given:
        return Retry()
    if not given.isdigit() or not 1 <= int(given) <= MAX_ATTEMPTS:
        raise UsageError(
            f"{ATTEMPTS_ENV}={given[:40]!r} is not a number of attempts",
            hint=f"set it to a whole number from 1 to {MAX_ATTEMPTS}, or unset it (6)",
        )
    return Retry(attempts=int(given))


class A2ATransport:
    """Sends hand-offs over A2A to `http(s)://` hosts, and moves a received hand-off's task on `ack`.

    The card `skills` read is kept until `send` to the same URL takes it (one slot, the last URL):
    `handoff --to` sends by the card its target was checked against, and asks the host once.
    """

    def __init__(self) -> None:
        self._checked: tuple[str, dict[str, Any]] | None = None

    def skills(self, url: str) -> Sequence[RemoteSkill]:
        """The skills the host's agent card lists (a host without our extension is refused: it cannot verify)."""
        read = self.read(url)
        self._checked = (url, read.document)
        found = read.skills
        if not found.extension:
            from swarm_handoff_a2a.sender import A2A_NO_EXTENSION

            raise SwarmError(
                A2A_NO_EXTENSION,
                f"{url} ({found.name}) does not declare the swarm-handoff extension {EXTENSION_URI}; "
                "it could not verify the payload, so nothing was written or sent",
                hint="run `swarm-handoff a2a serve` on that host, or hand the work over another way",
            )
        return tuple(_remote_skill(s) for s in found.skills)

    def read(self, url: str) -> ReadCard:
        """The host's card (cached as its headers say, `cardcache.py`), connections retried up to the bound."""
        import httpx
        from a2a.client.errors import A2AClientError, AgentCardResolutionError

        from swarm_handoff_a2a.bounded import remote_failure, retryable
        from swarm_handoff_a2a.cardcache import read_card

        bound = retry()
        waits = iter(bound.waits())
        creds = credentials()
        while True:
            try:
                return read_card(url, credentials=creds)
            except (httpx.HTTPError, A2AClientError, AgentCardResolutionError, OSError, ValueError) as exc:
                wait = next(waits, None) if retryable(exc) else None
                if wait is None:
                    raise remote_failure(url, exc) from None
                time.sleep(wait)

    def send(self, payload: Path, url: str, target: str) -> RemoteDelivery:
        """Send the payload file (recorded in the local history's remote tasks); the outcome, never a raise."""
        from swarm_handoff_a2a.bounded import CardRefused, parse_card
        from swarm_handoff_a2a.sender import send

        checked, self._checked = self._checked, None
        card = None
        if checked is not None and checked[0] == url:
            with contextlib.suppress(CardRefused):  # a kept card that no longer reads: `send` asks the host
                card = parse_card(checked[1])
        result = send(payload, url, target, credentials=credentials(), retry=retry(), card=card)
        return RemoteDelivery(
            url=result.url,
            target=result.target,
            task_id=result.task_id,
            state=result.state,
            delivered=result.delivered,
            attempts=result.attempts,
            error=result.error,
        )

    def acknowledged(self, payload: Path, status: str) -> str | None:
        """Move the A2A task of a payload received here over A2A; None for any other payload."""
        store_url = os.environ.get(TASK_STORE_ENV, "").strip() or None
        database = store_file(config_dir()) if store_url is None else _sqlite_file(store_url)
        if database is not None and not database.is_file():
            return None  # this host never received a hand-off over A2A
        task_id = task_id_for(read_text(payload))
        if database is not None and not _has_task(database, task_id):
            return None
        from swarm_handoff_a2a.ack import A2A_TASK_NOT_FOUND, ack_task

        try:
            state = ack_task(status, payload_path=payload, task_id=task_id, store_url=store_url)
        except SwarmError as error:
            if error.code == A2A_TASK_NOT_FOUND:
                return None
            raise
        return f"A2A task {task_id}: {state}"


def _remote_skill(skill: dict[str, Any]) -> RemoteSkill:
    """One card skill as the core takes it; the hand-off fields the card gives (checked in `skill_handoff`)."""
    given = skill.get("handoff") or {}  # a card cached before the card said them has none
    fields: dict[str, Any] = {name: str(given[name]) for name in ("trigger", "schema_version") if name in given}
    fields.update({name: tuple(given[name]) for name in _CARD_LISTS if name in given})
    return RemoteSkill(
        id=str(skill["id"]),
        name=str(skill["name"]),
        description=str(skill["description"]),
        tags=tuple(skill["tags"]),
        examples=tuple(skill["examples"]),
        **fields,
    )


def _sqlite_file(store_url: str) -> Path | None:
    """The file of a SQLite store URL (`sqlite+aiosqlite:///PATH`), None for another database."""
    scheme, _, rest = store_url.partition(":///")
    rest = unquote(rest.partition("?")[0])  # as SQLAlchemy reads it: the query apart, escapes decoded
    return Path(rest) if scheme.split("+")[0] == "sqlite" and rest else None


def _has_task(database: Path, task_id: str) -> bool:
    """Whether the SDK's `tasks` table holds `task_id` (read-only, with the standard library)."""
    with (
        contextlib.suppress(sqlite3.Error),
        contextlib.closing(sqlite3.connect(f"file:{quote(str(database))}?mode=ro", uri=True, timeout=5)) as db,
    ):
        return db.execute("SELECT 1 FROM tasks WHERE id = ?", (task_id,)).fetchone() is not None
    return False


TRANSPORT = A2ATransport()
