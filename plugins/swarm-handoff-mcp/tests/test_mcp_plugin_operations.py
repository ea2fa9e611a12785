"""A plugin's operation with a `tool` name is an MCP tool: schema, argument checks and body from its declaration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from swarm_handoff.api import CORE_OPERATIONS, Operation, Param, UsageError, hookimpl
from swarm_handoff_mcp.server import SwarmServer
from swarm_handoff_mcp.tools import Call, check_arguments

GIVEN: dict[str, Any] = {}


def echo(host: Any, *, word: str, folder: Path | None, loud: bool) -> Any:
    GIVEN.update(word=word, folder=folder, loud=loud)
    return host.report()


ECHO = Operation(
    "echo",
    "Say a word back.",
    (
        Param("word", help="The word.", required=True, argument=True),
        Param("folder", Path, "A folder.", path=True),
        Param("loud", bool, "Shout it.", default=False, tool_name="shout"),
    ),
    echo,
    tool="echo",
)


class EchoPlugin:
    @hookimpl
    def swarm_handoff_operations(self, register: Any) -> None:
        register(ECHO)


class TakesDiscover:
    @hookimpl
    def swarm_handoff_operations(self, register: Any) -> None:
        register(Operation("discover-again", "Clash.", (), echo, tool="discover"))  # the core's tool name


def test_a_plugin_operation_is_listed_checked_and_run(register_plugin: Any, swarm_host: Any, tmp_path: Path) -> None:
    register_plugin(EchoPlugin(), "echo")
    register_plugin(TakesDiscover(), "clash")
    tools = SwarmServer(swarm_host).tools
    assert next(name for name in tools if name in {op.tool for op in CORE_OPERATIONS}) == "discover"
    spec = tools["echo"]
    assert spec.schema["required"] == ["word"]
    assert set(spec.schema["properties"]) == {"word", "folder", "shout"}
    with pytest.raises(UsageError, match="shout must be boolean"):
        check_arguments(spec, {"word": "hi", "shout": "yes"})
    args = check_arguments(spec, {"word": "hi", "folder": "rel", "shout": True})
    assert Path(args["folder"]).is_absolute()  # a path argument, made absolute as the core's are
    spec.run(Call(args, swarm_host))
    assert {"word": "hi", "folder": Path(args["folder"]), "loud": True} == GIVEN
    conflicts = [f.describe() for f in swarm_host.failures if f.code == "PLUGIN_NAME_CONFLICT"]
    assert any("discover" in line for line in conflicts)


def test_a_declared_maximum_is_in_the_tool_schema_and_checked(register_plugin: Any, swarm_host: Any) -> None:
    """The same `Param(maximum=)` bounds the MCP argument: in its schema, and refused above it."""

    class Bounded:
        @hookimpl
        def swarm_handoff_operations(self, register: Any) -> None:
            register(
                Operation(
                    "bounded",
                    "Bounded.",
                    (Param("count", int, "How many.", minimum=1, maximum=5),),
                    echo,
                    tool="bounded",
                )
            )

    register_plugin(Bounded(), "bounded")
    spec = SwarmServer(swarm_host).tools["bounded"]
    assert (spec.schema["properties"]["count"]["minimum"], spec.schema["properties"]["count"]["maximum"]) == (1, 5)
    with pytest.raises(UsageError, match="count must be between 1 and 5"):
        check_arguments(spec, {"count": 6})
