"""The synthesis file: required fields, enums, types; every problem reported at once."""

from __future__ import annotations

import pytest

from swarm_handoff.errors import SwarmError
from swarm_handoff.synthesis import load_synthesis, parse_synthesis

FULL = """
original_prompt: Should we rewrite the billing service?
reframed_challenge: Weigh a rewrite of billing against incremental repair
problem_type: decision
synthesis_summary: Most perspectives favour incremental repair.
convergence_level: low
key_uncertainties: [migration cost, team capacity, vendor roadmap]
insights:
  convergent:
    - {theme: risk, confidence_score: 7.5}
  divergent:
    - {archetype: critic, insight: hidden coupling, confidence: 4}
  blind_spots: [regulatory review]
research_seeds:
  suggested_terms:
    - {term: strangler fig migration, rationale: incremental path}
  open_questions: ["What breaks first?"]
perspectives_completed: 5
user_feedback: focus on risk
"""


def test_a_complete_file_round_trips(tmp_path):
    path = tmp_path / "synthesis.yaml"
    path.write_text(FULL)
    synthesis = load_synthesis(path)
    assert synthesis.problem_type == "decision"
    assert synthesis.key_uncertainties == ("migration cost", "team capacity", "vendor roadmap")
    assert parse_synthesis(synthesis.to_data()) == attrs_evolve(synthesis, source_path=None)


def attrs_evolve(record, **changes):
    import attrs

    return attrs.evolve(record, **changes)


def test_json_is_read_by_extension(tmp_path):
    path = tmp_path / "s.json"
    path.write_text('{"original_prompt": "q", "problem_type": "research"}')
    assert load_synthesis(path).problem_type == "research"


def test_all_problems_are_reported_with_allowed_values():
    with pytest.raises(SwarmError) as caught:
        parse_synthesis({"problem_type": "vibes", "convergence_level": "total", "key_uncertainties": "one"})
    messages = caught.value.details["validation_errors"]
    assert messages == [
        "original_prompt: is required",
        "problem_type: 'vibes' is not allowed",
        "convergence_level: 'total' is not allowed",
        "key_uncertainties: must be a list, not a string",
    ]
    hints = [p.hint for p in caught.value.problems]
    assert "decision, creative, analytical, strategic, implementation, research, verification" in hints[1]
    assert hints[2] == "use one of: high, medium, low, none"


def test_type_errors_name_the_type_as_yaml_and_json_write_it_not_pythons():
    """Issue 26: a synthesis object over MCP with `original_prompt: null` said "not NoneType"."""
    with pytest.raises(SwarmError) as caught:
        parse_synthesis({"original_prompt": "Go?", "synthesis_summary": 7, "key_uncertainties": {"a": 1}})
    messages = caught.value.details["validation_errors"]
    assert "synthesis_summary: must be a string, not a number" in messages
    assert "key_uncertainties: must be a list, not a mapping" in messages
    with pytest.raises(SwarmError) as caught:
        parse_synthesis(["a"])
    assert "must be a mapping, not a list" in caught.value.details["validation_errors"][0]


@pytest.mark.parametrize("text", ["", "- a list\n", "a: [unclosed\n", "a: *nope\n", "a: 1\na: 2\n"])
def test_files_that_are_not_a_synthesis_are_structured_errors(tmp_path, text):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(SwarmError) as caught:
        load_synthesis(path)
    assert caught.value.code == "VALIDATION_FAILED"


def test_an_alias_bomb_is_refused(tmp_path):
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(SwarmError) as caught:
        load_synthesis(path)
    assert caught.value.problems[0].code == "YAML_TOO_MANY_NODES"


def test_yaml_errors_carry_line_and_column(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("original_prompt: ok\nproblem_type: decision\nsynthesis_summary: a: b\n")
    with pytest.raises(SwarmError) as caught:
        load_synthesis(path)
    problem = caught.value.problems[0]
    assert (problem.code, problem.line) == ("YAML_SYNTAX", 3)
    assert problem.column is not None


def test_the_verdict_does_not_depend_on_the_c_loader(tmp_path):
    # libyaml rejects a `?` inside a flow sequence that the pure parser (the reference) accepts.
    path = tmp_path / "s.yaml"
    path.write_text("original_prompt: q\nproblem_type: decision\nkey_uncertainties: [What breaks first?]\n")
    assert load_synthesis(path).key_uncertainties == ("What breaks first?",)


def test_deeply_nested_flow_collections_are_refused_before_parsing(tmp_path):
    path = tmp_path / "deep.yaml"
    path.write_text("original_prompt: q\nproblem_type: decision\nkey_uncertainties: " + "[" * 500 + "]" * 500 + "\n")
    with pytest.raises(SwarmError) as caught:
        load_synthesis(path)
    assert (caught.value.problems[0].code, caught.value.problems[0].line) == ("YAML_TOO_DEEP", 3)
