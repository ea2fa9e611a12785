"""The hook implementation: register the `envdir` discovery source by name."""

from __future__ import annotations

from swarm_handoff.api import Register, hookimpl


def _build() -> object:
    # Imported here, not at the top: the source's module loads only when discovery runs.
    from swarm_handoff_envdir.source import EnvDirSource

    return EnvDirSource()


@hookimpl
def swarm_handoff_discovery_sources(register: Register) -> None:
    """Offer the `envdir` source: every skill folder under $SKILLS_ENVDIR."""
    register("envdir", _build, summary="skills in the folder named by $SKILLS_ENVDIR")
