"""QR gates: the loop state, the three pillars at every checkpoint, routing and the iteration limit."""

from __future__ import annotations

import pytest

from swarm_handoff.api import Outcome, StepContext, StepDef, Workflow, render_step, transitions
from swarm_handoff_qr.gates import GateConfig, QRGate, ask_user_step, fix_banner, gate_step
from swarm_handoff_qr.policy import DEFAULT_ITERATION_LIMIT
from swarm_handoff_qr.state import PILLARS, QRState

CONFIG = GateConfig(qr_name="Plan review", work_step="work", pass_step="done", self_fix=False)


def _ok(ctx: StepContext) -> tuple[Outcome, dict[str, object]]:
    return Outcome.OK, {}


FLOW = Workflow(
    "qr-demo",
    StepDef("work", "Write the plan", ["Write it"], _ok, {Outcome.OK: "review"}, banner=fix_banner(CONFIG)),
    gate_step("review", CONFIG, actions=["Send the plan to the reviewer"]),
    StepDef("done", "Done", ["Report"], next={Outcome.OK: None}),
    ask_user_step(CONFIG),
)

TABLE = {1: ["MUST", "SHOULD", "COULD"], 2: ["MUST", "SHOULD", "COULD"], 3: ["MUST", "SHOULD"], 4: ["MUST", "SHOULD"]}


@pytest.fixture(autouse=True)
def _qr_host(make_swarm_host):
    make_swarm_host(["qr"])


def _routes(iteration: int) -> dict[str, tuple[str | None, dict[str, object]]]:
    state = QRState(iteration, iteration > 1, "fail" if iteration > 1 else None).to_state()
    found = transitions(FLOW, "review", {}, state)
    return {t.reported["verdict"]: (t.target, dict(t.state)) for t in found}


def test_qr_state_reads_and_writes_the_carried_state():
    qr = QRState.from_state({"qr_iteration": "3", "qr_failed": "true", "qr_status": "FAIL"})
    assert qr == QRState(3, True, "fail")
    assert not qr.passed
    assert qr.fresh_review
    assert QRState.from_state(qr.to_state()) == qr
    assert QRState().after("PASS") == QRState(1, False, "pass")
    assert QRState(2, True, "fail").after("fail") == QRState(3, True, "fail")
    assert QRState(1, False, "pass").passed
    with pytest.raises(ValueError):
        QRState(status="maybe")
    with pytest.raises(ValueError):
        QRState(iteration=0)


def test_a_qr_dispatch_maps_the_verdict_to_ok_or_fail():
    assert QRGate.outcome_for("PASS") is Outcome.OK
    assert QRGate.outcome_for("fail") is Outcome.FAIL
    outcome, state = FLOW.step("review").handler(StepContext("review"), verdict="pass")
    assert outcome is Outcome.OK
    assert state["qr_status"] == "pass"


@pytest.mark.parametrize("iteration", range(1, DEFAULT_ITERATION_LIMIT + 1))
def test_every_checkpoint_shows_the_three_pillars(iteration):
    state = QRState(iteration, iteration > 1, "fail" if iteration > 1 else None).to_state()
    doc = render_step(FLOW, "review", {}, state)
    assert doc.qr is not None
    for pillar in PILLARS:
        assert doc.qr[pillar].strip(), pillar
    assert doc.qr["iteration"] == iteration
    assert doc.qr["mode"] == ("fresh-review" if iteration > 1 else "first-review")
    assert ("fresh review" in doc.qr["banner"]) is (iteration > 1)
    assert f"iteration {DEFAULT_ITERATION_LIMIT}" in doc.qr["stop_condition"]
    # re-verify mode: each next command carries the loop's state into the following step
    for nxt in doc.next:
        assert "qr_iteration=" in nxt.command
        assert "qr_failed=" in nxt.command
        assert "qr_status=" in nxt.command


@pytest.mark.parametrize("iteration", range(1, DEFAULT_ITERATION_LIMIT + 2))
def test_the_blocking_severities_follow_the_table_iteration_by_iteration(iteration):
    doc = render_step(FLOW, "review", {}, {"qr_iteration": iteration})
    assert doc.qr["blocking"] == TABLE.get(iteration, ["MUST"])
    assert f"severity {', '.join(doc.qr['blocking'])} remains" in doc.qr["stop_condition"]


@pytest.mark.parametrize("iteration", range(1, DEFAULT_ITERATION_LIMIT))
def test_a_fail_within_the_limit_goes_back_to_the_work_step_one_round_on(iteration):
    routes = _routes(iteration)
    assert routes["pass"] == ("done", {"qr_iteration": iteration, "qr_failed": False, "qr_status": "pass"})
    assert routes["fail"] == ("work", {"qr_iteration": iteration + 1, "qr_failed": True, "qr_status": "fail"})


def test_a_fail_in_the_last_round_asks_the_user_instead_of_looping():
    routes = _routes(DEFAULT_ITERATION_LIMIT)
    target, state = routes["fail"]
    assert target == "ask-user"
    assert state == {"qr_iteration": DEFAULT_ITERATION_LIMIT, "qr_failed": True, "qr_status": "fail"}
    assert routes["pass"][0] == "done"
    doc = render_step(FLOW, "ask-user", {}, state)
    assert doc.routing == "terminal"
    assert not doc.next
    assert f"after {DEFAULT_ITERATION_LIMIT} rounds" in doc.actions[0]
    assert any("ask the user" in a.lower() for a in doc.actions)
    restart = doc.actions[-1].split(": ", 1)[1]
    assert restart == "swarm-handoff workflow step qr-demo work --state qr_failed=false --state qr_iteration=1"


def test_the_whole_loop_ends_whatever_the_reviewer_says():
    step, state, path = "work", {}, []
    while step is not None and len(path) < 50:
        path.append(step)
        options = transitions(FLOW, step, {}, state)
        chosen = next((t for t in options if t.reported.get("verdict") == "fail"), options[0])
        step, state = chosen.target, dict(chosen.state)
    assert path[-1] == "ask-user"
    assert path.count("review") == DEFAULT_ITERATION_LIMIT


def test_the_work_step_shows_a_fix_banner_only_after_a_failed_review():
    assert render_step(FLOW, "work", {}, {}).banner is None
    banner = render_step(FLOW, "work", {}, {"qr_iteration": 3, "qr_failed": True, "qr_status": "fail"}).banner
    assert banner is not None
    assert banner["mode"] == "fix"
    assert banner["iteration"] == 3
    assert "iteration 2" in banner["message"]
    assert "developer agent" in banner["message"]


def test_the_gate_step_names_forbidden_actions_and_expected_output():
    doc = render_step(FLOW, "review", {}, {})
    assert doc.forbidden
    assert doc.expected
    assert doc.dispatch is not None
    assert doc.dispatch["mode"] == "free-form"
    data = doc.to_data()
    assert set(data["qr"]) >= set(PILLARS)
