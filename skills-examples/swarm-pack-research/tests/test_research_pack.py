"""The pack installs its skill through an entry point, and the shipped SKILL.md is a valid v2.0 skill."""

from __future__ import annotations

import importlib_metadata

from swarm_handoff.api import parse_yaml


def _entry_point():
    [ep] = [ep for ep in importlib_metadata.entry_points(group="swarm_handoff.skills") if ep.name == "evidence-review"]
    return ep


def test_the_skill_is_registered_by_an_entry_point_of_this_distribution():
    ep = _entry_point()
    assert ep.dist.metadata["Name"] == "swarm-pack-research"
    assert ep.value == "swarm_pack_research.evidence_review"


def test_the_shipped_skill_md_has_a_complete_v2_handoff_block():
    text = _entry_point().load().SKILL_MD.read_text(encoding="utf-8")
    front = text.split("\n---\n", 1)[0].removeprefix("---\n")
    meta = parse_yaml(front)
    assert meta["name"] == "evidence-review"
    handoff = meta["handoff"]
    assert handoff["accepts_handoff"] is True
    assert handoff["handoff_categories"] == ["research", "analysis"]
    assert handoff["handoff_trigger"] == "--handoff {payload_path}"
    assert handoff["requires"] == ["context.original_prompt", "context.problem_type"]
    assert "research_seeds.open_questions" in handoff["optional_consumes"]
    assert len(meta["description"]) <= 1024
