"""Plugin loading: each entry point on its own, failures reported, allow/block/strict controls."""

from __future__ import annotations

import json

import pytest

from swarm_handoff import plugins
from swarm_handoff.api import hookimpl
from swarm_handoff.components import Kind
from swarm_handoff.errors import ErrorCode, SwarmError

# Built-ins load first, in DEFAULT_PLUGINS order; other issues add lines there.
BUILTINS = [name for name, _ in plugins.DEFAULT_PLUGINS]

GOOD = """
from swarm_handoff.api import hookimpl

class Upper:
    def render(self, document):
        return str(document.to_data()).upper() + "\\n"

@hookimpl
def swarm_handoff_formatters(register):
    register("upper", Upper, summary="shouting")
"""
BROKEN_IMPORT = "raise RuntimeError('boom at import')\n"
MISSPELLED = """
from swarm_handoff.api import hookimpl

@hookimpl
def swarm_handoff_scorer(register):
    pass
"""
WRONG_ARGS = """
from swarm_handoff.api import hookimpl

@hookimpl
def swarm_handoff_scorers(register, candidate):
    pass
"""


# Every built-in loads first, in DEFAULT_PLUGINS order, before any entry point.
BUILTINS = [name for name, _ in plugins.DEFAULT_PLUGINS]


def _install(fakes, name, source, ep_name=None):
    module = name.replace("-", "_")
    fakes.install(name, entry_points={"swarm_handoff": {ep_name or name: module}}, modules={module: source})


def _host(*names, **env):
    """Build a host that sees only the named entry points, whatever else is installed."""
    return plugins.build_host({plugins.ENV_LOAD: ",".join(names), **env})


def test_good_entry_point_plugin_loads_and_provides_a_named_component(fake_distributions):
    _install(fake_distributions, "good-plugin", GOOD)
    host = _host("good-plugin")
    assert [p.name for p in host.plugins] == [*BUILTINS, "good-plugin"]
    info = host.plugins[len(BUILTINS)]
    assert (info.distribution, info.version, info.hooks) == ("good-plugin", "1.0", ("swarm_handoff_formatters",))
    assert host.components(Kind.FORMATTER)["upper"].distribution == "good-plugin"
    assert not host.failures


def test_import_failure_is_reported_and_the_rest_still_loads(fake_distributions):
    _install(fake_distributions, "good-plugin", GOOD)
    _install(fake_distributions, "broken-plugin", BROKEN_IMPORT)
    host = _host("good-plugin", "broken-plugin")
    assert "upper" in host.components(Kind.FORMATTER)
    [failure] = host.failures
    assert failure.name == "broken-plugin"
    assert failure.distribution == "broken-plugin"
    assert failure.version == "1.0"
    assert failure.code == ErrorCode.PLUGIN_IMPORT_FAILED.value
    assert "boom at import" in failure.error


def test_misspelled_hook_is_reported_with_the_likely_spelling(fake_distributions):
    _install(fake_distributions, "typo-plugin", MISSPELLED)
    host = _host("typo-plugin")
    [failure] = host.failures
    assert failure.code == ErrorCode.PLUGIN_HOOK_MISMATCH.value
    assert "swarm_handoff_scorer" in failure.error
    assert "swarm_handoff_scorers" in failure.hint
    assert "typo-plugin" not in [p.name for p in host.plugins]


def test_hook_arguments_outside_the_spec_are_a_mismatch(fake_distributions):
    _install(fake_distributions, "args-plugin", WRONG_ARGS)
    host = _host("args-plugin")
    [failure] = host.failures
    assert failure.code == ErrorCode.PLUGIN_HOOK_MISMATCH.value
    assert "candidate" in failure.error


