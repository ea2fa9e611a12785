"""The plugin contract in types: every kind has a protocol without `Any`, capabilities are isinstance-checked."""

from __future__ import annotations

import typing
import warnings
from collections.abc import Mapping

import pytest

from swarm_handoff import api, components, hookspecs
from swarm_handoff.api import DEFAULT_PRIORITY, Kind, SourceResult, hookimpl
from swarm_handoff.discovery import make_context, run_sources
from swarm_handoff.errors import ErrorCode, SwarmError
from swarm_handoff.workflow.protocol import gate_action, qr_checkpoint


def _namespace() -> dict[str, object]:
    # The names components.py and hookspecs.py import only for type checkers.
    from collections.abc import Callable

    import typer

    from swarm_handoff.errors import Problem
    from swarm_handoff.operations import Group, Operation
    from swarm_handoff.payload.adapters import AdapterResult
    from swarm_handoff.ranking import RankingRequest
    from swarm_handoff.records import Contribution, DiscoveryContext, Location, SkillRecord
    from swarm_handoff.scopes import ScopeSpec
    from swarm_handoff.transport import RemoteDelivery, RemoteSkill

    return {
        **vars(components),
        "typer": typer,
        "Problem": Problem,
        "AdapterResult": AdapterResult,
        "RankingRequest": RankingRequest,
        "Contribution": Contribution,
        "DiscoveryContext": DiscoveryContext,
        "SkillRecord": SkillRecord,
        "SourceResult": SourceResult,
        "ScopeSpec": ScopeSpec,
        "Location": Location,
        "Operation": Operation,
        "Group": Group,
        "Callable": Callable,
        "RemoteSkill": RemoteSkill,
        "RemoteDelivery": RemoteDelivery,
    }


def _mentions_any(hint: object) -> bool:
    return hint is typing.Any or any(_mentions_any(arg) for arg in typing.get_args(hint))


PROTOCOLS = sorted((name for name in api.__all__ if getattr(getattr(api, name), "_is_protocol", False)), key=str.lower)
HOOKS = sorted(name for name in vars(hookspecs) if name.startswith("swarm_handoff_"))


def test_every_kind_has_a_protocol_exported_by_the_api():
    assert set(components.PROTOCOLS) == set(Kind)
    assert {p.__name__ for p in components.PROTOCOLS.values()} <= set(PROTOCOLS)


@pytest.mark.parametrize("name", PROTOCOLS)
def test_no_protocol_signature_says_any(name):
    protocol = getattr(api, name)
    ns = _namespace()
    hints = [typing.get_type_hints(protocol, globalns=ns)]
    for member in vars(protocol):
        value = getattr(protocol, member)
        if (callable(value) and not member.startswith("_")) or member == "__call__":
            hints.append(typing.get_type_hints(value, globalns=ns))
    assert len(hints) > 1 or hints[0], f"{name} declares nothing"
    assert not [h for table in hints for h in table.values() if _mentions_any(h)]


@pytest.mark.parametrize("hook", HOOKS)
def test_no_hook_spec_says_any_or_object(hook):
    hints = typing.get_type_hints(getattr(hookspecs, hook), globalns=_namespace())
    assert hints.pop("return") is type(None)
    assert hints
    assert not [h for h in hints.values() if _mentions_any(h) or h is object]


def test_a_gate_policy_without_blocking_is_refused_when_built(register_plugin, swarm_host):
    class NoBlocking:
        @hookimpl
        def swarm_handoff_qr_gates(self, register):
            register("lax", lambda: "a string is no policy")

    register_plugin(NoBlocking(), "lax")
    with pytest.raises(SwarmError) as caught:
        swarm_host.get(Kind.QR_GATE, "lax")
    assert caught.value.code == ErrorCode.COMPONENT_FAILED.value
    assert "GatePolicy" in caught.value.message


class _Plain:
    def blocking(self, iteration: int) -> frozenset[str]:
        return frozenset({"MUST"})


class _Limited(_Plain):
    def exhausted(self, iteration: int) -> bool:
        return iteration > 1

    def checkpoint(self, *, name: str, state: Mapping[str, object], prefix: str) -> Mapping[str, object]:
        return {"banner": f"{name} {prefix}"}


def test_gate_capabilities_are_used_only_when_the_policy_has_them(register_plugin, swarm_host):
    class Gates:
        @hookimpl
        def swarm_handoff_qr_gates(self, register):
            register("plain", _Plain)
            register("limited", _Limited)

    register_plugin(Gates(), "gates")
    assert "past the gate's limit" not in gate_action("plain", 9)
    assert qr_checkpoint("plain", "review", {}, "qr") is None
    assert "past the gate's limit" in gate_action("limited", 2)
    assert "past the gate's limit" not in gate_action("limited", 1)
    assert qr_checkpoint("limited", "review", {}, "qr") == {"banner": "review qr"}
    assert isinstance(_Limited(), api.LimitedGate)
    assert not isinstance(_Plain(), api.LimitedGate)


def test_a_source_without_priority_runs_at_the_default_priority(register_plugin, swarm_host, tmp_path):
    class Source:
        def __init__(self, priority=None):
            if priority is not None:
                self.priority = priority

        def discover(self, context):
            return SourceResult()

    class Sources:
        @hookimpl
        def swarm_handoff_discovery_sources(self, register):
            register("a-default", Source)
            register("b-first", lambda: Source(DEFAULT_PRIORITY - 1))
            register("c-last", lambda: Source(DEFAULT_PRIORITY + 1))

    register_plugin(Sources(), "sources")
    order = [
        name
        for name, _ in run_sources(make_context(tmp_path, {}), swarm_host)
        if name in {"a-default", "b-first", "c-last"}
    ]
    assert order == ["b-first", "a-default", "c-last"]
    assert not isinstance(Source(), api.PrioritizedSource)
    assert isinstance(Source(1), api.PrioritizedSource)


def test_the_old_hookimpl_home_is_gone():
    import swarm_handoff

    assert not hasattr(swarm_handoff, "hookimpl")  # the one-release shim is gone: swarm_handoff.api has it


def test_the_new_hookimpl_home_is_silent():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from swarm_handoff.api import hookimpl as marker
    assert marker.project_name == "swarm_handoff"
