"""A hand-off chain as the user gives it (`--chain a,b`, a list over MCP), read one way everywhere.

`rank`, `handoff`, the Python API and the MCP tools all read a chain: `chain_entries` splits and
trims it (what records carrying a chain from a payload convert with), `chain_names` also refuses an
entry no payload could carry (a comma, a control character) as a usage error naming the option.
"""

from __future__ import annotations

from collections.abc import Iterable

from swarm_handoff.errors import UsageError


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
