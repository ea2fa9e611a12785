"""Workflows as data: steps, outcomes and transitions that can be checked, drawn and enumerated.

Importing `swarm_handoff` does not import this package; importing this package loads no skill
pack (the registry reads the entry points only when asked) and never imports typer.
"""

from __future__ import annotations

from swarm_handoff.workflow.engine import Transition, transitions
from swarm_handoff.workflow.exhaustive import (
    BoundedInt,
    Case,
    ChoiceSet,
    Constant,
    StepSchema,
    extract_schema,
    generate_cases,
    run_case,
)
from swarm_handoff.workflow.graph import to_dot, to_mermaid
from swarm_handoff.workflow.model import Workflow
from swarm_handoff.workflow.params import Param
from swarm_handoff.workflow.protocol import NextCommand, StepDocument, parse_command, render_step, step_command
from swarm_handoff.workflow.registry import (
    RegisteredWorkflow,
    WorkflowRegistry,
    get_registry,
    load_registry,
    reset_registry,
    set_registry,
)
from swarm_handoff.workflow.relay import (
    QUESTION_RELAY_HANDLER,
    SUB_AGENT_QUESTION_FORMAT,
    Question,
    RelayRequest,
    format_relay,
    parse_relay,
)
from swarm_handoff.workflow.resources import Resource, ResourceProvider, SessionResources
from swarm_handoff.workflow.runner import RunResult, RunStep, run_workflow
from swarm_handoff.workflow.types import AgentRole, Arg, Dispatch, Outcome, StepContext, StepDef

__all__ = [
    "QUESTION_RELAY_HANDLER",
    "SUB_AGENT_QUESTION_FORMAT",
    "AgentRole",
    "Arg",
    "BoundedInt",
    "Case",
    "ChoiceSet",
    "Constant",
    "Dispatch",
    "NextCommand",
    "Outcome",
    "Param",
    "Question",
    "RegisteredWorkflow",
    "RelayRequest",
    "Resource",
    "ResourceProvider",
    "RunResult",
    "RunStep",
    "SessionResources",
    "StepContext",
    "StepDef",
    "StepDocument",
    "StepSchema",
    "Transition",
    "Workflow",
    "WorkflowRegistry",
    "extract_schema",
    "format_relay",
    "generate_cases",
    "get_registry",
    "load_registry",
    "parse_command",
    "parse_relay",
    "render_step",
    "reset_registry",
    "run_case",
    "run_workflow",
    "set_registry",
    "step_command",
    "to_dot",
    "to_mermaid",
    "transitions",
]
