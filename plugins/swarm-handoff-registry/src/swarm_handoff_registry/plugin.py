"""Hook implementations: the `registry` discovery source and the `registry` command group."""

from __future__ import annotations

from typing import Any

from swarm_handoff.api import Register, hookimpl
from swarm_handoff_registry.operation_table import GROUP, OPERATIONS


def _source() -> Any:
    from swarm_handoff_registry.registry import RegistrySource

    return RegistrySource()


@hookimpl
def swarm_handoff_discovery_sources(register: Register) -> None:
    """Offer the optional registry file as a source (scope `registry`, merged under local skills)."""
    register("registry", _source, summary="$CLAUDE_CONFIG_DIR/handoff-registry.yaml (optional)")


@hookimpl
def swarm_handoff_operations(register: Any) -> None:
    """Declare `registry path`, `registry show`, `registry sync` and `registry prune`."""
    register(GROUP)
    for operation in OPERATIONS:
        register(operation)
