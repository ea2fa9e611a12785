"""Property tests: the validator and the protocol fail only with structured errors; values round-trip."""

from __future__ import annotations

import contextlib

from hypothesis import given, settings
from hypothesis import strategies as st

from swarm_handoff.errors import SwarmError
from swarm_handoff.workflow import Arg, Outcome, StepDef, Workflow, generate_cases, run_case
from swarm_handoff.workflow.exhaustive import CaseFailure
from swarm_handoff.workflow.params import Param, coerce_state, format_value

IDS = st.sampled_from(["a", "b", "c", "d", "e"])
KEYS = st.sampled_from([Outcome.OK, Outcome.FAIL, Outcome.SKIP, Outcome.DEFAULT, "ok", 3])
TARGETS = st.one_of(st.none(), IDS, st.just("ghost"))


def ok(ctx):
    return Outcome.OK, {}


@st.composite
def step_lists(draw):
    steps = []
    for sid in draw(st.lists(IDS, min_size=1, max_size=6)):
        nexts = draw(st.dictionaries(KEYS, TARGETS, max_size=3))
        handler = draw(st.sampled_from([ok, None]))
        steps.append(StepDef(sid, sid.upper(), [f"do {sid}"], handler, nexts))
    return steps


@settings(deadline=None, max_examples=300)
@given(step_lists())
def test_construction_either_succeeds_or_reports_problems(steps):
    failure: SwarmError | None = None
    try:
        workflow = Workflow("random", *steps)
    except SwarmError as error:
        failure = error
    if failure is not None:
        assert failure.code == "WORKFLOW_INVALID"
        assert failure.problems
        assert all("workflow 'random'" in p.message for p in failure.problems)
        return
    # A valid graph can still have a handler whose outcome `next` does not map; running its cases
    # must then fail with a structured error or a case failure, never an unexpected exception.
    for case in generate_cases(workflow):
        with contextlib.suppress(SwarmError, CaseFailure):
            run_case(workflow, case)


@settings(deadline=None)
@given(st.one_of(st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False)))
def test_typed_values_survive_the_command_line(value):
    param = Param("v", type(value), Arg())
    assert param.coerce(format_value(value)) == value


@settings(deadline=None)
@given(st.one_of(st.booleans(), st.integers()))
def test_carried_state_numbers_and_flags_come_back_typed(value):
    assert coerce_state(format_value(value)) == value
