"""The text layouts of the reports every install prints: errors and the plugins report."""

from __future__ import annotations

from swarm_handoff.errors import ErrorCode, Problem, SwarmError
from swarm_handoff.textviews import TextFormatter


def test_text_renders_the_error_document_with_location_and_fix():
    error = SwarmError(
        ErrorCode.INVALID_PAYLOAD,
        "not a payload",
        hint="pass a YAML mapping",
        problems=(Problem("YAML_SYNTAX", "bad", path="p.yaml", line=3, column=4, hint="quote it"),),
    )
    text = TextFormatter().render(error.to_document())
    assert text.splitlines() == [
        "error INVALID_PAYLOAD: not a payload",
        "  p.yaml:3:4: YAML_SYNTAX: bad",
        "    fix: quote it",
        "hint: pass a YAML mapping",
    ]


def test_text_renders_the_plugins_report(make_swarm_host):
    text = TextFormatter().render(make_swarm_host().report())
    assert "core-formatters  (built-in " in text
    assert "  formatter text - readable plain text for people" in text
