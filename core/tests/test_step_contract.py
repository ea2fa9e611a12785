"""The skills-system step contract as an alternative front end, the orchestrator-action reminder,
and routing typed as Linear | Branch | Terminal in every format."""

from __future__ import annotations

import pytest
import workflow_examples as ex

from swarm_handoff.workflow.protocol import render_step
from swarm_handoff.workflow.routing import BranchRouting, LinearRouting, TerminalRouting


@pytest.fixture
def cli(swarm_cli, use_workflows):
    use_workflows(*ex.ALL)
    return swarm_cli


@pytest.fixture
def formatted(swarm_cli, use_workflows, make_swarm_host):
    """The CLI with the formatters plugin's text and xml layouts (the core alone renders generically)."""
    pytest.importorskip("swarm_handoff_formatters")
    make_swarm_host(["formatters"])
    use_workflows(*ex.ALL)
    return swarm_cli


def _json(cli, *args):
    result = cli("workflow", "step", *args, "--format", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    return result.json()


# --- --step N --total-steps M ------------------------------------------------------------------


@pytest.mark.parametrize(("position", "step_id"), [(1, "gather"), (2, "weigh"), (3, "decide")])
def test_step_by_position_is_the_step_by_id(cli, position, step_id):
    by_id = _json(cli, "linear-demo", step_id)
    by_position = _json(cli, "linear-demo", "--step", str(position), "--total-steps", "3")
    assert by_position == by_id
    assert by_position["index"] == position


def test_without_a_step_the_workflow_starts_at_its_first(cli):
    """Issue 26: `workflow step NAME` used to be a usage error; a workflow has one entry, its first step."""
    assert _json(cli, "linear-demo") == _json(cli, "linear-demo", "gather")
    assert _json(cli, "linear-demo")["index"] == 1


def test_a_total_that_does_not_match_the_workflow_is_refused(cli):
    result = cli("workflow", "step", "linear-demo", "--step", "1", "--total-steps", "7", "--format", "json")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "WORKFLOW_TOTAL_MISMATCH"
    assert "--total-steps 3" in error["hint"]


def test_a_position_out_of_range_or_contradicting_the_id_is_refused(cli):
    outside = cli("workflow", "step", "linear-demo", "--step", "4", "--format", "json").json()["error"]
    assert outside["code"] == "WORKFLOW_STEP_NOT_FOUND"
    both = cli("workflow", "step", "linear-demo", "weigh", "--step", "1")
    assert both.exit_code == 2
    assert "name different steps" in both.stderr
    # Changed by issue 26: naming neither used to be a usage error; it is now the first step (test above).


# --- --qr-iteration / --qr-fail / --qr-status ----------------------------------------------------


def test_qr_flags_are_aliases_of_the_state_options(cli):
    aliased = _json(cli, "qr-demo", "review", "--qr-iteration", "2", "--qr-fail", "--qr-status", "fail")
    explicit = _json(
        cli, "qr-demo", "review", "--state", "qr_iteration=2", "--state", "qr_failed=true", "--state", "qr_status=fail"
    )
    assert aliased == explicit
    assert aliased["state"] == {"qr_iteration": 2, "qr_failed": True, "qr_status": "fail"}


def test_the_whole_contract_at_once(cli):
    data = _json(cli, "qr-demo", "--step", "2", "--total-steps", "5", "--qr-iteration", "3", "--qr-status", "pass")
    assert data["step"] == "review"
    assert data["state"]["qr_iteration"] == 3


def test_an_alias_contradicting_a_state_option_is_refused(cli):
    result = cli("workflow", "step", "qr-demo", "review", "--qr-iteration", "2", "--state", "qr_iteration=3")
    assert result.exit_code == 2
    assert "contradicts" in result.stderr
    bad = cli("workflow", "step", "qr-demo", "review", "--qr-status", "maybe")
    assert bad.exit_code == 2


# --- the orchestrator-action reminder ------------------------------------------------------------


def test_a_quality_reviewer_dispatch_carries_the_orchestrator_action(cli, formatted):
    data = _json(cli, "qr-demo", "review")
    block = data["dispatch"]["orchestrator_action"]
    assert block.startswith("<orchestrator_action>\n")
    assert block.endswith("\n</orchestrator_action>")
    for option in data["next"]:
        assert f"{option['label']}: {option['command']}" in block
    assert data["dispatch"]["prompt"].endswith(block)  # in what the reviewer reads, so its output carries it
    for fmt in ("text", "xml"):
        shown = formatted("workflow", "step", "qr-demo", "review", "--format", fmt).stdout
        assert "orchestrator_action" in shown, fmt


def test_other_steps_carry_no_orchestrator_action(cli):
    for name, step in (("linear-demo", "gather"), ("hybrid-demo", "explore")):
        data = _json(cli, name, step)
        assert "orchestrator_action" not in (data.get("dispatch") or {})


# --- typed routing -------------------------------------------------------------------------------


def test_routing_is_typed_in_the_python_api():
    linear = render_step(ex.LINEAR, "gather")
    assert linear.routing == LinearRouting(step="weigh", index=2)
    branch = render_step(ex.QR_GATE, "review")
    assert isinstance(branch.routing, BranchRouting)
    assert [(o.label, o.step) for o in branch.routing.outcomes] == [("if-pass", "done"), ("if-fail", "revise")]
    assert render_step(ex.LINEAR, "decide").routing == TerminalRouting()
    assert linear.routing == "linear"  # still equal to the former string form


def test_routing_is_typed_in_json(cli):
    assert _json(cli, "linear-demo", "gather")["routing"] == {"type": "linear", "step": "weigh", "index": 2}
    assert _json(cli, "linear-demo", "decide")["routing"] == {"type": "terminal"}
    branch = _json(cli, "qr-demo", "review")["routing"]
    assert branch["type"] == "branch"
    assert [(o["label"], o["when"], o["step"]) for o in branch["outcomes"]] == [
        ("if-pass", {"verdict": ["pass"]}, "done"),
        ("if-fail", {"verdict": ["fail"]}, "revise"),
    ]


def test_routing_is_typed_in_text_and_xml(formatted):
    text = {s: formatted("workflow", "step", "linear-demo", s).stdout for s in ("gather", "decide")}
    assert "NEXT (linear):" in text["gather"]
    assert "NEXT (terminal):" in text["decide"]
    assert "NEXT (branch):" in formatted("workflow", "step", "qr-demo", "review").stdout
    xml = formatted("workflow", "step", "qr-demo", "review", "--format", "xml").stdout
    assert '<INVOKE_AFTER routing="branch">' in xml
