"""Graph export: outcome labels on edges, terminals marked, error routes dashed."""

from __future__ import annotations

import pytest
import workflow_examples as ex

from swarm_handoff.workflow import Outcome, StepDef, Workflow, to_dot, to_mermaid
from swarm_handoff.workflow.graph import export


def boom(ctx):
    return Outcome.OK, {}


ERRORS = Workflow(
    "errors-demo",
    StepDef("a", 'Say "hi"', handler=boom, next={Outcome.OK: "b"}, on_error="c"),
    StepDef("b", next={Outcome.OK: None}),
    StepDef("c", next={Outcome.OK: None}),
)


def test_mermaid_has_every_edge_with_its_outcome():
    text = to_mermaid(ex.MODES)
    assert text.splitlines()[0] == "flowchart TD"
    assert "start_node((start)) --> s1" in text
    assert "s2 -->|skip| s4" in text
    assert "s4 -->|iterate| s4" in text
    assert "s5 -->|ok| end_node" in text
    assert 's5(["5. answer: Answer"])' in text  # terminal steps get the rounded shape


def test_mermaid_escapes_quotes_and_dashes_error_edges():
    text = to_mermaid(ERRORS)
    assert "#quot;hi#quot;" in text
    assert "s1 -.->|error| s3" in text


def test_dot_marks_terminals_and_error_edges():
    text = to_dot(ERRORS)
    assert text.startswith('digraph "errors-demo" {')
    assert '"b" [shape=box, peripheries=2, label="2. b"];' in text
    assert '"a" -> "c" [label="error", style=dashed];' in text
    assert '"a" [shape=box, label="1. Say \\"hi\\""];' in text
    assert text.rstrip().endswith("}")


def test_export_refuses_unknown_syntax():
    assert export(ex.LINEAR, "dot") == to_dot(ex.LINEAR)
    with pytest.raises(ValueError, match="mermaid, dot"):
        export(ex.LINEAR, "svg")
