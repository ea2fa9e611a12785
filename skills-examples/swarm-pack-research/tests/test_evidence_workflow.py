"""The evidence-review workflow: generated cases for every step, and the capped grading loop."""

from __future__ import annotations

import pytest
from swarm_pack_research.evidence_review.workflow import MAX_PASSES, WORKFLOW

from swarm_handoff.api import load_registry, run_workflow
from swarm_handoff.testing import run_workflow_case, workflow_cases


@pytest.mark.parametrize("case", workflow_cases(WORKFLOW))
def test_every_step(case):
    run_workflow_case(WORKFLOW, case)


def test_the_workflow_is_published_by_the_skill_entry_point():
    registry = load_registry()
    assert registry.get("evidence-review") is WORKFLOW
    assert registry.workflows["evidence-review"].distribution == "swarm-pack-research"


@pytest.mark.parametrize(("coverage", "passes"), [("complete", 1), ("gaps", MAX_PASSES)])
def test_grading_loops_until_complete_or_capped(coverage, passes):
    result = run_workflow(WORKFLOW, {}, agent=lambda ctx: {"coverage": coverage})
    assert result.path.count("grade") == passes
    assert result.path[-1] == "report"
