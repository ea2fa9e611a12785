"""Collect the operations plugins declare (`swarm_handoff_operations`), one plugin at a time.

Like the registering hooks of components (`plugin_collect.py`): each plugin's hook gets a
`register` of its own; a hook that raises is reported (PLUGIN_HOOK_FAILED) and none of what it
registered is kept; an operation or group whose name is already taken (by the core's table or a
plugin loaded earlier) is reported (PLUGIN_NAME_CONFLICT) and dropped, the first one kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs

from swarm_handoff.errors import ErrorCode
from swarm_handoff.operations import Group, Operation
from swarm_handoff.plugin_hooks import call_hook, not_run

if TYPE_CHECKING:
    from swarm_handoff.plugins import PluginHost

HOOK = "swarm_handoff_operations"


@attrs.frozen
class PluginOperations:
    """What plugins declared: their operations and groups, in load order, each with its plugin."""

    operations: tuple[Operation, ...] = ()
    groups: tuple[Group, ...] = ()
    owners: tuple[tuple[str, str], ...] = ()  # (operation or group name, distribution)


def collect_operations(
    host: PluginHost, taken: Sequence[Operation] = (), taken_groups: Sequence[Group] = ()
) -> PluginOperations:
    """Call each plugin's `swarm_handoff_operations` hook; `taken` are the core's, never replaced."""
    names = {op.name for op in taken} | {g.name for g in taken_groups}
    tools = {op.tool for op in taken if op.tool}
    operations: list[Operation] = []
    groups: list[Group] = []
    owners: list[tuple[str, str]] = []
    for impl in host.impls(HOOK):
        if "register" not in impl.argnames or not_run(impl):  # a wrapper was reported when added
            continue
        dist, version = host.meta(impl.plugin_name)
        mine: list[Operation | Group] = []

        def register(item: Operation | Group, _mine: list[Operation | Group] = mine) -> None:
            if not isinstance(item, (Operation, Group)):
                raise TypeError(f"register() takes an Operation or a Group, got {type(item).__name__}")
            _mine.append(item)

        if not call_hook(host, impl, HOOK, {arg: register if arg == "register" else None for arg in impl.argnames}):
            continue
        for item in mine:
            conflict = _conflict(item, names, tools)
            if conflict:
                host.fail(
                    impl.plugin_name,
                    dist,
                    version,
                    ErrorCode.PLUGIN_NAME_CONFLICT,
                    f"{conflict} is already provided; the plugin's was dropped",
                    f"rename it in {dist}",
                )
                continue
            names.add(item.name)
            owners.append((item.name, dist))
            if isinstance(item, Group):
                groups.append(item)
            else:
                operations.append(item)
                if item.tool:
                    tools.add(item.tool)
    return PluginOperations(tuple(operations), tuple(groups), tuple(owners))


def _conflict(item: Operation | Group, names: set[str], tools: set[Any]) -> str:
    """What of `item` is already taken ("" when nothing is): its command name, or its MCP tool name."""
    kind = "command group" if isinstance(item, Group) else "command"
    if item.name in names:
        return f"{kind} {item.name!r}"
    if isinstance(item, Operation) and item.tool and item.tool in tools:
        return f"MCP tool {item.tool!r}"
    return ""
