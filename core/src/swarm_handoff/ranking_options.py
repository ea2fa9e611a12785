"""The `rank` command's option types and defaults, apart from the ranking engine, and the chain both read.

Typer reads every command's signature each time the CLI starts, whatever command runs, so the
`--autonomy` choices and the defaults live here: building the CLI then costs one enum, not the
import of `ranking` (its records, the synthesis loader and the scorers' plumbing). `chain_names`
is here for the same reason: `rank`, `handoff`, the Python API and the MCP tools all read a chain;
so is the bound on a request in words, which `--request` and the router's `route` both apply.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

from swarm_handoff.errors import UsageError

DEFAULT_SCORER = "swarm-v2"
DEFAULT_TOP = 5
# A request in words (`rank`/`handoff --request`, the router's `route`): longer is refused, never truncated.
MAX_REQUEST_CHARS = 100_000


class Autonomy(str, enum.Enum):
    """How much the user wants to supervise the target workflow (`--autonomy`)."""

    SUPERVISED = "supervised"
    AUTONOMOUS = "autonomous"

    def __str__(self) -> str:
        return self.value


def chain_entries(value: str | Iterable[str] | None) -> tuple[str, ...]:
    """The chain's entries as `--chain` reads them (text split at commas; each trimmed, empty ones dropped).

    What `RankingRequest` and `HandoffOptions` convert their `chain` with: they also carry chains
    read from payloads, which are reported on, not refused. What a user types goes through `chain_names`.
    """
    if value is None:
        return ()
    parts = value.split(",") if isinstance(value, str) else value
    return tuple(name for name in (str(part).strip() for part in parts) if name)


def chain_names(value: str | Iterable[str] | None, option: str = "--chain") -> tuple[str, ...]:
    """A chain the user gave (`--chain a,b`, a list over MCP), read one way everywhere: `chain_entries`, checked.

    A list entry holding a comma, or any name with a control character, is refused (USAGE, naming
    `option`): the comma form could not say it, and such a name would be written into the payload
    and the history.
    """
    names = chain_entries(value)
    for name in names:
        bad = "a comma" if "," in name else "a control character" if not name.isprintable() else None
        if bad is not None:
            raise UsageError(
                f"{option}: the chain entry {name!r} holds {bad}",
                hint="give one skill name per entry, as discover lists them",
                option=option,
                value=name,
            )
    return names
