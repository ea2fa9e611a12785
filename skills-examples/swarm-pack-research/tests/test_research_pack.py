"""The pack installs its skill through an entry point; the shipped SKILL.md is a spec-conformant target."""

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


def test_the_shipped_skill_md_declares_its_handoff_in_the_spec_conformant_metadata_form():
    skill_md = _entry_point().load().SKILL_MD
    text = skill_md.read_text(encoding="utf-8")
    front = text.split("\n---\n", 1)[0].removeprefix("---\n")
    meta = parse_yaml(front)
    assert meta["name"] == "evidence-review" == skill_md.parent.name  # the spec: the folder is the name
    assert set(meta) <= {"name", "description", "license", "allowed-tools", "metadata", "compatibility"}
    handoff = meta["metadata"]
    assert all(isinstance(value, str) for value in handoff.values())  # the spec: text values only
    assert handoff["accepts-from"] == "*"
    assert handoff["handoff-categories"] == "research, analysis"
    assert handoff["handoff-trigger"] == "--handoff {payload_path}"
    assert handoff["handoff-schema-version"] == "2.0"  # it reads v2.0 payloads, as before the move
    assert handoff["handoff-requires"] == "context.original_prompt, context.problem_type"
    assert "research_seeds.open_questions" in handoff["optional-consumes"]
    assert len(meta["description"]) <= 1024


def test_discovery_reads_it_as_the_target_it_was():
    from swarm_handoff.api import record_from_frontmatter

    text = _entry_point().load().SKILL_MD.read_text(encoding="utf-8")
    data = parse_yaml(text.split("\n---\n", 1)[0].removeprefix("---\n"))
    record = record_from_frontmatter(data, name="evidence-review", scope="installed", source="packs", path=None)
    assert record.eligible
    assert record.accepts_from == ("*",)
    assert record.categories == ("research", "analysis")
    assert record.schema_version == "2.0"  # hand-offs to it still carry a v2.0 payload
    assert record.requires == ("context.original_prompt", "context.problem_type")  # `handoff` checks them
    assert "insights.uncertainties" in record.optional_consumes