def test_strict_mode_turns_a_failure_into_an_error_naming_the_plugin(fake_distributions):
    _install(fake_distributions, "broken-plugin", BROKEN_IMPORT)
    with pytest.raises(SwarmError) as caught:
        _host("broken-plugin", **{plugins.ENV_STRICT: "1"})
    assert caught.value.code == ErrorCode.PLUGINS_STRICT.value
    assert "broken-plugin" in caught.value.message


def test_disable_list_blocks_before_import(fake_distributions):
    _install(fake_distributions, "broken-plugin", BROKEN_IMPORT)
    host = _host("broken-plugin", **{plugins.ENV_DISABLE: "broken-plugin, other"})
    assert not host.failures
    assert [s.reason for s in host.skipped if s.name == "broken-plugin"] == [f"blocked by {plugins.ENV_DISABLE}"]
    assert "broken_plugin" not in __import__("sys").modules


def test_allow_list_loads_only_named_plugins_and_empty_means_core_only(fake_distributions):
    _install(fake_distributions, "good-plugin", GOOD)
    _install(fake_distributions, "broken-plugin", BROKEN_IMPORT)
    only_good = plugins.build_host({plugins.ENV_LOAD: "good-plugin"})
    assert [p.name for p in only_good.plugins] == [*BUILTINS, "good-plugin"]
    assert not only_good.failures
    core_only = plugins.build_host({plugins.ENV_LOAD: ""})
    assert [p.name for p in core_only.plugins] == BUILTINS
    assert {s.reason for s in core_only.skipped} == {f"not in {plugins.ENV_LOAD}"}
    assert {"good-plugin", "broken-plugin"} <= {s.name for s in core_only.skipped}


def test_same_component_name_from_two_distributions_names_both(fake_distributions):
    _install(fake_distributions, "first-dist", GOOD, ep_name="first")
    _install(fake_distributions, "second-dist", GOOD.replace("shouting", "also"), ep_name="second")
    host = _host("first", "second")
    assert host.components(Kind.FORMATTER)["upper"].distribution == "first-dist"
    [failure] = host.failures
    assert failure.code == ErrorCode.PLUGIN_NAME_CONFLICT.value
    assert "first-dist" in failure.error
    assert "second-dist" in failure.error


def test_a_third_party_cannot_take_a_builtin_name(register_plugin, swarm_host):
    class Hijack:
        @hookimpl
        def swarm_handoff_formatters(self, register):
            register("json", lambda: None)

    assert register_plugin(Hijack(), "hijack")
    assert swarm_host.components(Kind.FORMATTER)["json"].plugin == "core-formatters"
    assert swarm_host.failures[0].code == ErrorCode.PLUGIN_NAME_CONFLICT.value


def test_the_same_distribution_twice_on_sys_path_loads_once(fake_distributions):
    _install(fake_distributions, "good-plugin", GOOD)
    _install(fake_distributions, "good-plugin", GOOD)
    host = _host("good-plugin")
    assert [p.name for p in host.plugins].count("good-plugin") == 1
    assert not host.failures


def test_a_raising_register_hook_is_reported_and_others_register(register_plugin, swarm_host):
    class Raises:
        @hookimpl
        def swarm_handoff_formatters(self, register):
            raise ValueError("nope")

    register_plugin(Raises(), "raises")
    assert {"json", "yaml"} <= set(swarm_host.components(Kind.FORMATTER))
    assert swarm_host.failures[0].code == ErrorCode.PLUGIN_HOOK_FAILED.value


def test_component_factories_run_only_when_used(register_plugin, swarm_host):
    built = []

    class Lazy:
        @hookimpl
        def swarm_handoff_formatters(self, register):
            register("lazy", lambda: built.append(1) or Formatter())

    class Formatter:
        def render(self, document):
            return "lazy\n"

    register_plugin(Lazy(), "lazy")
    assert "lazy" in swarm_host.components(Kind.FORMATTER)
    assert built == []
    swarm_host.get(Kind.FORMATTER, "lazy")
    swarm_host.get(Kind.FORMATTER, "lazy")
    assert built == [1]


