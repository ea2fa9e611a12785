"""The metadata form carries every field the example packs declared in their `handoff:` blocks.

`handoff-requires`, `optional-consumes` and `handoff-schema-type` let a spec-conformant SKILL.md say
what a v2.0 `requires`/`optional_consumes` or a v3.0 `schema_type` said, so moving a skill to the
metadata form keeps its hand-off behaviour (issue 18: the example packs pass `agentskills validate`).
"""

from __future__ import annotations

from swarm_handoff.eligibility import target_version
from swarm_handoff.lint_spec import spec_problems
from swarm_handoff.metadata import record_from_frontmatter
from swarm_handoff.payload.targeting import requirements

METADATA = {
    "accepts-from": "*",
    "handoff-categories": "research, analysis",
    "handoff-schema-version": "2.0",
    "handoff-schema-type": "universal",
    "handoff-requires": "context.original_prompt, context.problem_type",
    "optional-consumes": "insights.uncertainties",
}


def test_the_new_keys_fill_the_record_fields_the_block_filled() -> None:
    record = record_from_frontmatter(
        {"name": "r", "description": "Reviews.", "metadata": METADATA},
        name="r",
        scope="project",
        source="test",
        path=None,
    )
    assert record.eligible
    assert record.requires == ("context.original_prompt", "context.problem_type")
    assert record.optional_consumes == ("insights.uncertainties",)
    assert record.schema_type == "universal"
    assert target_version(record) == "2.0"  # a hand-off to it carries the payload version it reads


def test_handoff_checks_the_required_paths_of_a_metadata_form_target() -> None:
    record = record_from_frontmatter(
        {"name": "r", "description": "Reviews.", "metadata": METADATA}, name="r", scope="project", source="t", path=None
    )
    missing, notes = requirements(record, {"handoff": {"context": {"original_prompt": "Why?"}}})
    assert missing == ["context.problem_type"]
    assert notes == ["r can use insights.uncertainties (optional_consumes), which this payload does not carry"]


def test_the_new_keys_are_spec_conformant_and_their_near_misses_get_a_did_you_mean() -> None:
    assert spec_problems({"name": "r", "description": "d", "metadata": METADATA}, "r", "/x/SKILL.md") == []
    found = spec_problems({"name": "r", "description": "d", "metadata": {"optional_consumes": "x"}}, "r", "/x")
    assert [(p.code, "optional-consumes" in p.message) for p in found] == [("HANDOFF_DID_YOU_MEAN", True)]
