"""The operations table is the command line: every command comes from it, and plugins add theirs safely."""

from __future__ import annotations

from typing import Any

import pytest
import typer

from swarm_handoff.api import Group, Operation, Param, hookimpl
from swarm_handoff.cli.app import build_app
from swarm_handoff.operation_table import CORE_GROUPS, CORE_OPERATIONS
from swarm_handoff.operations import CLI, MCP, spelling_table


def _paths() -> set[str]:
    group = typer.main.get_command(build_app())
    ctx = group.context_class(group)
    paths: set[str] = set()
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        paths.add(name)
        for sub in getattr(command, "list_commands", lambda _ctx: [])(ctx):
            paths.add(f"{name} {sub}")
    return paths


def test_every_core_command_is_an_operation_of_the_table() -> None:
    declared = {op.name for op in CORE_OPERATIONS} | {g.name for g in CORE_GROUPS}
    assert _paths() == declared


def test_each_operation_is_declared_once_with_a_body_and_unique_names() -> None:
    names = [op.name for op in CORE_OPERATIONS]
    assert len(names) == len(set(names))
    tools = [op.tool for op in CORE_OPERATIONS if op.tool]
    assert len(tools) == len(set(tools))
    for operation in CORE_OPERATIONS:
        assert callable(operation.runner()), operation.name
        params = [p.name for p in operation.params]
        assert len(params) == len(set(params)), operation.name
        assert {g for g in (operation.group,) if g} <= {g.name for g in CORE_GROUPS}


def test_a_neutral_name_is_spelt_by_each_surface() -> None:
    cli, mcp = spelling_table(CORE_OPERATIONS, CLI), spelling_table(CORE_OPERATIONS, MCP)
    assert (cli["accepts_from"], mcp["accepts_from"]) == ("--accepts-from", "accepts_from")
    assert (cli["show_all"], mcp["show_all"]) == ("--all", "all")
    assert cli["name"] == "NAME"  # an argument is named as its usage line shows it


def _operation(name: str, group: str = "") -> Operation:
    def body(host: Any, *, flag: bool) -> Any:
        return host.report()

    return Operation(
        f"{group} {name}".strip(), f"The {name} command.", (Param("flag", bool, "A flag.", default=False),), body
    )


def test_a_plugin_group_and_its_operations_join_the_command_line(register_plugin: Any, swarm_cli: Any) -> None:
    class Tools:
        @hookimpl
        def swarm_handoff_operations(self, register: Any) -> None:
            register(Group("tools", "Plugin tools.", ("swarm-handoff tools one",), "docs/hooks.md"))
            register(_operation("one", "tools"))

    register_plugin(Tools(), "tools")
    page = swarm_cli("tools", "-h").stdout
    assert "one" in page
    assert "swarm-handoff tools one" in page
    assert swarm_cli("tools", "one", "--flag", "-f", "json").exit_code == 0


@pytest.mark.parametrize("name", ["discover", "workflow"])
def test_a_plugin_cannot_take_a_core_command_or_group(register_plugin: Any, swarm_host: Any, name: str) -> None:
    class Clash:
        @hookimpl
        def swarm_handoff_operations(self, register: Any) -> None:
            register(_operation(name))

    register_plugin(Clash(), "clash")
    declared = swarm_host.operations()
    assert declared.operations == ()
    assert [f.code for f in swarm_host.failures] == ["PLUGIN_NAME_CONFLICT"]


def test_a_raising_hook_keeps_nothing_and_the_rest_still_works(register_plugin: Any, swarm_host: Any) -> None:
    class HalfDone:
        @hookimpl
        def swarm_handoff_operations(self, register: Any) -> None:
            register(_operation("kept-not"))
            register("not an operation")

    class Fine:
        @hookimpl
        def swarm_handoff_operations(self, register: Any) -> None:
            register(_operation("fine"))

    register_plugin(HalfDone(), "half")
    register_plugin(Fine(), "fine")
    declared = swarm_host.operations()
    assert [op.name for op in declared.operations] == ["fine"]
    assert [f.code for f in swarm_host.failures] == ["PLUGIN_HOOK_FAILED"]


def test_a_declared_maximum_bounds_the_option_on_the_command_line(register_plugin: Any, swarm_cli: Any) -> None:
    """`Param(maximum=)` is one declaration: the command line refuses a number above it, naming the range."""
    seen: list[int] = []

    def body(host: Any, *, count: int) -> Any:
        seen.append(count)
        return host.report()

    class Counted:
        @hookimpl
        def swarm_handoff_operations(self, register: Any) -> None:
            register(Group("tools", "Plugin tools.", ("swarm-handoff tools count",), "docs/hooks.md"))
            register(
                Operation(
                    "tools count", "Count.", (Param("count", int, "How many.", default=1, minimum=1, maximum=5),), body
                )
            )

    register_plugin(Counted(), "counted")
    refused = swarm_cli("tools", "count", "--count", "6")
    assert refused.exit_code == 2
    assert "--count" in refused.stderr
    assert "1<=x<=5" in refused.stderr
    assert seen == []
    assert swarm_cli("tools", "count", "--count", "5", "-f", "json").exit_code == 0
    assert seen == [5]


def test_an_operation_offered_over_mcp_is_a_tool_of_its_own_name_unless_it_names_one() -> None:
    """`mcp=True` offers the command under its name (`workflow step` as `workflow_step`); `tool=` still names one."""
    assert Operation("workflow step", "S.", (), "m:f", mcp=True).tool == "workflow_step"
    assert Operation("lint", "S.", (), "m:f", mcp=True).tool == "lint"
    assert Operation("route", "S.", (), "m:f", tool="route").tool == "route"  # a plugin's own naming still works
    assert Operation("convert", "S.", (), "m:f").tool is None  # not offered
    offered = [op for op in CORE_OPERATIONS if op.tool]
    assert [op.tool for op in offered] == [op.name.replace(" ", "_") for op in offered]  # the core names none twice
