"""The example in docs/qr-gates.md builds, passes its generated cases, and its loop ends at ask-user."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from swarm_handoff.api import transitions
from swarm_handoff.testing import run_workflow_case, workflow_cases

DOC = Path(__file__).resolve().parents[3] / "docs" / "qr-gates.md"


@pytest.fixture
def workflow(make_swarm_host):
    make_swarm_host(["qr"])
    if not DOC.is_file():
        pytest.skip("docs/qr-gates.md is not in this checkout")
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"```python\n(from swarm_handoff\.api import Outcome.*?)```", text, re.S)
    assert block, "docs/qr-gates.md lost its workflow example"
    namespace: dict[str, object] = {}
    exec(compile(block.group(1), str(DOC), "exec"), namespace)
    return namespace["WORKFLOW"]


def test_the_documented_workflow_passes_every_generated_case(workflow):
    for param in workflow_cases(workflow):
        run_workflow_case(workflow, param.values[0])


def test_the_documented_loop_asks_the_user_after_six_failed_reviews(workflow):
    step, state, reviews = "write", {}, 0
    while step is not None:
        options = transitions(workflow, step, {}, state)
        chosen = next((t for t in options if t.reported.get("verdict") == "fail"), options[0])
        reviews += step == "review"
        step, state, last = chosen.target, dict(chosen.state), step
    assert last == "ask-user"
    assert reviews == 6
