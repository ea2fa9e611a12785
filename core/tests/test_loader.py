"""One loader: plugins and skill packs share controls, isolation and the `plugins` report (issue 13, point 3)."""

from __future__ import annotations

import json

import pytest

from swarm_handoff import loader, packs, plugins
from swarm_handoff.api import hookimpl
from swarm_handoff.components import Kind
from swarm_handoff.discovery import discover, make_context
from swarm_handoff.entrypoints import entry_points
from swarm_handoff.errors import ErrorCode, SwarmError
from swarm_handoff.plugin_hooks import PLUGIN_HOOK_OPTION_UNSUPPORTED

GROUP = loader.SKILLS_ENTRY_POINT_GROUP
SKILL_MD = "---\nname: review\ndescription: Review code.\nhandoff:\n  accepts_from: ['*']\n---\n# Review\n"


@pytest.fixture
def three_packs(fake_distributions):
    """A good pack (skill and workflow), one that fails to import, and one that is neither skill nor workflow."""
    fake_distributions.install(
        "review-pack",
        version="1.2",
        modules={
            "loaderreviewpack.skill": "from pathlib import Path\nSKILL_MD = Path(__file__).with_name('SKILL.md')\n"
        },
        files={"loaderreviewpack/SKILL.md": SKILL_MD},
        entry_points={GROUP: {"review": "loaderreviewpack.skill"}},
    )
    fake_distributions.install(
        "broken-pack",
        version="0.3",
        modules={"loaderbrokenpack.skill": "raise RuntimeError('no luck')\n"},
        entry_points={GROUP: {"broken": "loaderbrokenpack.skill"}},
    )
    fake_distributions.install(
        "empty-pack",
        modules={"loaderemptypack.skill": "X = 1\n"},
        entry_points={GROUP: {"empty": "loaderemptypack.skill"}},
    )


def names(candidates):
    return [c.name for c in candidates]


def test_packs_obey_the_plugin_controls_and_keep_their_own_names_as_aliases(three_packs):
    admitted, _ = loader.select(loader.PACKS, {}, entry_points(loader.PACKS.name))
    assert {"review", "broken", "empty"} <= set(names(admitted))

    kept, skipped = loader.select(loader.PACKS, {loader.ENV_LOAD: "review"}, entry_points(loader.PACKS.name))
    assert names(kept) == ["review"]
    assert {s.reason for s in skipped} == {f"not in {loader.ENV_LOAD}"}
    assert {s.kind for s in skipped} == {"pack"}

    kept, skipped = loader.select(loader.PACKS, {loader.ENV_DISABLE: "broken"}, entry_points(loader.PACKS.name))
    assert "broken" not in names(kept)
    assert [s.reason for s in skipped if s.name == "broken"] == [f"blocked by {loader.ENV_DISABLE}"]

    # The pack names of before: LOAD_PACKS takes the place of LOAD_PLUGINS for packs, DISABLE_PACKS adds.
    env = {loader.ENV_LOAD: "", loader.ENV_LOAD_PACKS: "review,broken", loader.ENV_DISABLE_PACKS: "broken"}
    kept, skipped = loader.select(loader.PACKS, env, entry_points(loader.PACKS.name))
    assert names(kept) == ["review"]
    assert [s.reason for s in skipped if s.name == "broken"] == [f"blocked by {loader.ENV_DISABLE_PACKS}"]


def test_the_plugin_allow_list_leaves_packs_out_unless_the_pack_alias_names_them(three_packs, monkeypatch, tmp_path):
    monkeypatch.delenv(loader.ENV_LOAD_PACKS)
    monkeypatch.setenv(loader.ENV_LOAD, "")
    plugins.reset_host()
    context = make_context(tmp_path, {"HOME": str(tmp_path)})
    assert discover(context, cache=False).named("review") is None
    monkeypatch.setenv(loader.ENV_LOAD_PACKS, "review")
    plugins.reset_host()
    assert discover(context, cache=False).named("review") is not None


def test_packs_follow_the_hosts_environment_not_the_process_one(three_packs, monkeypatch, tmp_path):
    monkeypatch.setenv(loader.ENV_LOAD_PACKS, "")  # the process (and its host) hides every pack ...
    host = plugins.build_host({loader.ENV_LOAD: "", loader.ENV_LOAD_PACKS: "review"})  # ... this host admits one
    assert plugins.get_host() is not host
    result = discover(make_context(tmp_path, {"HOME": str(tmp_path)}), host, cache=False)
    assert [r.name for r in result.workflows] == ["review"]
    source = host.get(Kind.SOURCE, "packs")
    assert source.cache_key(make_context(tmp_path, {})) == loader.policy_key(loader.PACKS, host.env)
    assert discover(make_context(tmp_path, {"HOME": str(tmp_path)}), cache=False).workflows == ()


