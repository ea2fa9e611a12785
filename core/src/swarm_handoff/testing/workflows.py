"""The testing kit's workflows: exhaustive step cases for skill packs, and the workflows a test's commands see."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from swarm_handoff.workflow import registry as _registry
from swarm_handoff.workflow.exhaustive import generate_cases, run_case

if TYPE_CHECKING:
    from swarm_handoff.workflow.exhaustive import Case
    from swarm_handoff.workflow.model import Workflow
    from swarm_handoff.workflow.protocol import StepDocument
    from swarm_handoff.workflow.registry import WorkflowRegistry


def workflow_cases(workflow: Workflow) -> list[Any]:
    """Return one `pytest.param` per generated case, so each shows up as its own named test.

    Use it in a pack's suite::

        @pytest.mark.parametrize("case", workflow_cases(WORKFLOW))
        def test_every_step(case):
            run_workflow_case(WORKFLOW, case)
    """
    return [pytest.param(case, id=case.id) for case in generate_cases(workflow)]


def run_workflow_case(workflow: Workflow, case: Case, *, resources: Any = None) -> StepDocument:
    """Run the step protocol for `case`, failing the test if any next command is wrong."""
    return run_case(workflow, case, resources=resources)


@pytest.fixture
def use_workflows() -> Iterator[Callable[..., WorkflowRegistry]]:
    """Return `use(*workflows)`: the workflow commands see exactly these until the test ends."""

    def use(*workflows: Workflow) -> WorkflowRegistry:
        chosen = _registry.WorkflowRegistry.of(*workflows)
        _registry.set_registry(chosen)
        return chosen

    try:
        yield use
    finally:
        _registry.reset_registry()
