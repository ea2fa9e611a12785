"""The `rank` command's option types and defaults, apart from the ranking engine.

Typer reads every command's signature each time the CLI starts, whatever command runs, so the
`--autonomy` choices and the defaults live here: building the CLI then costs one enum, not the
import of `ranking` (its records, the synthesis loader and the scorers' plumbing).
"""

from __future__ import annotations

import enum

DEFAULT_SCORER = "swarm-v2"
DEFAULT_TOP = 5


class Autonomy(str, enum.Enum):
    """How much the user wants to supervise the target workflow (`--autonomy`)."""

    SUPERVISED = "supervised"
    AUTONOMOUS = "autonomous"

    def __str__(self) -> str:
        return self.value
