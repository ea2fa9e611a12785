"""The review loop's state and the three pillars every QR checkpoint shows.

A review loop carries three values from step to step, written into the next commands so the
agent never has to remember them: the iteration (which round of review this is), `failed` (the
work step is being re-entered to fix findings) and `status` (what the last review said). Both
`failed` and `status` are kept because they answer different questions: `failed` is how the
work step was entered, `status` is the verdict that sent it there.

Each checkpoint states three things (the "pillars"); without any one of them an agent can skip
the verification: a state banner (where in the loop we are), a stop condition (what PASS means
in this round, and what happens when the rounds run out) and the re-verify mode (review from
scratch, not from memory of the previous round).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from swarm_handoff.api import FAIL, PASS

PILLARS = ("banner", "stop_condition", "reverify")
_ORDER = ("MUST", "SHOULD", "COULD")


def _status(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip().lower()
    if text not in (PASS, FAIL):
        raise ValueError(f"a QR status is 'pass' or 'fail', not {value!r}")
    return text


def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes")
    return bool(value)


@attrs.frozen
class QRState:
    """Where a review loop stands: the round, whether the work is being fixed, the last verdict."""

    iteration: int = attrs.field(default=1, validator=attrs.validators.ge(1))
    failed: bool = False
    status: str | None = attrs.field(default=None, converter=_status)

    @property
    def passed(self) -> bool:
        """Say whether the last review reported PASS."""
        return self.status == PASS

    @property
    def fresh_review(self) -> bool:
        """Say whether this round must re-verify from scratch (every round after the first)."""
        return self.iteration > 1

    @classmethod
    def from_state(cls, state: Mapping[str, Any], prefix: str = "qr") -> QRState:
        """Read the loop's state from a step's carried state (`<prefix>_iteration` and so on)."""
        return cls(
            iteration=int(state.get(f"{prefix}_iteration", 1) or 1),
            failed=_truthy(state.get(f"{prefix}_failed", False)),
            status=state.get(f"{prefix}_status"),
        )

    def to_state(self, prefix: str = "qr") -> dict[str, Any]:
        """Give the carried-state entries that re-create this value in the next command."""
        return {f"{prefix}_iteration": self.iteration, f"{prefix}_failed": self.failed, f"{prefix}_status": self.status}

    def after(self, verdict: str) -> QRState:
        """Return the state after a review: PASS keeps the round, FAIL starts the next one to fix."""
        if _status(verdict) == PASS:
            return QRState(self.iteration, False, PASS)
        return QRState(self.iteration + 1, True, FAIL)


def severity_list(names: Iterable[Any]) -> list[str]:
    """Order severities MUST, SHOULD, COULD (unknown names last, alphabetically)."""
    texts = {str(getattr(n, "value", n)) for n in names}
    return sorted(texts, key=lambda n: (_ORDER.index(n) if n in _ORDER else len(_ORDER), n))


def pillars(name: str, qr: QRState, blocking: Iterable[Any], limit: int) -> dict[str, Any]:
    """Build a checkpoint's three pillars plus the facts they are built from."""
    severities = severity_list(blocking)
    title = name.upper()
    if qr.fresh_review:
        banner = (
            f"{title} (iteration {qr.iteration} of at most {limit}, fresh review): "
            "the previous review found issues and the work was changed since."
        )
        reverify = (
            "Fresh review: check every item again against the work as it is now. Do not reuse the "
            "previous findings or trust an account of what was fixed; confirm each fix yourself."
        )
    else:
        banner = f"{title} (iteration 1 of at most {limit}): review the work for issues."
        reverify = "First review: check every item against the work itself, not against its description."
    stop = (
        f"Report PASS only when no finding of severity {', '.join(severities)} remains; otherwise report "
        f"FAIL with the findings. A FAIL at iteration {limit} stops the loop: the open findings go to "
        "the user instead of another round."
    )
    return {
        "name": name,
        "iteration": qr.iteration,
        "limit": limit,
        "failed": qr.failed,
        "status": qr.status,
        "mode": "fresh-review" if qr.fresh_review else "first-review",
        "blocking": severities,
        "banner": banner,
        "stop_condition": stop,
        "reverify": reverify,
    }
