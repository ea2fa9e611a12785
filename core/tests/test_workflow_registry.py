"""Workflows from skill packs: entry points, one workflow each, broken packs reported, not fatal."""

from __future__ import annotations

import os

import pytest

from swarm_handoff.errors import SwarmError
from swarm_handoff.loader import ENV_LOAD_PACKS
from swarm_handoff.plugins import SKILLS_ENTRY_POINT_GROUP, build_host, reset_host, set_host
from swarm_handoff.workflow import get_registry, load_registry, reset_registry

MODULE = """
from swarm_handoff.workflow import Outcome, StepDef, Workflow

def ok(ctx):
    return Outcome.OK, {{}}

WORKFLOW = Workflow(
    "{name}",
    StepDef("start", "Start", ["begin"], ok, {{Outcome.OK: "end"}}),
    StepDef("end", "End", ["finish"], next={{Outcome.OK: None}}),
    description="{name} from a pack",
)
"""
INVALID = """
from swarm_handoff.workflow import Outcome, StepDef, Workflow

WORKFLOW = Workflow("broken-flow", StepDef("start", next={Outcome.OK: "missing"}))
"""


def install(fake, dist, ep_name, value, modules):
    fake.install(dist, entry_points={SKILLS_ENTRY_POINT_GROUP: {ep_name: value}}, modules=modules)


@pytest.fixture
def packs(fake_distributions):
    install(
        fake_distributions,
        "pack-module",
        "alpha",
        "alpha_pack.skill",
        {"alpha_pack.skill": MODULE.format(name="alpha")},
    )
    install(
        fake_distributions,
        "pack-object",
        "beta",
        "beta_pack.skill:WORKFLOW",
        {"beta_pack.skill": MODULE.format(name="beta")},
    )
    install(fake_distributions, "pack-meta", "gamma", "gamma_pack", {"gamma_pack": "# SKILL.md metadata only\n"})
    install(fake_distributions, "pack-import", "delta", "delta_pack", {"delta_pack": "import no_such_module\n"})
    install(fake_distributions, "pack-invalid", "epsilon", "eps_pack", {"eps_pack": INVALID})
    install(fake_distributions, "pack-wrong", "zeta", "zeta_pack", {"zeta_pack": "WORKFLOW = 'not a workflow'\n"})
    return fake_distributions


def test_both_entry_point_forms_register_one_workflow_each(packs):
    registry = load_registry()
    assert {"alpha", "beta"} <= set(registry.names)  # other installed packs may add more
    assert registry.workflows["alpha"].distribution == "pack-module"
    assert registry.workflows["beta"].entry_point == "beta"


def test_metadata_only_entry_points_are_skipped_quietly(packs):
    registry = load_registry()
    assert "gamma" in registry.skipped
    assert not any(p.path == "gamma" for p in registry.problems)


def test_broken_packs_are_problems_naming_their_distribution(packs):
    problems = {p.path: p for p in load_registry().problems}
    assert problems["delta"].code == "WORKFLOW_LOAD_FAILED"
    assert "pack-import" in problems["delta"].message
    assert "no_such_module" in problems["delta"].message
    assert problems["epsilon"].code == "WORKFLOW_INVALID"
    assert "'missing'" in " ".join(p.message for p in load_registry().problems if p.path == "epsilon")
    assert "not a Workflow" in problems["zeta"].message


def test_the_same_workflow_name_from_two_packs_keeps_the_first(fake_distributions):
    install(fake_distributions, "first-pack", "a-first", "first_pack", {"first_pack": MODULE.format(name="same")})
    install(fake_distributions, "second-pack", "b-second", "second_pack", {"second_pack": MODULE.format(name="same")})
    registry = load_registry()
    assert registry.workflows["same"].distribution == "first-pack"
    [problem] = [p for p in registry.problems if p.path == "same"]
    assert "also offered by first-pack" in problem.message


LAZY = """
def __getattr__(name):
    if name == "WORKFLOW":
        {body}
    raise AttributeError(name)
"""


