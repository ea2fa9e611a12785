"""Every pattern in docs/workflows.md runs: it builds, passes its generated cases, and finishes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from swarm_handoff.testing import run_workflow_case, workflow_cases
from swarm_handoff.workflow import Workflow, run_workflow

DOC = Path(__file__).parents[2] / "docs" / "workflows.md"
PATTERNS = {
    "1. Linear": ("review-notes", {}),
    "2. Confidence-driven iteration": ("find-cause", {"confidence": "low"}),
    "3. Mode branching": ("answer-question", {}),
    "4. QR gate": ("reviewed-change", {"verdict": "fail"}),
    "5. Hybrid static and dynamic steps": ("fan-out", {}),
}


def _blocks() -> dict[str, str]:
    """Map each pattern heading to the Python block under it."""
    text = DOC.read_text(encoding="utf-8")
    found = {}
    for heading in PATTERNS:
        match = re.search(rf"### {re.escape(heading)}\n.*?```python\n(.*?)```", text, re.DOTALL)
        assert match, f"docs/workflows.md lost the example for {heading!r}"
        found[heading] = match.group(1)
    return found


def _workflow(source: str) -> Workflow:
    namespace: dict[str, object] = {"__name__": "docs_example"}
    exec(compile(source, str(DOC), "exec"), namespace)
    workflow = namespace["WORKFLOW"]
    assert isinstance(workflow, Workflow)
    return workflow


BLOCKS = _blocks()


@pytest.mark.parametrize("heading", list(PATTERNS))
def test_each_pattern_runs_to_its_end(heading):
    name, answers = PATTERNS[heading]
    workflow = _workflow(BLOCKS[heading])
    assert workflow.name == name
    result = run_workflow(workflow, agent=lambda ctx: answers)
    assert result.trace[-1].target is None


@pytest.mark.parametrize("heading", list(PATTERNS))
def test_each_pattern_passes_its_generated_cases(heading):
    workflow = _workflow(BLOCKS[heading])
    cases = workflow_cases(workflow)
    assert cases
    for case in cases:
        run_workflow_case(workflow, case.values[0])


def test_the_qr_pattern_ends_by_asking_the_user_when_every_review_fails():
    workflow = _workflow(BLOCKS["4. QR gate"])
    assert run_workflow(workflow, agent=lambda ctx: {"verdict": "fail"}).path[-1] == "ask"


def test_importing_the_engine_does_not_import_the_cli():
    code = "import sys, swarm_handoff.workflow; print(sorted(m for m in ('typer', 'click') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_importing_the_package_does_not_import_the_engine():
    code = "import sys, swarm_handoff; print('swarm_handoff.workflow' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
