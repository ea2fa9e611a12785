"""Issue 26 point 12: behaviour that departs from the seeds on purpose, pinned (docs/seed-deviations.md)."""

from __future__ import annotations

import pytest

import swarm_handoff.api as api
import swarm_handoff.workflow as workflow
from swarm_handoff.errors import SwarmError
from swarm_handoff.render import available_formats, render
from swarm_handoff.workflow import Outcome, StepDef, Workflow, render_step

# The composable formatters skills-system.md names; here a step's sections are fields of StepDef.
SEED_FORMATTERS = (
    "format_step_output",
    "format_gate_step",
    "format_state_banner",
    "format_forbidden",
    "format_expected_output",
    "format_subagent_dispatch",
    "format_qr_banner",
    "format_resource",
    "format_text_output",
    "format_qr_file_output",
)


def ok(ctx):
    return Outcome.OK, {}


def test_the_core_alone_prints_text_json_and_yaml_and_xml_comes_from_a_plugin(swarm_host):
    assert set(available_formats(swarm_host)) == {"text", "json", "yaml"}
    flow = Workflow("pin", StepDef("only", "Only", ["Do it"], next={Outcome.OK: None}))
    assert render(render_step(flow, "only"), "text", swarm_host).startswith("pin: step 1 of 1")


def test_a_workflow_is_checked_when_built_and_needs_no_registration_call_or_decorator():
    for module in (workflow, api):
        assert not hasattr(module, "register_workflow")
        assert not hasattr(module, "skill")
    with pytest.raises(SwarmError) as caught:
        Workflow("pin", StepDef("start", "Start", ["Go"], ok, {Outcome.OK: "missing"}))
    assert caught.value.code == "WORKFLOW_INVALID"


def test_step_sections_are_fields_of_the_step_not_formatter_functions():
    for module in (workflow, api):
        assert [name for name in SEED_FORMATTERS if hasattr(module, name)] == []
    flow = Workflow(
        "pin",
        StepDef(
            "only",
            "Only",
            ["Do it"],
            next={Outcome.OK: None},
            forbidden=("Do not guess",),
            expected=("a list",),
            banner={"checkpoint": "c", "iteration": 2, "mode": "fix", "message": "fix it"},
        ),
    )
    text = render(render_step(flow, "only"), "text")
    for part in ("Do not guess", "a list", "fix it"):
        assert part in text
