"""Exhaustive test generation: domains, schemas, the generation rules, and every example's cases."""

from __future__ import annotations

import itertools
from typing import Annotated

import attrs
import pytest
import workflow_examples as ex

from swarm_handoff.testing import run_workflow_case, workflow_cases
from swarm_handoff.workflow import (
    Arg,
    BoundedInt,
    ChoiceSet,
    Constant,
    Outcome,
    StepDef,
    Workflow,
    extract_schema,
    generate_cases,
)
from swarm_handoff.workflow.exhaustive import CaseFailure, domain_of
from swarm_handoff.workflow.params import Param


def test_domains_are_frozen_iterable_and_hashable():
    assert list(BoundedInt(1, 5)) == [1, 2, 3, 4, 5]
    assert list(ChoiceSet(["full", "quick"])) == ["full", "quick"]
    assert list(Constant(42)) == [42]
    assert len({BoundedInt(1, 5), BoundedInt(1, 5), ChoiceSet(("a",)), Constant(1), Constant(1)}) == 3
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        BoundedInt(1, 2).lo = 0  # type: ignore[misc]
    with pytest.raises(ValueError, match="lo <= hi"):
        BoundedInt(3, 1)
    assert list(itertools.product(ChoiceSet(("a", "b")), BoundedInt(1, 2))) == [("a", 1), ("a", 2), ("b", 1), ("b", 2)]


@pytest.mark.parametrize(
    ("param", "domain"),
    [
        (Param("m", str, Arg(choices=("a", "b"))), ChoiceSet(("a", "b"))),
        (Param("f", bool, Arg(default=False)), ChoiceSet((False, True))),
        (Param("n", int, Arg(min=1, max=3)), BoundedInt(1, 3)),
        (Param("t", str, Arg(default="x")), Constant("x")),
    ],
)
def test_domain_of_each_kind_of_parameter(param, domain):
    assert domain_of(param) == domain


def test_a_parameter_without_a_finite_domain_is_named():
    with pytest.raises(ValueError, match="'topic' has no finite domain"):
        domain_of(Param("topic", str, Arg()))


def test_schema_varies_iteration_only_at_iterating_steps():
    schema = extract_schema(ex.MODES)
    assert list(schema) == ["frame", "plan", "design", "refine", "answer"]
    assert schema["plan"].params == {"mode": ChoiceSet(("full", "quick"))}
    assert schema["design"].params == {"mode": ChoiceSet(("full", "quick"))}  # read by its gate
    assert schema["refine"].state == {"iteration": BoundedInt(1, 4)}
    assert all(not s.state for sid, s in schema.items() if sid != "refine")
    assert [s.index for s in schema.values()] == [1, 2, 3, 4, 5]


def test_gated_out_combinations_are_not_generated():
    ids = [case.id for case in generate_cases(ex.MODES)]
    assert "think-demo-03-design-mode=full" in ids
    assert "think-demo-03-design-mode=quick" not in ids
    assert len(ids) == len(set(ids)) == 9


def test_case_ids_are_stable_and_readable():
    assert [case.id for case in generate_cases(ex.HYBRID)] == [
        "hybrid-demo-01-context",
        "hybrid-demo-02-abstract",
        "hybrid-demo-03-explore-agents=1",
        "hybrid-demo-03-explore-agents=2",
        "hybrid-demo-03-explore-agents=3",
        "hybrid-demo-04-synthesise",
    ]


def test_indices_and_totals_match_the_cli():
    for workflow in ex.ALL:
        for case in generate_cases(workflow):
            assert case.total == workflow.total_steps
            assert workflow.step_ids[case.index - 1] == case.step


@pytest.mark.parametrize("case", [c for w in ex.ALL for c in workflow_cases(w)])
def test_every_example_passes_its_generated_cases(case):
    workflow = {w.name: w for w in ex.ALL}[case.workflow]
    document = run_workflow_case(workflow, case)
    assert (document.step, document.index) == (case.step, case.index)


# A workflow whose loop forgets to advance its counter: the generated cases must catch it.


def stuck(ctx, confidence: Annotated[str, Arg(choices=("low", "high"), reported=True)]):
    return (Outcome.OK if confidence == "high" else Outcome.ITERATE), {}


STUCK = Workflow(
    "stuck-demo",
    StepDef("loop", handler=stuck, next={Outcome.OK: "end", Outcome.ITERATE: "loop"}),
    StepDef("end", next={Outcome.OK: None}),
    max_iterations=2,
)


def test_a_loop_that_does_not_carry_its_counter_fails_its_generated_case():
    case = generate_cases(STUCK)[0]
    with pytest.raises(CaseFailure, match="unchanged state"):
        run_workflow_case(STUCK, case)


def route_by_mode(ctx, mode: Annotated[str, Arg(choices=("full", "quick"))] = "full"):
    return Outcome.OK, {}


MISROUTED = Workflow(
    "misrouted-demo",
    StepDef("start", handler=route_by_mode, next={Outcome.OK: "deep"}),
    StepDef("deep", next={Outcome.OK: None}, when={"mode": ("full",)}),
)


def test_routing_into_a_gated_out_step_is_caught():
    failures = []
    for case in generate_cases(MISROUTED):
        try:
            run_workflow_case(MISROUTED, case)
        except Exception as exc:
            failures.append((case.id, str(exc)))
    assert len(failures) == 1
    assert failures[0][0] == "misrouted-demo-01-start-mode=quick"
    assert "does not run with mode=quick" in failures[0][1]
