"""The `workflow` commands over in-process workflows: formats, exit codes, graph syntaxes."""

from __future__ import annotations

import pytest
import workflow_examples as ex


@pytest.fixture
def cli(swarm_cli, use_workflows):
    use_workflows(*ex.ALL)
    return swarm_cli


def test_list_names_every_workflow(cli):
    data = cli("workflow", "list", "--format", "json").json()
    assert [w["name"] for w in data["workflows"]] == sorted(w.name for w in ex.ALL)
    assert data["problems"] == []


def test_show_lists_params_steps_gates_and_embeds(cli):
    data = cli("workflow", "show", "think-demo", "--format", "json").json()
    assert data["params"][0]["name"] == "mode"
    assert data["params"][0]["domain"] == "one of full, quick"
    design = data["steps"][2]
    assert design["when"] == {"mode": ["full"]}
    assert design["phase"] == "deep"
    assert data["steps"][3]["title"] == "(dynamic)"
    qr = cli("workflow", "show", "qr-demo", "--format", "json").json()
    review = qr["steps"][1]
    assert review["handler"] == "dispatch"
    assert review["embed"] == [
        {"ref": "convention:severity", "source": "package", "origin": "swarm_handoff.workflow.conventions/severity.md"}
    ]


def test_show_text_output(cli):
    result = cli("workflow", "show", "linear-demo")
    assert result.exit_code == 0
    assert "gather" in result.stdout


def test_check_passes_for_valid_workflows(cli):
    result = cli("workflow", "check", "--format", "json")
    assert result.exit_code == 0
    assert result.json()["checked"] == sorted(w.name for w in ex.ALL)


def test_check_of_an_unknown_workflow_exits_1(cli):
    assert cli("workflow", "check", "nope").exit_code == 1


def test_graph_mermaid_is_printed_raw_in_text_format(cli):
    result = cli("workflow", "graph", "qr-demo")
    assert result.exit_code == 0
    assert result.stdout.startswith("flowchart TD\n")
    assert "s3 -->|skip| s4" in result.stdout


def test_graph_json_wraps_the_source(cli):
    data = cli("workflow", "graph", "qr-demo", "--as", "dot", "--format", "json").json()
    assert data["syntax"] == "dot"
    assert '"revise" -> "review" [label="ok"];' in data["source"]


def test_graph_with_an_unknown_syntax_is_a_usage_error(cli):
    result = cli("workflow", "graph", "qr-demo", "--as", "png")
    assert result.exit_code == 2
    assert "mermaid, dot" in result.stderr


def test_graph_of_an_unknown_workflow_exits_1(cli):
    assert cli("workflow", "graph", "nope").exit_code == 1


def test_every_command_has_help(cli):
    for command in ("list", "show", "check", "graph", "step"):
        assert cli("workflow", command, "--help").exit_code == 0


def test_check_cases_runs_every_generated_case(cli):
    result = cli("workflow", "check", "--cases", "--format", "json")
    assert result.exit_code == 0
    assert result.json()["cases_run"] is True


def test_check_cases_reports_a_loop_that_does_not_advance(swarm_cli, use_workflows):
    from typing import Annotated

    from swarm_handoff.workflow import Arg, Outcome, StepDef, Workflow

    def loop(ctx, sure: Annotated[bool, Arg("sure yet?", reported=True)]):
        return (Outcome.OK if sure else Outcome.ITERATE), {}

    use_workflows(Workflow("stuck", StepDef("think", handler=loop, next={Outcome.OK: None, Outcome.ITERATE: "think"})))
    assert swarm_cli("workflow", "check", "stuck").exit_code == 0  # the graph itself is fine
    result = swarm_cli("workflow", "check", "stuck", "--cases", "--format", "json")
    assert result.exit_code == 1
    problems = result.json()["error"]["problems"]
    assert len(problems) == 5  # one per generated iteration value, 1..max_iterations
    assert {p["code"] for p in problems} == {"WORKFLOW_RUN_FAILED"}
    assert all("unchanged state" in p["message"] for p in problems)
