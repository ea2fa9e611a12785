"""The step protocol: one step per command, exact next commands, loops that progress and end."""

from __future__ import annotations

import shlex

import pytest
import workflow_examples as ex

from swarm_handoff.errors import SwarmError
from swarm_handoff.workflow import parse_command, render_step, step_command


@pytest.fixture
def cli(swarm_cli, use_workflows):
    use_workflows(*ex.ALL)

    def run(command_or_args, *extra):
        args = shlex.split(command_or_args)[1:] if isinstance(command_or_args, str) else list(command_or_args)
        return swarm_cli(*args, *extra)

    return run


def test_a_linear_step_has_exactly_one_next_command():
    doc = render_step(ex.LINEAR, "gather")
    assert (doc.index, doc.total, doc.routing) == (1, 3, "linear")
    assert doc.title == "Gather the facts"
    assert doc.actions == ("List the facts", "List the assumptions")
    [nxt] = doc.next
    assert nxt.label == "next"
    assert nxt.command == "swarm-handoff workflow step linear-demo weigh"
    assert nxt.index == 2


def test_a_terminal_step_has_no_next_command():
    doc = render_step(ex.LINEAR, "decide")
    assert doc.routing == "terminal"
    assert doc.next == ()
    assert doc.to_data()["next"] == []


def test_a_dispatch_step_branches_if_pass_and_if_fail_with_the_review_state():
    doc = render_step(ex.QR_GATE, "review", state={"qr_iteration": 2})
    assert doc.routing == "branch"
    by_label = {n.label: n for n in doc.next}
    assert set(by_label) == {"if-pass", "if-fail"}
    fail = parse_command(by_label["if-fail"].command)
    assert fail.step == "revise"
    assert fail.state == {"qr_failed": "true", "qr_iteration": "3", "qr_status": "fail"}
    assert parse_command(by_label["if-pass"].command).state["qr_status"] == "pass"
    assert doc.dispatch["agent"] == "quality-reviewer"


def test_reported_values_with_the_same_effect_share_one_command():
    doc = render_step(ex.ITERATION, "investigate", state={"iteration": 2})
    assert [n.label for n in doc.next] == ["if-exploring/low/medium", "if-high", "if-certain"]
    assert parse_command(doc.next[0].command).state == {"iteration": "3"}


def test_at_the_iteration_cap_every_answer_leaves_the_loop():
    doc = render_step(ex.ITERATION, "investigate", state={"iteration": 4})
    assert {parse_command(n.command).step for n in doc.next} == {"report"}


def test_giving_the_reported_value_up_front_resolves_the_branch():
    doc = render_step(ex.ITERATION, "investigate", {"confidence": "certain"})
    assert doc.routing == "linear"
    assert parse_command(doc.next[0].command).step == "report"
    assert doc.params == {}  # a reported value is not carried as a parameter


def test_parameters_are_carried_and_shell_quoted():
    doc = render_step(ex.MODES, "plan", {"mode": "quick"})
    assert doc.next[0].command == "swarm-handoff workflow step think-demo refine --param mode=quick"
    quoted = step_command("w", "s", {"topic": "it's complicated"}, {"note": "a b"})
    assert shlex.split(quoted)[5:] == ["--param", "topic=it's complicated", "--state", "note=a b"]


def test_a_dynamic_step_renders_its_title_and_actions_from_the_context():
    doc = render_step(ex.HYBRID, "explore", {"agents": "3"})
    assert doc.title == "Dispatch 3 explorers"
    assert len(doc.actions) == 3
    refine = render_step(ex.MODES, "refine", state={"iteration": 3})
    assert refine.title == "Refine (iteration 3)"


def test_an_invalid_step_id_is_a_structured_error_never_a_key_error():
    with pytest.raises(SwarmError) as caught:
        render_step(ex.LINEAR, "step-9")
    assert caught.value.code == "WORKFLOW_STEP_NOT_FOUND"
    assert caught.value.details["available"] == ["gather", "weigh", "decide"]


def test_an_invalid_step_id_on_the_command_line_exits_1_listing_valid_ids(cli):
    result = cli(["workflow", "step", "linear-demo", "7", "--format", "json"])
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "WORKFLOW_STEP_NOT_FOUND"
    assert error["details"]["available"] == ["gather", "weigh", "decide"]
    assert "KeyError" not in result.stdout + result.stderr
    text = cli(["workflow", "step", "linear-demo", "7"])
    assert text.exit_code == 1
    assert "choose one of: gather, weigh, decide" in text.stderr


def test_following_the_if_fail_commands_of_a_qr_loop_terminates(cli):
    """The counter rides along in each command, so an always-failing review still ends."""
    command = "swarm-handoff workflow step qr-demo implement --format json"
    seen = []
    for _ in range(20):
        result = cli(command)
        assert result.exit_code == 0, result.stdout + result.stderr
        doc = result.json()
        seen.append((doc["step"], doc["state"].get("qr_iteration")))
        if not doc["next"]:
            break
        by_label = {n["label"]: n for n in doc["next"]}
        command = (by_label.get("if-fail") or by_label["next"])["command"]
    else:
        pytest.fail(f"the review loop did not end: {seen}")
    assert seen[-1][0] == "ask"
    assert [it for step, it in seen if step == "review"] == [None, 2, 3]
    assert "--format json" in command


