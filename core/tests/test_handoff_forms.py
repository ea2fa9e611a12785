"""Issue 18, point 2: hand-off metadata in the forms that exist (`metadata:` keys, the `handoffs:` list)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from swarm_handoff.api import hookimpl
from swarm_handoff.discovery import discover, make_context
from swarm_handoff.errors import SwarmError
from swarm_handoff.handoff_edges import receive_named
from swarm_handoff.metadata import record_from_frontmatter
from swarm_handoff.payload.lifecycle import HandoffOptions, hand_off
from swarm_handoff.records import DiscoveryContext, SkillRecord, SourceResult
from swarm_handoff.skillmd import load_skill_md

CLARIFY = """---
name: speckit-clarify
description: Ask the questions a spec leaves open.
handoffs:
  - label: Build a plan
    agent: speckit.plan
    prompt: Create a plan for the spec.
    send: true
  - label: Nowhere
    agent: not-installed
---
Body.
"""
PLAN = "---\nname: speckit-plan\ndescription: Turn a spec into a plan.\n---\nBody.\n"
SYNTHESIS = "original_prompt: Plan the loader.\nproblem_type: strategic\nsynthesis_summary: Do it.\n"


def build(data: dict[str, object], name: str = "s") -> SkillRecord:
    return record_from_frontmatter(data, name=name, scope="project", source="test", path="/x/SKILL.md")


def codes(record: SkillRecord) -> list[str]:
    return [p.code for p in record.problems]


def test_metadata_form_is_eligible_with_comma_separated_lists() -> None:
    record = build(
        {
            "description": "Reviews code.",
            "metadata": {
                "accepts-from": "*",
                "handoff-categories": "review, analysis",
                "provides-to": "fixer",
                "input-requirements": "context.original_prompt",
                "handoff-schema-version": "3.0",
            },
        }
    )
    assert record.eligible
    assert not record.legacy
    assert (record.accepts_from, record.categories, record.provides_to) == (("*",), ("review", "analysis"), ("fixer",))
    assert (record.protocol_version, record.schema_version, record.description) == ("3.0", "3.0", "Reviews code.")
    assert record.input_requirements == ("context.original_prompt",)


def test_metadata_form_without_accepts_from_says_which_key_is_missing() -> None:
    record = build({"description": "x", "metadata": {"handoff-categories": "review"}})
    assert not record.eligible
    assert codes(record) == ["HANDOFF_NO_ACCEPT_FIELD"]
    assert "accepts-from" in (record.problems[0].hint or "")


def test_metadata_without_handoff_keys_is_still_absent() -> None:
    record = build({"description": "x", "metadata": {"author": "me"}})
    assert codes(record) == ["HANDOFF_ABSENT"]


def test_handoff_block_wins_over_the_metadata_form() -> None:
    record = build({"description": "x", "handoff": {"accepts_from": ["a"]}, "metadata": {"accepts-from": "*"}})
    assert record.accepts_from == ("a",)


def test_handoffs_list_becomes_outgoing_edges_with_labels_and_prompts() -> None:
    data = {
        "description": "x",
        "handoff": {"accepts_from": ["*"], "provides_to": ["b"]},
        "handoffs": [{"label": "Go", "agent": "a.b", "prompt": "Do it", "send": True}, {"label": "no agent"}],
    }
    record = build(data)
    assert record.provides_to == ("b", "a.b")
    assert record.meta["handoffs"] == [{"agent": "a.b", "label": "Go", "prompt": "Do it", "send": True}]
    assert "HANDOFF_BAD_FIELD" in codes(record)  # the entry without an agent, named by its number


def test_handoffs_not_a_list_is_a_warning_not_a_crash() -> None:
    record = build({"description": "x", "handoffs": "speckit.plan"})
    assert record.provides_to == ()
    assert "HANDOFF_BAD_FIELD" in codes(record)


def test_named_target_without_metadata_receives_from_its_namer_only() -> None:
    sender = build({"description": "x", "handoffs": [{"agent": "t.x", "prompt": "p"}]}, name="s")
    target = build({"description": "y"}, name="t-x")
    out = {r.name: r for r in receive_named([sender, target])}
    assert out["t-x"].eligible
    assert out["t-x"].accepts_from == ("s",)
    assert codes(out["t-x"]) == ["HANDOFF_NAMED"]
    assert out["t-x"].meta["handoffs_in"][0]["prompt"] == "p"
    assert not out["s"].eligible  # naming others does not make the sender a target


def test_named_target_with_its_own_metadata_keeps_it() -> None:
    sender = build({"description": "x", "handoffs": [{"agent": "t"}]}, name="s")
    declared = build({"description": "y", "handoff": {"accepts_from": ["other"]}}, name="t")
    refused = build({"description": "y", "handoff": {"accepts_handoff": False}}, name="u")
    sender2 = build({"description": "x", "handoffs": [{"agent": "u"}]}, name="s2")
    out = {r.name: r for r in receive_named([sender, declared, refused, sender2])}
    assert out["t"].accepts_from == ("other",)
    assert not out["u"].eligible  # an explicit "no" is not overruled


def test_records_without_handoffs_pass_through_unchanged() -> None:
    records = [build({"description": "x"}, name="a")]
    assert receive_named(records) is records


@pytest.fixture
def spec_kit(tmp_path: Path, register_plugin: Any) -> dict[str, Path]:
    """Two spec-kit skills read from their SKILL.md files (one hands off to the other), a session, a synthesis."""
    paths = []
    for name, text in (("speckit-clarify", CLARIFY), ("speckit-plan", PLAN)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "SKILL.md").write_text(text)
        paths.append(tmp_path / name / "SKILL.md")

    class Source:
        priority = 1

        def discover(self, context: object) -> SourceResult:
            records = []
            for path in paths:
                front = load_skill_md(str(path))
                records.append(
                    record_from_frontmatter(
                        front.data, name=path.parent.name, scope="project", source="t", path=str(path)
                    )
                )
            return SourceResult(records=tuple(records), scanned=len(records))

    class Plugin:
        @hookimpl
        def swarm_handoff_discovery_sources(self, register: Any) -> None:
            register("spec-kit-files", Source)

    register_plugin(Plugin(), "spec-kit-files")
    (tmp_path / "session").mkdir()
    (tmp_path / "synthesis.yaml").write_text(SYNTHESIS)
    return {"project": tmp_path, "session": tmp_path / "session", "root": tmp_path}


def _context(world: dict[str, Path]) -> DiscoveryContext:
    env = {"HOME": str(world["root"]), "CLAUDE_CONFIG_DIR": str(world["root"] / "config")}
    return make_context(world["project"], env)


def test_spec_kit_tree_discovers_the_named_skill_as_a_target(spec_kit: dict[str, Path]) -> None:
    found = discover(_context(spec_kit), cache=False)
    plan = found.named("speckit-plan")
    assert plan is not None
    assert plan.accepts_from == ("speckit-clarify",)
    assert found.named("speckit-clarify") is None


def test_the_prompt_travels_in_the_payload(spec_kit: dict[str, Path]) -> None:
    options = HandoffOptions(
        target="speckit-plan",
        synthesis=spec_kit["root"] / "synthesis.yaml",
        session=spec_kit["session"],
        source="speckit-clarify",
    )
    result = hand_off(options, context=_context(spec_kit))
    payload = json.loads(Path(result.payload_path).read_text())
    assert payload["handoff"]["meta"]["handoff_prompt"] == {
        "from": "speckit-clarify",
        "label": "Build a plan",
        "prompt": "Create a plan for the spec.",
        "send": True,
    }


def test_a_source_that_did_not_name_the_target_is_refused(spec_kit: dict[str, Path]) -> None:
    options = HandoffOptions(
        target="speckit-plan", synthesis=spec_kit["root"] / "synthesis.yaml", session=spec_kit["session"]
    )
    with pytest.raises(SwarmError) as caught:
        hand_off(options, context=_context(spec_kit))
    assert caught.value.code == "SOURCE_NOT_ACCEPTED"
