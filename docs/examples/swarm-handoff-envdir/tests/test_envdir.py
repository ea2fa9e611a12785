"""Tests of the example discovery source, written with the core's testing kit and `swarm_handoff.api` only."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from swarm_handoff.api import CachedSource, LocatingSource, discover, explain, make_context
from swarm_handoff.testing import write_skill
from swarm_handoff_envdir.source import ENV_VAR, EnvDirSource

GUIDE = Path(__file__).resolve().parents[3] / "plugin-guide-source.md"


@pytest.fixture
def world(tmp_path: Path, temp_home, make_swarm_host, trust_fresh_files, monkeypatch):
    """A project with no skills, a folder of team skills, a home of its own and a host with only this plugin."""
    team = tmp_path / "team"
    for name in ("review", "triage"):
        write_skill(team, name, f"{name} v1")
    project = tmp_path / "project"
    project.mkdir()
    env = {**temp_home.env, ENV_VAR: str(team)}
    runs = []
    real = EnvDirSource.discover
    monkeypatch.setattr(EnvDirSource, "discover", lambda self, context: runs.append(1) or real(self, context))
    return {"team": team, "project": project, "env": env, "host": make_swarm_host(["envdir"]), "runs": runs}


def found(world, **env):
    context = make_context(world["project"], {**world["env"], **env})
    return {r.name: r.description for r in discover(context, world["host"]).workflows}


def test_it_has_both_capabilities():
    assert isinstance(EnvDirSource(), CachedSource)
    assert isinstance(EnvDirSource(), LocatingSource)


def test_it_finds_the_skills_of_the_folder_and_nothing_without_the_variable(world):
    assert found(world) == {"review": "review v1", "triage": "triage v1"}
    assert found(world, **{ENV_VAR: ""}) == {}
    assert found(world, **{ENV_VAR: str(world["team"] / "absent")}) == {}


def test_an_unchanged_folder_is_answered_from_the_cache(world):
    found(world)
    found(world)
    assert len(world["runs"]) == 1  # the second answer was the stored one: the source did not run


def test_a_changed_skill_invalidates_the_cached_answer(world):
    found(world)
    write_skill(world["team"], "review", "review v2, now longer")
    assert found(world)["review"] == "review v2, now longer"
    assert len(world["runs"]) == 2


def test_an_added_skill_folder_and_another_folder_are_seen(world):
    found(world)
    write_skill(world["team"], "plan", "plan v1")
    assert "plan" in found(world)
    other = world["team"].parent / "other"
    write_skill(other, "solo", "solo v1")
    assert found(world, **{ENV_VAR: str(other)}) == {"solo": "solo v1"}  # the cache key changed


def test_why_shows_where_it_looked_and_what_it_found(world):
    context = make_context(world["project"], world["env"])
    [step] = [s for s in explain("review", context, world["host"]).looked if s["source"] == "envdir"]
    assert step["where"] == str(world["team"] / "review" / "SKILL.md")
    assert step["status"] == "chosen"
    (world["team"] / "review" / "SKILL.md").write_text("---\nname: review\ndescription: no handoff\n---\n")
    [step] = [s for s in explain("review", context, world["host"]).looked if s["source"] == "envdir"]
    assert step["status"] == "not eligible"
    [step] = [s for s in explain("nope", context, world["host"]).looked if s["source"] == "envdir"]
    assert step["status"] == "not present"


def test_why_through_the_cli(world, swarm_cli):
    result = swarm_cli("why", "triage", "--cwd", str(world["project"]), "--format", "json", env=world["env"])
    assert result.exit_code == 0, result.stderr
    assert str(world["team"] / "triage" / "SKILL.md") in result.stdout


def test_the_guide_shows_this_code_exactly():
    """Every block of docs/plugin-guide-source.md marked `<!-- file: PATH -->` is that file, whole."""
    root = GUIDE.parents[1]
    blocks = re.findall(r"<!-- file: (\S+) -->\n```\w*\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    example = "docs/examples/swarm-handoff-envdir/"
    assert {path for path, _ in blocks} >= {f"{example}src/swarm_handoff_envdir/{m}.py" for m in ("source", "plugin")}
    for path, text in blocks:
        assert (root / path).read_text(encoding="utf-8") == text, f"update the block quoting {path}"


def test_its_skills_carry_the_scope_it_declares(world):
    """The source declares `envdir` (3.2): after your own global skills, before installed packs."""
    context = make_context(world["project"], world["env"])
    records = {r.name: r for r in discover(context, world["host"]).workflows}
    assert (records["review"].scope, records["review"].priority) == ("envdir", 3.2)
