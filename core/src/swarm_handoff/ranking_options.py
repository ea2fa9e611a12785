"""The `rank` command's option types and defaults, apart from the ranking engine, and the chain both read.

Typer reads every command's signature each time the CLI starts, whatever command runs, so the
`--autonomy` choices and the defaults live here: building the CLI then costs one enum, not the
import of `ranking` (its records, the synthesis loader and the scorers' plumbing). `chain_names`
is here for the same reason: `rank`, `handoff`, the Python API and the MCP tools all read a chain.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

from swarm_handoff.errors import UsageError

DEFAULT_SCORER = "swarm-v2"
DEFAULT_TOP = 5


class Autonomy(str, enum.Enum):
    """How much the user wants to supervise the target workflow (`--autonomy`)."""

    SUPERVISED = "supervised"
    AUTONOMOUS = "autonomous"

    def __str__(self) -> str:
        return self.value


def chain_names(value: str | Iterable[str] | None, option: str = "--chain") -> tuple[str, ...]:
    """The hand-off chain as names, read one way everywhere (`--chain a,b`, a list over MCP or the API).

    Text is split at commas; every name is trimmed and empty ones are dropped. A list entry holding
    a comma, or any name with a control character, is refused (USAGE, naming `option`): the comma
    form could not say it, and such a name would be written into the payload and the history.
    """
    if value is None:
        return ()
    parts = value.split(",") if isinstance(value, str) else list(value)
    names = []
    for part in parts:
        name = str(part).strip()
        if not name:
            continue
        bad = "a comma" if "," in name else "a control character" if not name.isprintable() else None
        if bad is not None:
            raise UsageError(
                f"{option}: the chain entry {name!r} holds {bad}",
                hint="give one skill name per entry, as discover lists them",
                option=option,
                value=name,
            )
        names.append(name)
    return tuple(names)
