"""Hand-off metadata: v2.0 with its lenient rules, v3.0, both at once, and every reason for ineligibility."""

from __future__ import annotations

import pytest

from swarm_handoff import metadata
from swarm_handoff.metadata import record_from_frontmatter
from swarm_handoff.records import Scope


def build(data, name="s"):
    return record_from_frontmatter(data, name=name, scope="global", source="test", path="/x/SKILL.md")


def codes(record):
    return [p.code for p in record.problems]


def test_v2_with_defaults():
    record = build(
        {
            "name": "s",
            "description": "main",
            "handoff": {"accepts_handoff": True, "handoff_categories": ["research"], "handoff_description": "menu"},
        }
    )
    assert record.eligible
    assert record.legacy
    assert record.scope is Scope.GLOBAL
    assert (record.description, record.trigger, record.protocol_version) == ("menu", "{payload_path}", "2.0")
    assert (record.health_check, record.requires, record.optional_consumes) == (None, (), ())


def test_v2_lenient_rules_string_category_and_main_description():
    record = build({"description": "main", "handoff": {"accepts_handoff": True, "handoff_categories": "analysis"}})
    assert record.eligible
    assert record.categories == ("analysis",)
    assert record.description == "main"


@pytest.mark.parametrize(
    ("handoff", "code"),
    [
        ({"accepts_handoff": False, "handoff_categories": ["a"]}, metadata.HANDOFF_NOT_ACCEPTED),
        ({"accepts_handoff": "true", "handoff_categories": ["a"]}, metadata.HANDOFF_NOT_ACCEPTED),
        ({"accepts_handoff": True}, metadata.HANDOFF_NO_CATEGORIES),
        ({"accepts_handoff": True, "handoff_categories": []}, metadata.HANDOFF_NO_CATEGORIES),
        ({"provides_to": ["x"]}, metadata.HANDOFF_NO_ACCEPT_FIELD),
        ({"accepts_from": []}, metadata.HANDOFF_NOT_ACCEPTED),
        ("yes", metadata.HANDOFF_NOT_MAPPING),
    ],
)
def test_ineligible_skills_carry_the_reason(handoff, code):
    record = build({"description": "d", "handoff": handoff})
    assert not record.eligible
    assert code in codes(record)


def test_v2_without_any_description_is_ineligible():
    record = build({"handoff": {"accepts_handoff": True, "handoff_categories": ["a"]}})
    assert codes(record) == [metadata.HANDOFF_NO_DESCRIPTION]


def test_no_handoff_block_is_an_info_not_an_error():
    record = build({"name": "s", "description": "d"})
    assert not record.eligible
    [problem] = record.problems
    assert (problem.code, problem.severity.value) == (metadata.HANDOFF_ABSENT, "info")


def test_the_absent_hint_suggests_block_style_which_lint_strict_spec_accepts():
    """Issue 26: the hint used to suggest `metadata: {accepts-from: ...}`, the flow style --strict-spec refuses."""
    [problem] = build({"name": "s", "description": "d"}).problems
    assert "{" not in problem.hint
    assert "[" not in problem.hint
    assert "'metadata:' block" in problem.hint
    assert "accepts-from" in problem.hint


def test_v3_fields_and_custom_schema_type():
    record = build(
        {
            "description": "d",
            "handoff": {
                "accepts_from": ["orchestrator"],
                "provides_to": ["orchestrator"],
                "schema_version": 1.0,
                "schema_type": "cfd-review",
            },
            "categories": ["simulation"],
            "input_requirements": "spec",
            "output_types": ["review"],
        }
    )
    assert record.eligible
    assert not record.legacy
    assert record.schema_type == "cfd-review"
    assert record.schema_version == "1.0"
    assert record.input_requirements == ("spec",)
    assert record.protocol_version == "3.0"


def test_v3_wins_where_both_are_present_and_legacy_extras_are_kept():
    record = build(
        {
            "description": "main",
            "categories": ["implementation"],
            "handoff": {
                "accepts_from": ["*"],
                "accepts_handoff": False,
                "handoff_categories": ["old"],
                "handoff_trigger": "--handoff {payload_path}",
                "requires": ["context.original_prompt"],
            },
        }
    )
    assert record.eligible
    assert not record.legacy
    assert record.categories == ("implementation",)
    assert record.trigger == "--handoff {payload_path}"
    assert record.requires == ("context.original_prompt",)


def test_v3_without_categories_is_eligible_with_a_warning():
    record = build({"description": "d", "handoff": {"accepts_from": "*"}})
    assert record.eligible
    assert [(p.code, p.severity.value) for p in record.problems] == [(metadata.HANDOFF_NO_CATEGORIES, "warning")]


def test_declared_name_is_kept_when_it_differs_from_the_folder():
    assert build({"name": "Other Name"}, name="folder").declared_name == "Other Name"
    assert build({"name": "folder"}, name="folder").declared_name is None


def test_unreadable_frontmatter_is_an_ineligible_record_with_the_read_problems():
    from swarm_handoff.errors import Problem

    problem = Problem("SKILL_TAB_INDENT", "tab", path="/x/SKILL.md", line=3)
    record = record_from_frontmatter(None, name="s", scope="project", source="t", path="/x", problems=[problem])
    assert not record.eligible
    assert record.problems == (problem,)


@pytest.mark.parametrize(
    ("value", "kind"),
    [(123, "a number"), (["a", "b"], "a list"), ({"a": 1}, "a mapping"), (True, "a boolean"), (None, "null")],
)
def test_a_name_that_is_not_text_is_a_wrong_type_not_a_missing_name(value, kind):
    # issue 18: `name: 123` or `name: [a, b]` read as "no 'name' field"
    record = build({"name": value, "description": "d"}, name="folder")
    [problem] = [p for p in record.problems if p.code == "SPEC_NAME_TYPE"]
    assert problem.severity.value == "warning"
    assert kind in problem.message
    assert 'name: "folder"' in (problem.hint or "")
    assert record.name == "folder"  # the folder name still names the skill


@pytest.mark.parametrize(
    ("value", "kind"), [(42, "a number"), (["a"], "a list"), ({"a": 1}, "a mapping"), (False, "a boolean")]
)
def test_a_description_that_is_not_text_is_a_wrong_type(value, kind):
    record = build({"name": "s", "description": value})
    [problem] = [p for p in record.problems if p.code == "SPEC_DESCRIPTION_TYPE"]
    assert kind in problem.message
    assert "quote" in (problem.hint or "")
    assert "HANDOFF_BAD_FIELD" not in codes(record)


def test_text_names_and_descriptions_get_no_type_problem():
    record = build({"name": "s", "description": "d"})
    assert not {"SPEC_NAME_TYPE", "SPEC_DESCRIPTION_TYPE"} & set(codes(record))
    assert not {"SPEC_NAME_TYPE", "SPEC_DESCRIPTION_TYPE"} & set(codes(build({"description": "d"})))


def test_only_a_text_or_number_name_becomes_a_declared_name():
    assert build({"name": 123}, name="folder").declared_name == "123"
    assert build({"name": ["a", "b"]}, name="folder").declared_name is None
    assert build({"name": True}, name="folder").declared_name is None
