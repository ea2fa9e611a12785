"""Skill packs: pip-installed distributions registering skills in the `swarm_handoff.skills` group."""

from __future__ import annotations

import os

from swarm_handoff import packs
from swarm_handoff.discovery import discover, discover_detailed, make_context
from swarm_handoff.plugins import SKILLS_ENTRY_POINT_GROUP
from swarm_handoff.records import Scope

SKILL_MD = """---
name: review
description: Review code.
handoff:
  accepts_from: ["*"]
  schema_version: "3.0"
  schema_type: universal
categories: [verification]
---
# Review
"""

MODULE_WITH_SKILL_MD = """
from importlib.resources import files

SKILL_MD = files("reviewpack") / "review" / "SKILL.md"
"""

MODULE_WITH_MAPPING = """
SKILL = {
    "description": "Plan things.",
    "handoff": {"accepts_handoff": True, "handoff_categories": "planning", "handoff_description": "Plan it"},
}
WORKFLOW = object()
"""


def install_review(fake_distributions, name="review-pack", version="1.2"):
    fake_distributions.install(
        name,
        version=version,
        modules={"reviewpack.skill": MODULE_WITH_SKILL_MD},
        files={"reviewpack/review/SKILL.md": SKILL_MD},
        entry_points={SKILLS_ENTRY_POINT_GROUP: {"review": "reviewpack.skill"}},
    )


def run(tmp_path, host):
    return discover(make_context(tmp_path, {"HOME": str(tmp_path / "home")}), host)


def test_a_packaged_skill_md_is_an_installed_workflow(fake_distributions, swarm_host, tmp_path):
    install_review(fake_distributions)
    result = run(tmp_path, swarm_host)
    [record] = result.workflows
    assert (record.name, record.scope, record.priority, record.source) == ("review", Scope.INSTALLED, 4, "packs")
    assert record.categories == ("verification",)
    assert record.meta["distribution"] == "review-pack"
    assert record.meta["distribution_version"] == "1.2"
    assert record.path is not None
    assert record.path.endswith("SKILL.md")


def test_a_metadata_mapping_and_a_package_with_skill_md_beside_init(fake_distributions, swarm_host, tmp_path):
    fake_distributions.install(
        "misc-pack",
        modules={"misc.planner": MODULE_WITH_MAPPING, "misc.pkgskill.impl": "X = 1\n"},
        files={"misc/pkgskill/SKILL.md": SKILL_MD},
        entry_points={SKILLS_ENTRY_POINT_GROUP: {"planner": "misc.planner", "pkgskill": "misc.pkgskill"}},
    )
    result = run(tmp_path, swarm_host)
    by_name = {r.name: r for r in result.workflows}
    assert by_name["planner"].categories == ("planning",)
    assert by_name["planner"].legacy
    assert by_name["planner"].path is None
    assert by_name["pkgskill"].schema_type == "universal"


def test_a_broken_entry_point_is_reported_and_the_others_load(fake_distributions, swarm_host, tmp_path):
    install_review(fake_distributions)
    fake_distributions.install(
        "broken-pack",
        version="0.3",
        modules={"brokenpack.skill": "raise RuntimeError('no luck')\n"},
        entry_points={SKILLS_ENTRY_POINT_GROUP: {"broken": "brokenpack.skill"}},
    )
    result = run(tmp_path, swarm_host)
    assert [r.name for r in result.workflows] == ["review"]
    [problem] = result.problems
    assert problem.code == packs.PACK_LOAD_FAILED
    for fragment in ("'broken'", "broken-pack", "0.3", "no luck"):
        assert fragment in problem.message


def test_a_broken_pack_makes_the_answer_uncacheable(fake_distributions, swarm_host, tmp_path):
    # Fixing the pack's code in place touches nothing discovery stats, so a cached "broken" answer
    # would outlive the fix: such an answer is never stored.
    fake_distributions.install(
        "broken-pack",
        modules={"brokenpack.skill": "raise RuntimeError('no luck')\n"},
        entry_points={SKILLS_ENTRY_POINT_GROUP: {"broken": "brokenpack.skill"}},
    )
    context = make_context(tmp_path, {"HOME": str(tmp_path / "home")})
    assert discover_detailed(context, swarm_host)[1] is None


def test_the_answer_rests_on_each_pack_module_and_every_path_entry(fake_distributions, swarm_host, tmp_path):
    import sys

    install_review(fake_distributions)
    context = make_context(tmp_path, {"HOME": str(tmp_path / "home")})
    _, inputs = discover_detailed(context, swarm_host)
    observed = {path for path, *_ in inputs}
    assert sys.modules["reviewpack.skill"].__file__ in observed  # an editable pack edited in place
    assert {os.path.abspath(p) for p in sys.path} <= observed  # a distribution added to any entry


def test_workflow_only_entries_are_left_to_the_workflow_engine(fake_distributions, swarm_host, tmp_path):
    fake_distributions.install(
        "flow-pack",
        modules={"flowpack.flow": "WORKFLOW = {'steps': []}\n", "flowpack.nothing": "X = 1\n"},
        entry_points={SKILLS_ENTRY_POINT_GROUP: {"flow": "flowpack.flow", "nothing": "flowpack.nothing"}},
    )
    result = run(tmp_path, swarm_host)
    assert result.workflows == ()
    assert [p.code for p in result.problems] == [packs.PACK_NOT_A_SKILL]
    assert "'nothing'" in result.problems[0].message


def test_a_project_skill_shadows_an_installed_one(fake_distributions, swarm_host, register_plugin, tmp_path):
    from swarm_handoff.api import hookimpl
    from swarm_handoff.records import SkillRecord, SourceResult

    class Local:
        priority = 1

        def discover(self, context):
            record = SkillRecord(name="review", scope="project", source="local", path="/p/review/SKILL.md")
            return SourceResult(records=(record,), scanned=1)

    class Plugin:
        @hookimpl
        def swarm_handoff_discovery_sources(self, register):
            register("local", Local)

    install_review(fake_distributions)
    register_plugin(Plugin(), "local")
    result = run(tmp_path, swarm_host)
    assert [(r.name, r.scope) for r in result.workflows] == [("review", Scope.PROJECT)]
    [shadowed] = result.shadowed
    assert shadowed.record.scope is Scope.INSTALLED
    assert shadowed.to_data()["shadowed_by"] == "/p/review/SKILL.md"


def test_a_bad_packaged_skill_md_is_an_ineligible_record(fake_distributions, swarm_host, tmp_path):
    fake_distributions.install(
        "bad-pack",
        modules={"badpack.skill": "from importlib.resources import files\nSKILL_MD = files('badpack') / 'SKILL.md'\n"},
        files={"badpack/SKILL.md": "---\ndescription: Use when: broken\n---\n"},
        entry_points={SKILLS_ENTRY_POINT_GROUP: {"bad": "badpack.skill"}},
    )
    result = discover(make_context(tmp_path, {"HOME": str(tmp_path)}), swarm_host, show_all=True)
    [record] = result.ineligible
    assert [p.code for p in record.problems] == ["SKILL_UNQUOTED_COLON"]
