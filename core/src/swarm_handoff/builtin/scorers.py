"""The core's scorers, `swarm-v2` and `registry-v3`, registered through the scorer hook.

Every command loads the built-in plugins; the scorers themselves (`seed_scorers.py`, with the
skill records they read) are imported when a ranking first builds one.
"""

from __future__ import annotations

from typing import Any

from swarm_handoff.components import Register
from swarm_handoff.hookspecs import hookimpl


def _swarm_v2() -> Any:
    from swarm_handoff.seed_scorers import SwarmV2Scorer

    return SwarmV2Scorer()


def _registry_v3() -> Any:
    from swarm_handoff.seed_scorers import RegistryV3Scorer

    return RegistryV3Scorer()


@hookimpl
def swarm_handoff_scorers(register: Register) -> None:
    """Offer `swarm-v2` (the default) and `registry-v3`."""
    register("swarm-v2", _swarm_v2, summary="discovery seed relevance: 5 factors, 0-10 points")
    register("registry-v3", _registry_v3, summary="registry seed table: -30 to 100 points")
