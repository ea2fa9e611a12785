"""Hook implementations: register the default QR gate policy."""

from __future__ import annotations

from typing import TYPE_CHECKING

from swarm_handoff.api import Register, hookimpl

if TYPE_CHECKING:
    from swarm_handoff_qr.policy import BlockingPolicy


def _default_policy() -> BlockingPolicy:
    from swarm_handoff_qr.policy import BlockingPolicy

    return BlockingPolicy()


@hookimpl
def swarm_handoff_qr_gates(register: Register) -> None:
    """Offer the default blocking policy (severity relaxes with iterations, then asks the user)."""
    register("default", _default_policy, summary="iter 1-2 block all, 3-4 MUST+SHOULD, 5+ MUST only")
