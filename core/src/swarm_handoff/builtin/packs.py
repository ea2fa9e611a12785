"""The core's `packs` discovery source (skills of pip-installed distributions), registered through the hook."""

from __future__ import annotations

from typing import Any

from swarm_handoff.components import Register
from swarm_handoff.hookspecs import hookimpl
from swarm_handoff.plugins import building_host, get_host


def _source() -> Any:
    from swarm_handoff.packs import PackSource

    host = building_host() or get_host()  # the host that loaded the plugins: its controls admit the packs too
    return PackSource(host.env)


@hookimpl
def swarm_handoff_discovery_sources(register: Register) -> None:
    """Offer the `packs` source: entry points of the `swarm_handoff.skills` group, scope `installed`."""
    register("packs", _source, summary="skills registered by installed distributions (swarm_handoff.skills)")
