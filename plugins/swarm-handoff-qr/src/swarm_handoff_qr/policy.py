"""Which review findings block a QR gate at which iteration, and when the gate stops looping.

The rule (invariant 5 of the workflow framework): iterations 1-2 block every severity, 3-4 block
MUST and SHOULD, 5 and later block MUST only. Relaxing with the iteration count keeps a review loop
converging; the iteration limit stops it and hands the decision to the user instead of looping.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

import attrs

from swarm_handoff_qr.state import QRState, pillars


class Severity(str, enum.Enum):
    """How strongly a reviewer asks for a change."""

    MUST = "MUST"
    SHOULD = "SHOULD"
    COULD = "COULD"


DEFAULT_ITERATION_LIMIT = 6


@attrs.frozen
class BlockingPolicy:
    """The severity table plus the iteration at which the gate asks the user instead of looping."""

    iteration_limit: int = attrs.field(default=DEFAULT_ITERATION_LIMIT, validator=attrs.validators.ge(1))

    def blocking(self, iteration: int) -> frozenset[Severity]:
        """Return the severities that fail the gate at `iteration` (1-based)."""
        if iteration < 1:
            raise ValueError(f"QR iterations start at 1, got {iteration}")
        if iteration <= 2:
            return frozenset(Severity)
        if iteration <= 4:
            return frozenset({Severity.MUST, Severity.SHOULD})
        return frozenset({Severity.MUST})

    def blocks(self, iteration: int, severity: Severity | str) -> bool:
        """Say whether one finding of `severity` fails the gate at `iteration`."""
        return Severity(severity) in self.blocking(iteration)

    def exhausted(self, iteration: int) -> bool:
        """Say whether the loop has run out of iterations and must ask the user."""
        return iteration > self.iteration_limit

    def checkpoint(self, *, name: str, state: Mapping[str, Any], prefix: str = "qr") -> dict[str, Any]:
        """Give the three pillars (banner, stop condition, re-verify mode) for a QR checkpoint."""
        qr = QRState.from_state(state, prefix)
        return pillars(name, qr, self.blocking(qr.iteration), self.iteration_limit)
