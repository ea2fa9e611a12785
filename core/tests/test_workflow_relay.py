"""The question relay block: parsing, every rule it checks, and the instruction texts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from swarm_handoff.workflow import (
    QUESTION_RELAY_HANDLER,
    SUB_AGENT_QUESTION_FORMAT,
    Question,
    format_relay,
    parse_relay,
)

GOOD = """
<needs_user_input>
  <question header="Scope">
    <text>Which packages should the rename cover?</text>
    <option>Only the core</option>
    <option>The core and every plugin</option>
  </question>
</needs_user_input>
"""


def messages(reply):
    return " | ".join(p.message for p in parse_relay(reply).problems)


def test_a_well_formed_block_is_read():
    request = parse_relay(GOOD)
    assert request.ok
    [question] = request.questions
    assert question.header == "Scope"
    assert question.options == ("Only the core", "The core and every plugin")
    assert question.to_data()["text"] == "Which packages should the rename cover?"


def test_a_reply_without_a_block_asks_nothing():
    request = parse_relay("All done. Should I also update the docs? I did.")
    assert not request.found
    assert not request.ok
    assert request.problems == ()


def test_text_around_the_block_is_a_problem():
    assert "outside the question block" in messages("Here are my questions:\n" + GOOD)


def test_too_many_questions_and_wrong_option_counts_are_problems():
    one = Question("Pick?", ("a",))
    four = Question("Pick?", ("a", "b", "c", "d"))
    text = messages(format_relay([one, four, Question("q", ("x", "y")), Question("r", ("x", "y"))]))
    assert "4 questions" in text
    assert "question 1 has 1 options" in text
    assert "question 2 has 4 options" in text


def test_repeated_or_empty_options_and_missing_text_are_problems():
    options = "<option>a</option><option>a</option><option></option>"
    reply = f"<needs_user_input><question>{options}</question></needs_user_input>"
    text = messages(reply)
    assert "has no <text>" in text
    assert "repeats an option" in text
    assert "empty <option>" in text


def test_malformed_and_unclosed_blocks_are_problems():
    assert "not well-formed" in messages("<needs_user_input><question></needs_user_input>")
    assert "not closed" in messages("<needs_user_input><question>")
    assert "no <question>" in messages("<needs_user_input></needs_user_input>")
    assert "2 <needs_user_input> blocks" in messages(GOOD + GOOD)


def test_problems_carry_a_stable_code():
    assert {p.code for p in parse_relay(GOOD + GOOD).problems} == {"RELAY_INVALID"}


def test_the_instruction_texts_state_the_limits_and_the_fresh_restart():
    assert "<needs_user_input>" in SUB_AGENT_QUESTION_FORMAT
    assert "at most 3 questions" in SUB_AGENT_QUESTION_FORMAT
    assert "Save" in SUB_AGENT_QUESTION_FORMAT
    assert "NEW task" in QUESTION_RELAY_HANDLER
    assert parse_relay(SUB_AGENT_QUESTION_FORMAT.split("\n", 3)[3].rsplit("\nAsk", 1)[0]).questions


_text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30).filter(str.strip)


@settings(deadline=None)  # no wall-clock limits in tests
@given(
    st.lists(
        st.builds(
            Question,
            _text.map(str.strip),
            st.lists(_text.map(str.strip), min_size=2, max_size=3, unique=True).map(tuple),
            _text.map(str.strip),
        ),
        min_size=1,
        max_size=3,
    )
)
def test_format_then_parse_round_trips_any_valid_questions(questions):
    request = parse_relay(format_relay(questions))
    assert request.ok, request.problems
    assert list(request.questions) == questions
