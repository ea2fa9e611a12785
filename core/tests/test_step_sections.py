"""Step sections beyond the actions: forbidden, expected, state banner, QR checkpoint, dispatch mode."""

from __future__ import annotations

import pytest

from swarm_handoff.api import hookimpl
from swarm_handoff.errors import ErrorCode, SwarmError
from swarm_handoff.payload_summary import PayloadSummary
from swarm_handoff.workflow import AgentRole, Dispatch, Outcome, StepDef, Workflow, render_step, transitions
from swarm_handoff.workflow.dispatch_document import DispatchDocument


def ok(ctx):
    return Outcome.OK, {}


def escalate(ctx):
    return Outcome.ESCALATE, {"why": "stuck"}


def banner(ctx):
    if not ctx.step_state.get("again"):
        return None
    return {"checkpoint": "review", "iteration": 2, "mode": "fix", "message": "fix the findings"}


def broken_banner(ctx):
    raise KeyError("oops")


FLOW = Workflow(
    "sections",
    StepDef(
        "work",
        "Work",
        ["Do it"],
        ok,
        {Outcome.OK: "review"},
        forbidden="Do not skip tests",
        expected=("a diff", "test output"),
        banner=banner,
    ),
    StepDef(
        "review",
        "Review",
        ["Review"],
        Dispatch(AgentRole.QUALITY_REVIEWER, script="review.py", gate="checked"),
        {Outcome.OK: "stuck", Outcome.FAIL: "work"},
    ),
    StepDef("stuck", "Stuck", ["Decide"], escalate, {Outcome.ESCALATE: "ask", Outcome.OK: None}),
    StepDef("ask", "Ask", ["Ask the user"], next={Outcome.OK: None}),
)


class Policy:
    def blocking(self, iteration):
        return {"MUST"}

    def exhausted(self, iteration):
        return False

    def checkpoint(self, *, name, state, prefix):
        return {"name": name, "iteration": state.get(f"{prefix}_iteration", 1), "banner": "b"}


class Bare:
    def blocking(self, iteration):
        return {"MUST"}


def _gates(**policies):
    class Gates:
        @hookimpl
        def swarm_handoff_qr_gates(self, register):
            for name, policy in policies.items():
                register(name, policy)

    return Gates()


def test_forbidden_expected_and_banner_appear_only_when_the_step_has_them(swarm_host):
    plain = render_step(FLOW, "work").to_data()
    assert plain["forbidden"] == ["Do not skip tests"]
    assert plain["expected"] == ["a diff", "test output"]
    assert "banner" not in plain
    again = render_step(FLOW, "work", state={"again": True}).to_data()
    assert again["banner"]["message"] == "fix the findings"
    assert "forbidden" not in render_step(FLOW, "ask").to_data()


def test_a_failing_banner_is_a_named_error(swarm_host):
    flow = Workflow("bad-banner", StepDef("a", "A", ["x"], next={Outcome.OK: None}, banner=broken_banner))
    with pytest.raises(SwarmError) as caught:
        render_step(flow, "a")
    assert caught.value.code == ErrorCode.WORKFLOW_RUN_FAILED
    assert "banner" in caught.value.message


def test_a_gated_dispatch_carries_the_policy_checkpoint(register_plugin):
    register_plugin(_gates(checked=Policy), "gates")
    doc = render_step(FLOW, "review", state={"qr_iteration": 3})
    assert doc.qr == {"name": "Review", "iteration": 3, "banner": "b"}
    assert doc.dispatch is not None
    assert doc.dispatch["mode"] == "script"


def test_a_policy_without_checkpoint_gives_no_qr_section(register_plugin):
    register_plugin(_gates(checked=Bare), "gates")
    assert render_step(FLOW, "review").qr is None


def test_escalate_routes_like_any_outcome(swarm_host):
    [only] = transitions(FLOW, "stuck")
    assert (only.outcome, only.target, only.state["why"]) == (Outcome.ESCALATE, "ask", "stuck")


def test_a_dispatch_document_comes_only_from_a_dispatch_step(register_plugin):
    register_plugin(_gates(checked=Bare), "gates")
    doc = DispatchDocument.from_step(render_step(FLOW, "review", state={"qr_iteration": 2}))
    data = doc.to_data()
    assert data["dispatch"]["script"] == "review.py"
    assert data["context"] == {"qr_iteration": 2}
    assert [n["label"] for n in data["next"]] == ["if-pass", "if-fail"]
    with pytest.raises(ValueError, match="dispatches no sub-agent"):
        DispatchDocument.from_step(render_step(FLOW, "work"))


def test_a_payload_summary_names_the_version_and_each_section():
    summary = PayloadSummary.of({"schema_version": "3.0", "context": {"a": 1, "b": 2}, "chain": ["x", "y"]})
    data = summary.to_data()
    assert data["version"] == "3.0"
    assert [(s["name"], s["type"], s["count"]) for s in data["sections"]] == [
        ("schema_version", "str", None),
        ("context", "mapping", 2),
        ("chain", "list", 2),
    ]
    assert len(data["sha256"]) == 64


def test_generated_cases_vary_the_round_at_a_gated_dispatch():
    from swarm_handoff.workflow.exhaustive import generate_cases

    rounds = [case.state for case in generate_cases(FLOW) if case.step == "review"]
    assert rounds == [{"qr_iteration": n} for n in range(1, FLOW.max_iterations + 1)]
    assert [case.state for case in generate_cases(FLOW) if case.step == "work"] == [{}]
