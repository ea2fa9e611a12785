"""Hook implementations: the `registry` discovery source and the `registry` command group."""

from __future__ import annotations

from typing import Any

from swarm_handoff.api import Register, hookimpl


def _source() -> Any:
    from swarm_handoff_registry.registry import RegistrySource

    return RegistrySource()


@hookimpl
def swarm_handoff_discovery_sources(register: Register) -> None:
    """Offer the optional registry file as a source (scope `registry`, merged under local skills)."""
    register("registry", _source, summary="$CLAUDE_CONFIG_DIR/handoff-registry.yaml (optional)")


@hookimpl
def swarm_handoff_cli(app: Any) -> None:
    """Add `registry sync`, `registry show` and `registry path`."""
    from swarm_handoff_registry.commands import registry_app

    app.add_typer(registry_app(), name="registry")