def test_unknown_component_lists_the_available_names(swarm_host):
    with pytest.raises(SwarmError) as caught:
        swarm_host.get(Kind.FORMATTER, "xmll")
    assert caught.value.code == ErrorCode.UNKNOWN_COMPONENT.value
    assert caught.value.details["available"] == ["json", "text", "yaml"]  # text is the core's (issue 13)


def test_a_component_without_the_protocol_methods_is_a_clear_error(register_plugin, swarm_host):
    class Bad:
        @hookimpl
        def swarm_handoff_formatters(self, register):
            register("bad", object)

    register_plugin(Bad(), "bad")
    with pytest.raises(SwarmError) as caught:
        swarm_host.get(Kind.FORMATTER, "bad")
    assert caught.value.code == ErrorCode.COMPONENT_FAILED.value
    assert "Formatter" in caught.value.message


def test_invalid_component_names_are_reported(register_plugin, swarm_host):
    class BadName:
        @hookimpl
        def swarm_handoff_formatters(self, register):
            register("has space", object)

    register_plugin(BadName(), "bad-name")
    assert "has space" not in swarm_host.components(Kind.FORMATTER)
    assert "has space" in swarm_host.failures[0].error


def test_the_host_is_cached_and_resettable(monkeypatch):
    first = plugins.get_host()
    assert plugins.get_host() is first
    plugins.reset_host()
    assert plugins.get_host() is not first


def test_report_document_is_json_ready(fake_distributions):
    _install(fake_distributions, "broken-plugin", BROKEN_IMPORT)
    data = _host("broken-plugin").report().to_data()
    json.dumps(data)
    assert data["failures"][0]["name"] == "broken-plugin"
    assert data["plugins"][0]["components"][0] == {
        "kind": "formatter",
        "name": "json",
        "summary": "one JSON document on stdout",
    }


def test_every_registering_hook_collects_its_own_kind(register_plugin, swarm_host):
    class Gate:  # a QR gate policy is checked against its protocol like every other kind (issue 13)
        def blocking(self, iteration):
            return {"MUST"}

    class Everything:
        @hookimpl
        def swarm_handoff_discovery_sources(self, register):
            register("src", lambda: "source")

        @hookimpl
        def swarm_handoff_scorers(self, register):
            register("sc", lambda: "scorer")

        @hookimpl
        def swarm_handoff_payload_validators(self, register, register_adapter):
            register("val", lambda: "validator")
            register_adapter("9.0->9.1", lambda: "adapter")

        @hookimpl
        def swarm_handoff_qr_gates(self, register):
            register("gate", Gate)

        @hookimpl
        def swarm_handoff_transports(self, register):
            register("pigeon", lambda: "transport")

    register_plugin(Everything(), "everything")
    found = {
        kind: sorted(n for n, r in swarm_host.components(kind).items() if r.plugin == "everything") for kind in Kind
    }
    assert found == {
        Kind.SOURCE: ["src"],
        Kind.SCORER: ["sc"],
        Kind.VALIDATOR: ["val"],
        Kind.ADAPTER: ["9.0->9.1"],
        Kind.FORMATTER: [],
        Kind.QR_GATE: ["gate"],
        Kind.TRANSPORT: ["pigeon"],
    }
    assert isinstance(swarm_host.get(Kind.QR_GATE, "gate"), Gate)


def test_an_implementation_may_take_only_the_arguments_it_needs(register_plugin, swarm_host):
    class OnlyAdapters:
        @hookimpl
        def swarm_handoff_payload_validators(self, register_adapter):
            register_adapter("1.0->2.0", lambda: "adapter")

    register_plugin(OnlyAdapters(), "only-adapters")
    assert swarm_host.components(Kind.ADAPTER)["1.0->2.0"].plugin == "only-adapters"
    assert "only-adapters" not in {r.plugin for r in swarm_host.components(Kind.VALIDATOR).values()}
