"""The body of `plugins` (declared in `operation_table/discovery.py`), the one command about the core itself."""

from __future__ import annotations

from swarm_handoff.plugins import PluginHost, PluginsReport


def plugins_operation(host: PluginHost) -> PluginsReport:
    """`plugins`: every plugin with its distribution, version, hooks and components, and every failure."""
    return host.report()