def test_plugins_lists_packs_their_skills_and_their_failures(three_packs, make_swarm_host, swarm_cli):
    make_swarm_host(packs=("review", "broken", "empty", "missing"))
    result = swarm_cli("plugins", "--format", "json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    [pack] = [p for p in data["packs"] if p["distribution"] == "review-pack"]
    assert pack == {
        "distribution": "review-pack",
        "version": "1.2",
        "skills": [{"name": "review", "entry_point": "loaderreviewpack.skill", "provides": ["skill"]}],
    }
    failures = {f["name"]: f for f in data["failures"] if f["kind"] == "pack"}
    assert failures["broken"]["code"] == loader.PACK_LOAD_FAILED
    assert "no luck" in failures["broken"]["error"]
    assert failures["broken"]["distribution"] == "broken-pack"
    assert "DISABLE_PLUGINS=broken" in failures["broken"]["hint"]
    assert failures["empty"]["code"] == packs.PACK_NOT_A_SKILL

    core_alone = swarm_cli("plugins").stdout  # the core's own text layout shows them too
    assert "review-pack" in core_alone
    assert "PACK_LOAD_FAILED" in core_alone
    make_swarm_host(load=("formatters",), packs=("review", "broken"))
    text = swarm_cli("plugins").stdout
    assert "pack review-pack 1.2" in text
    assert "review (skill) - loaderreviewpack.skill" in text
    assert "pack broken (broken-pack 0.3): PACK_LOAD_FAILED" in text


def test_plugins_lists_the_packs_left_out(three_packs, make_swarm_host, swarm_cli, monkeypatch):
    make_swarm_host(packs=("review", "broken", "empty"))
    monkeypatch.setenv(loader.ENV_DISABLE, "broken")
    data = json.loads(swarm_cli("plugins", "--format", "json").stdout)
    skipped = {s["name"]: s for s in data["skipped"] if s["kind"] == "pack"}
    assert skipped["broken"]["reason"] == f"blocked by {loader.ENV_DISABLE}"
    assert "broken" not in {f["name"] for f in data["failures"]}


def test_strict_mode_fails_on_a_broken_pack_as_on_a_broken_plugin(three_packs, make_swarm_host):
    with pytest.raises(SwarmError) as caught:
        make_swarm_host(packs=("review", "broken"), strict=True)
    assert caught.value.code == ErrorCode.PLUGINS_STRICT
    assert "broken" in caught.value.message
    assert [f["code"] for f in caught.value.details["failures"]] == [loader.PACK_LOAD_FAILED]


def test_strict_mode_passes_with_good_packs(three_packs, make_swarm_host):
    host = make_swarm_host(packs=("review",), strict=True)
    assert host.pack_failures == []


def test_the_workflow_engine_and_skills_link_load_packs_through_the_same_controls(three_packs, make_swarm_host):
    from swarm_handoff.pack_files import installed_pack_skills as installed_skills
    from swarm_handoff.workflow.registry import load_registry

    make_swarm_host(packs=("review", "broken"))
    skills, problems = installed_skills()
    assert [s.name for s in skills] == ["review"]
    assert [p.code for p in problems] == [loader.PACK_LOAD_FAILED]
    registry = load_registry()
    assert registry.skipped == ("review",)  # a skill without a workflow
    assert [p.path for p in registry.problems] == ["broken"]


class WrapperScorer:
    """A scorer registered from a new-style wrapper: called directly, it would register nothing."""

    @hookimpl(wrapper=True)
    def swarm_handoff_scorers(self, register):
        register("wrapped", object)
        return (yield)


class FirstFormatter:
    """Asks to go first, to take the built-in `json` formatter's name; and offers one of its own."""

    @hookimpl(tryfirst=True)
    def swarm_handoff_formatters(self, register):
        register("json", object)
        register("first", object)


def test_a_wrapper_hookimpl_is_a_coded_problem_and_is_not_called(swarm_host, register_plugin):
    assert register_plugin(WrapperScorer(), "wrapper-plugin", distribution="wrap-dist", version="3")
    [failure] = [f for f in swarm_host.failures if f.code == PLUGIN_HOOK_OPTION_UNSUPPORTED]
    assert (failure.name, failure.distribution, failure.version) == ("wrapper-plugin", "wrap-dist", "3")
    assert "swarm_handoff_scorers" in failure.error
    assert "wrapper=True" in failure.error
    assert "not called" in failure.error
    assert "remove wrapper=True" in failure.hint
    assert "wrapped" not in swarm_host.components(Kind.SCORER)
    assert "swarm-v2" in swarm_host.components(Kind.SCORER)  # the others still register


def test_a_tryfirst_hookimpl_is_a_coded_problem_and_runs_in_load_order(swarm_host, register_plugin):
    assert register_plugin(FirstFormatter(), "first-plugin")
    [failure] = [f for f in swarm_host.failures if f.code == PLUGIN_HOOK_OPTION_UNSUPPORTED]
    assert "swarm_handoff_formatters is marked tryfirst=True" in failure.error
    assert "ignored" in failure.error
    formatters = swarm_host.components(Kind.FORMATTER)
    assert formatters["first"].plugin == "first-plugin"  # still called ...
    assert formatters["json"].plugin != "first-plugin"  # ... but after the built-ins: it cannot take their names
    assert ErrorCode.PLUGIN_NAME_CONFLICT.value in {f.code for f in swarm_host.failures}


def test_unhonoured_options_fail_a_strict_host(make_swarm_host):
    host = make_swarm_host(strict=True)
    host.add_plugin(FirstFormatter(), "first-plugin")
    with pytest.raises(SwarmError) as caught:
        host.raise_if_failed()
    assert "first-plugin" in caught.value.message


def test_the_plugin_cli_reports_an_option_it_does_not_honour(make_swarm_host, swarm_cli):
    host = make_swarm_host()

    class Commands:
        @hookimpl(hookwrapper=True)
        def swarm_handoff_cli(self, app):
            yield

    host.add_plugin(Commands(), "cli-wrapper")
    result = swarm_cli("plugins", "--format", "json")
    codes = {(f["name"], f["code"]) for f in json.loads(result.stdout)["failures"]}
    assert ("cli-wrapper", PLUGIN_HOOK_OPTION_UNSUPPORTED) in codes
