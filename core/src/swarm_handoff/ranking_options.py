"""The `rank` command's option types and defaults, apart from the ranking engine: facts that import nothing.

Typer reads every command's signature each time the CLI starts, whatever command runs, so the
`--autonomy` choices and the defaults live here: building the CLI then costs one enum, not the
import of `ranking` (its records, the synthesis loader and the scorers' plumbing). So is the bound
on a request in words, which `--request` and the router's `route` both apply. Reading a chain the
user gave (`--chain`) is `chains.py`'s: it refuses bad entries, so it stands on the errors.
"""

from __future__ import annotations

import enum

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
