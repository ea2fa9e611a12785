"""Merging sources: priority wins a name, ineligible records never hide eligible ones, nothing lost."""

from __future__ import annotations

from swarm_handoff.api import hookimpl
from swarm_handoff.discovery import config_dir, discover, make_context, merge
from swarm_handoff.records import Scope, SkillRecord, SourceResult


def rec(name, scope, eligible=True, source="test"):
    return SkillRecord(name=name, scope=scope, source=source, path=f"/{scope}/{name}", eligible=eligible)


def test_a_more_local_scope_shadows_and_the_loser_is_kept():
    result = merge(
        [("a", SourceResult(records=(rec("x", "global"), rec("x", "project"), rec("y", "global")), scanned=3))]
    )
    assert [(r.name, r.scope) for r in result.workflows] == [("x", Scope.PROJECT), ("y", Scope.GLOBAL)]
    [shadow] = result.shadowed
    assert shadow.record.scope == Scope.GLOBAL
    assert shadow.to_data()["shadowed_by"] == "/project/x"
    assert result.scanned == 3


def test_an_ineligible_local_skill_does_not_hide_an_eligible_global_one():
    result = merge([("a", SourceResult(records=(rec("x", "project", eligible=False), rec("x", "global"))))])
    assert [r.scope for r in result.workflows] == [Scope.GLOBAL]
    assert [r.scope for r in result.ineligible] == [Scope.PROJECT]


def test_workflows_are_ordered_by_priority_then_name():
    records = (rec("b", "installed"), rec("a", "installed"), rec("z", "project"), rec("m", "registry"))
    names = [r.name for r in merge([("s", SourceResult(records=records))]).workflows]
    assert names == ["z", "a", "b", "m"]


def test_discover_runs_registered_sources_and_survives_a_raising_one(swarm_host, register_plugin, tmp_path):
    class Good:
        priority = 1

        def discover(self, context):
            return SourceResult(records=(rec("found", "project"),), scanned=1)

    class Bad:
        priority = 0

        def discover(self, context):
            raise OSError("disk on fire")

    class Plugin:
        @hookimpl
        def swarm_handoff_discovery_sources(self, register):
            register("good", Good)
            register("bad", Bad)

    register_plugin(Plugin(), "sources")
    result = discover(make_context(tmp_path, {"HOME": str(tmp_path)}), swarm_host)
    assert [r.name for r in result.workflows] == ["found"]
    [problem] = result.problems
    assert problem.code == "SOURCE_FAILED"
    assert "disk on fire" in problem.message


def test_config_dir_prefers_claude_config_dir(tmp_path):
    assert config_dir({"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg"), "HOME": "/nope"}) == tmp_path / "cfg"
    assert config_dir({"HOME": str(tmp_path)}) == tmp_path / ".claude"


def test_a_registry_entry_fills_blanks_of_a_local_skill_and_the_local_fields_win():
    local = SkillRecord(
        name="x", scope="global", source="frontmatter", path="/g/x/SKILL.md", categories=("local",), meta={"a": 1}
    )
    registry = SkillRecord(
        name="x",
        scope="registry",
        source="registry",
        path="/reg",
        categories=("remote",),
        output_types=("report",),
        trigger="--handoff {payload_path}",
        meta={"a": 2, "complexity": "high"},
    )
    remote = SkillRecord(name="far", scope="registry", source="registry", categories=("r",))
    result = merge([("f", SourceResult(records=(local,))), ("r", SourceResult(records=(registry, remote)))])
    merged = result.named("x")
    assert merged.scope is Scope.GLOBAL
    assert merged.path == "/g/x/SKILL.md"
    assert merged.categories == ("local",)
    assert merged.output_types == ("report",)
    assert merged.trigger == "--handoff {payload_path}"
    assert merged.meta["a"] == 1
    assert merged.meta["complexity"] == "high"
    assert result.shadowed == ()
    assert result.named("far").scope is Scope.REGISTRY