def test_a_workflow_built_on_first_use_registers_and_its_failures_are_problems(fake_distributions):
    # Packs build WORKFLOW in a module __getattr__ so that discovery's import stays cheap; the
    # registry looks the attribute up inside its try, so a lazily raised error is still a problem.
    lazy_ok = "from lazy_ok_impl import WORKFLOW\n        return WORKFLOW"
    install(fake_distributions, "lazy-ok", "lazy-ok", "lazy_ok", {"lazy_ok": LAZY.format(body=lazy_ok)})
    fake_distributions.install("lazy-ok-impl", modules={"lazy_ok_impl": MODULE.format(name="lazy-ok")})
    lazy_bad = "from lazy_bad_impl import WORKFLOW\n        return WORKFLOW"
    install(fake_distributions, "lazy-bad", "lazy-bad", "lazy_bad", {"lazy_bad": LAZY.format(body=lazy_bad)})
    fake_distributions.install("lazy-bad-impl", modules={"lazy_bad_impl": INVALID})
    lazy_crash = "raise RuntimeError('no workflow today')"
    install(fake_distributions, "lazy-crash", "lazy-crash", "lazy_crash", {"lazy_crash": LAZY.format(body=lazy_crash)})
    registry = load_registry()
    assert registry.workflows["lazy-ok"].distribution == "lazy-ok"
    problems = {p.path: p for p in registry.problems}
    assert problems["lazy-bad"].code == "WORKFLOW_INVALID"
    assert problems["lazy-crash"].code == "WORKFLOW_LOAD_FAILED"
    assert "no workflow today" in problems["lazy-crash"].message


def test_the_registry_is_cached_and_resettable(packs):
    from swarm_handoff.workflow import reset_registry

    first = get_registry()
    assert get_registry() is first
    reset_registry()
    assert get_registry() is not first


def test_the_registry_reads_packs_under_the_settings_its_caller_hands_in(packs):
    # Plugins and packs share one set of settings: the caller passes the host's, not the registry's guess.
    only_alpha = {**os.environ, ENV_LOAD_PACKS: "alpha"}
    assert "beta" not in load_registry(env=only_alpha).names
    assert "alpha" in load_registry(env=only_alpha).names
    reset_registry()
    try:
        assert "beta" not in get_registry(env=only_alpha).names  # the process-wide one, loaded on first use
    finally:
        reset_registry()


def test_the_workflow_commands_see_the_packs_the_host_admits(packs, swarm_cli):
    # The process environment admits every pack; the host this run uses was built to admit one.
    reset_registry()
    set_host(build_host({**os.environ, ENV_LOAD_PACKS: "alpha"}))
    try:
        listed = swarm_cli("workflow", "list", "--format", "json").json()
    finally:
        reset_host()
        reset_registry()
    names = {w["name"] for w in listed["workflows"]}
    assert "alpha" in names
    assert "beta" not in names


def test_unknown_workflow_names_the_available_ones(packs):
    with pytest.raises(SwarmError) as caught:
        load_registry().get("omega")
    assert caught.value.code == "WORKFLOW_NOT_FOUND"
    assert {"alpha", "beta"} <= set(caught.value.details["available"])


def test_cli_list_show_check_and_graph_see_installed_packs(packs, swarm_cli):
    listing = swarm_cli("workflow", "list", "--format", "json")
    assert listing.exit_code == 0
    assert {"alpha", "beta"} <= {w["name"] for w in listing.json()["workflows"]}
    assert "warning: WORKFLOW_LOAD_FAILED" in listing.stderr

    show = swarm_cli("workflow", "show", "alpha", "--format", "json").json()
    assert [s["id"] for s in show["steps"]] == ["start", "end"]
    assert show["steps"][0]["next"] == {"ok": "end"}

    checked = swarm_cli("workflow", "check", "alpha", "--format", "json").json()
    assert checked == {"valid": True, "checked": ["alpha"], "cases_run": False}
    failed = swarm_cli("workflow", "check", "--format", "json")
    assert failed.exit_code == 1
    codes = {p["code"] for p in failed.json()["error"]["problems"] if p["path"] in {"delta", "epsilon", "zeta"}}
    assert codes == {"WORKFLOW_LOAD_FAILED", "WORKFLOW_INVALID"}
    assert swarm_cli("workflow", "check", "epsilon").exit_code == 1

    graph = swarm_cli("workflow", "graph", "beta", "--as", "dot")
    assert graph.exit_code == 0
    assert graph.stdout.startswith('digraph "beta"')


def test_loading_never_touches_sys_path(packs, monkeypatch):
    import sys

    before = list(sys.path)
    load_registry()
    assert sys.path == before