def test_following_the_not_confident_commands_of_an_iteration_terminates(cli):
    command = "swarm-handoff workflow step iterate-demo investigate --format json"
    steps = []
    for _ in range(20):
        doc = cli(command).json()
        steps.append(doc["step"])
        if not doc["next"]:
            break
        command = doc["next"][0]["command"]  # the first branch is the "still exploring" one
    assert steps == ["investigate"] * 4 + ["report"]


def test_unknown_workflow_lists_the_known_ones(cli):
    result = cli(["workflow", "step", "nope", "a", "--format", "json"])
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "WORKFLOW_NOT_FOUND"
    assert "linear-demo" in error["details"]["available"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--param", "mode=slow"], "full, quick"),
        (["--param", "mode"], "key=value"),
        (["--param", "=x"], "key=value"),
        (["--param", "colour=red"], "known parameters: mode"),
        (["--param", "mode=full", "--param", "mode=quick"], "given twice"),
        (["--state", "no-equals-sign"], "key=value"),
    ],
)
def test_bad_parameters_are_structured_errors_with_exit_1(cli, args, needle):
    result = cli(["workflow", "step", "think-demo", "plan", *args, "--format", "json"])
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "WORKFLOW_PARAM_INVALID"
    assert needle in error["message"] + (error.get("hint") or "")


def test_an_int_parameter_outside_its_bounds_names_the_range(cli):
    result = cli(["workflow", "step", "hybrid-demo", "explore", "--param", "agents=9", "--format", "json"])
    assert result.exit_code == 1
    assert "at most 3" in result.json()["error"]["message"]


def test_a_gated_out_step_is_refused(cli):
    result = cli(["workflow", "step", "think-demo", "design", "--param", "mode=quick", "--format", "json"])
    assert result.exit_code == 1
    assert "does not run with mode=quick" in result.json()["error"]["message"]


def test_text_and_yaml_output_work(cli):
    text = cli(["workflow", "step", "linear-demo", "gather"])
    assert text.exit_code == 0
    assert "swarm-handoff workflow step linear-demo weigh" in text.stdout
    assert cli(["workflow", "step", "linear-demo", "gather", "--format", "yaml"]).exit_code == 0


def test_an_embedded_convention_is_shown_with_its_source(cli, tmp_path):
    doc = cli(["workflow", "step", "qr-demo", "review", "--project", str(tmp_path), "--format", "json"]).json()
    [resource] = doc["resources"]
    assert resource["source"] == "package"
    override = tmp_path / ".claude" / "conventions" / "severity.md"
    override.parent.mkdir(parents=True)
    override.write_text("Our own severity rules.\n", encoding="utf-8")
    doc = cli(["workflow", "step", "qr-demo", "review", "--project", str(tmp_path), "--format", "json"]).json()
    assert doc["resources"][0]["source"] == "project"
    assert doc["resources"][0]["text"] == "Our own severity rules.\n"


def test_parse_command_refuses_other_commands():
    with pytest.raises(ValueError, match="not a workflow step command"):
        parse_command("rm -rf /")


def _gated_review(**dispatch):
    from swarm_handoff.workflow import AgentRole, Dispatch, Outcome, StepDef, Workflow

    return Workflow(
        "gated-demo",
        StepDef(
            "review",
            "Review",
            ["Review the change"],
            Dispatch(AgentRole.QUALITY_REVIEWER, prompt="Review", **dispatch),
            {Outcome.OK: None, Outcome.FAIL: "review"},
        ),
    )


def test_a_dispatch_with_question_relay_adds_the_orchestrator_instructions():
    from swarm_handoff.workflow import QUESTION_RELAY_HANDLER

    assert QUESTION_RELAY_HANDLER in render_step(_gated_review(relay_questions=True), "review").actions
    assert QUESTION_RELAY_HANDLER not in render_step(_gated_review(), "review").actions


def test_a_gated_dispatch_states_the_blocking_severities_of_the_round(register_plugin):
    from swarm_handoff.api import hookimpl

    class Strict:
        def blocking(self, iteration):
            return {"MUST", "SHOULD"} if iteration < 3 else {"MUST"}

        def exhausted(self, iteration):
            return iteration > 3

    class Gates:
        @hookimpl
        def swarm_handoff_qr_gates(self, register):
            register("strict", Strict)

    register_plugin(Gates(), "gates")
    workflow = _gated_review(gate="strict")
    first = render_step(workflow, "review").actions[-1]
    assert first.startswith("Review round 1: findings of severity MUST, SHOULD block.")
    assert "past the gate's limit" not in first
    late = render_step(workflow, "review", state={"qr_iteration": 4}).actions[-1]
    assert late.startswith("Review round 4: findings of severity MUST block.")
    assert "past the gate's limit" in late


def test_an_unknown_gate_is_a_structured_error(swarm_host):
    with pytest.raises(SwarmError) as caught:
        render_step(_gated_review(gate="nope"), "review")
    assert caught.value.code == "UNKNOWN_COMPONENT"


def test_a_failing_dynamic_title_is_a_named_error():
    from swarm_handoff.workflow import StepDef, Workflow

    workflow = Workflow("broken-text", StepDef("only", lambda ctx: 1 / 0, ["x"]))
    with pytest.raises(SwarmError) as caught:
        render_step(workflow, "only")
    assert caught.value.code == "WORKFLOW_RUN_FAILED"
    assert "step 'only': building the title raised ZeroDivisionError" in caught.value.message


def test_a_dispatch_whose_verdict_is_given_has_one_next_command():
    doc = render_step(ex.QR_GATE, "review", {"verdict": "pass"})
    assert doc.routing == "linear"
    assert doc.actions[-1].endswith("Then run the next command.")
