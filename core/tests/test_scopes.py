"""Scopes and merge roles as data: sources declare them, the core merges by them (issue 13, point 4)."""

from __future__ import annotations

import copy
import json
import pickle

import pytest
from source_plugins import source_plugin

from swarm_handoff.api import OVERLAY, Scope, ScopeSpec
from swarm_handoff.discovery import discover, make_context
from swarm_handoff.plugin_checks import check_order
from swarm_handoff.records import SkillRecord
from swarm_handoff.scopes import SCOPE_CONFLICT, SCOPE_INVALID


def test_the_five_scopes_keep_their_names_order_priorities_and_enum_manners():
    assert [(s.value, s.priority) for s in Scope] == [
        ("project", 1),
        ("git-root", 2),
        ("global", 3),
        ("installed", 4),
        ("registry", 5),
    ]
    assert Scope("project") is Scope.PROJECT
    assert Scope(Scope.GLOBAL) is Scope.GLOBAL
    assert Scope["GIT_ROOT"] is Scope.GIT_ROOT
    assert Scope.INSTALLED == "installed"
    assert str(Scope.REGISTRY) == "registry"
    assert f"{Scope.PROJECT}" == "project"
    assert repr(Scope.GIT_ROOT) == "<Scope.GIT_ROOT: 'git-root'>"
    assert pickle.loads(pickle.dumps(Scope.GLOBAL)) is Scope.GLOBAL
    assert copy.deepcopy(Scope.PROJECT) is Scope.PROJECT
    with pytest.raises(ValueError, match="not a declared scope"):
        Scope("nowhere")
    record = SkillRecord(name="a", scope="git-root", source="test")
    data = json.loads(json.dumps(record.to_data()))
    assert (data["scope"], data["priority"]) == ("git-root", 2)


def source(name, *records, scopes=None, priority=None):
    """A throwaway source: given records (name, scope, description) and an optional declaration."""

    def built():
        return [SkillRecord(name=n, scope=s, source=name, path=f"/{name}/{n}", description=d) for n, s, d in records]

    return source_plugin(name, built, scopes=scopes, priority=priority)


AGENTS = ScopeSpec("agents", 2.5)  # between git-root (2) and global (3), as the other agents' skill folders will be
NOTES = ScopeSpec("notes", 6, OVERLAY)


def run(tmp_path, host):
    return discover(make_context(tmp_path, {"HOME": str(tmp_path)}), host, show_all=True, cache=False)


def test_a_third_party_source_adds_a_scope_and_an_overlay_role_without_touching_the_core(
    swarm_host, register_plugin, tmp_path
):
    register_plugin(source("local", ("a", "project", "local a"), ("b", "global", "global b"), priority=1), "local")
    # No bare `priority`: the declaration alone places the source (and passes the protocol check).
    register_plugin(
        source("agents-folders", ("a", "agents", "a"), ("b", "agents", ""), ("c", "agents", "c"), scopes=(AGENTS,)),
        "agents",
    )
    register_plugin(source("notes", ("b", "notes", "from notes"), ("d", "notes", "alone"), scopes=(NOTES,)), "notes")

    result = run(tmp_path, swarm_host)
    winners = {r.name: r for r in result.workflows}
    assert winners["a"].scope == "project"  # project (1) beats agents (2.5)
    assert winners["b"].scope is Scope("agents")  # agents (2.5) beats global (3) ...
    assert winners["b"].description == "from notes"  # ... and the overlay-role entry fills in what it left empty
    assert winners["b"].meta["notes_entry"] == "/notes/b"
    assert winners["d"].scope == "notes"  # alone, an overlay entry stands as any record does
    assert [r.name for r in result.workflows] == ["a", "b", "c", "d"]
    shadowed = {(s.record.name, s.record.scope.value) for s in result.shadowed}
    assert shadowed == {("b", "global"), ("a", "agents")}
    assert not result.problems
    assert not swarm_host.failures
    data = result.to_data()
    assert [(w["skill"], w["scope"], w["priority"]) for w in data["workflows"]] == [
        ("a", "project", 1),
        ("b", "agents", 2.5),
        ("c", "agents", 2.5),
        ("d", "notes", 6),
    ]
    assert [s.value for s in Scope][:4] == ["project", "git-root", "agents", "global"]


def test_a_source_runs_at_its_most_local_declared_scope():
    class Legacy:
        priority = 7

    class Declared:
        priority = 99  # ignored: the declaration is the one ordering
        scopes = (ScopeSpec("global", 3), ScopeSpec("git-root", 2))

    assert check_order(Legacy()) == 7
    assert check_order(Declared()) == 2


def test_conflicting_or_bad_declarations_are_reported_and_discovery_goes_on(swarm_host, register_plugin, tmp_path):
    register_plugin(source("first", ("x", "agents", "x"), scopes=(AGENTS,)), "first", distribution="first-dist")
    register_plugin(
        source("second", ("y", "agents", "y"), scopes=(ScopeSpec("agents", 7, OVERLAY), ScopeSpec("project", 9))),
        "second",
        distribution="second-dist",
    )
    register_plugin(source("bad", scopes=(ScopeSpec("bad", 1, "merge"), "agents")), "bad")
    result = run(tmp_path, swarm_host)
    assert {r.name for r in result.workflows} == {"x", "y"}
    assert Scope("agents").priority == 2.5  # the first declaration is kept
    assert Scope.PROJECT.priority == 1  # the core's scopes are not redeclared
    failures = [f for f in swarm_host.failures if f.code in (SCOPE_CONFLICT, SCOPE_INVALID)]
    by_plugin = {}
    for failure in failures:
        by_plugin.setdefault(failure.name, []).append(failure)
    conflicts = by_plugin["second"]
    assert [f.code for f in conflicts] == [SCOPE_CONFLICT, SCOPE_CONFLICT]
    assert "but source 'first' declares precedence 2.5" in conflicts[0].error
    assert conflicts[0].distribution == "second-dist"
    assert "but the core (swarm-handoff-core) declares precedence 1" in conflicts[1].error
    assert conflicts[0].hint
    assert [f.code for f in by_plugin["bad"]] == [SCOPE_INVALID, SCOPE_INVALID]
    assert "role 'merge'" in by_plugin["bad"][0].error


def test_a_scope_a_previous_host_declared_is_taken_over_by_the_next(make_swarm_host, register_plugin, tmp_path):
    host = make_swarm_host()
    host.add_plugin(source("old", scopes=(ScopeSpec("temp", 8, OVERLAY),)), "old")
    run(tmp_path, host)
    assert (Scope("temp").priority, Scope("temp").role) == (8, OVERLAY)
    host = make_swarm_host()
    host.add_plugin(source("new", scopes=(ScopeSpec("temp", 0.5),)), "new")
    run(tmp_path, host)
    assert (Scope("temp").priority, Scope("temp").role) == (0.5, "shadow")
    assert not host.failures
