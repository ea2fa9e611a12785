"""Workflows as data: steps, outcomes and transitions that can be checked, drawn and enumerated.

Importing `swarm_handoff` does not import this package; importing this package loads no skill
pack (the registry reads the entry points only when asked) and never imports typer.

The names below are imported on first use (PEP 562): a skill pack that only needs `Workflow` and
`StepDef` should not pay for the exhaustive-case generator, the step protocol or the runner.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from swarm_handoff.workflow.engine import Transition as Transition
    from swarm_handoff.workflow.engine import transitions as transitions
    from swarm_handoff.workflow.exhaustive import BoundedInt as BoundedInt
    from swarm_handoff.workflow.exhaustive import Case as Case
    from swarm_handoff.workflow.exhaustive import ChoiceSet as ChoiceSet
    from swarm_handoff.workflow.exhaustive import Constant as Constant
    from swarm_handoff.workflow.exhaustive import StepSchema as StepSchema
    from swarm_handoff.workflow.exhaustive import extract_schema as extract_schema
    from swarm_handoff.workflow.exhaustive import generate_cases as generate_cases
    from swarm_handoff.workflow.exhaustive import run_case as run_case
    from swarm_handoff.workflow.graph import to_dot as to_dot
    from swarm_handoff.workflow.graph import to_mermaid as to_mermaid
    from swarm_handoff.workflow.model import Workflow as Workflow
    from swarm_handoff.workflow.params import Param as Param
    from swarm_handoff.workflow.protocol import NextCommand as NextCommand
    from swarm_handoff.workflow.protocol import StepDocument as StepDocument
    from swarm_handoff.workflow.protocol import parse_command as parse_command
    from swarm_handoff.workflow.protocol import render_step as render_step
    from swarm_handoff.workflow.protocol import step_command as step_command
    from swarm_handoff.workflow.registry import RegisteredWorkflow as RegisteredWorkflow
    from swarm_handoff.workflow.registry import WorkflowRegistry as WorkflowRegistry
    from swarm_handoff.workflow.registry import get_registry as get_registry
    from swarm_handoff.workflow.registry import load_registry as load_registry
    from swarm_handoff.workflow.registry import reset_registry as reset_registry
    from swarm_handoff.workflow.registry import set_registry as set_registry
    from swarm_handoff.workflow.relay import QUESTION_RELAY_HANDLER as QUESTION_RELAY_HANDLER
    from swarm_handoff.workflow.relay import SUB_AGENT_QUESTION_FORMAT as SUB_AGENT_QUESTION_FORMAT
    from swarm_handoff.workflow.relay import Question as Question
    from swarm_handoff.workflow.relay import RelayRequest as RelayRequest
    from swarm_handoff.workflow.relay import format_relay as format_relay
    from swarm_handoff.workflow.relay import parse_relay as parse_relay
    from swarm_handoff.workflow.resources import Resource as Resource
    from swarm_handoff.workflow.resources import ResourceProvider as ResourceProvider
    from swarm_handoff.workflow.resources import SessionResources as SessionResources
    from swarm_handoff.workflow.runner import RunResult as RunResult
    from swarm_handoff.workflow.runner import RunStep as RunStep
    from swarm_handoff.workflow.runner import run_workflow as run_workflow
    from swarm_handoff.workflow.types import AgentRole as AgentRole
    from swarm_handoff.workflow.types import Arg as Arg
    from swarm_handoff.workflow.types import Dispatch as Dispatch
    from swarm_handoff.workflow.types import Outcome as Outcome
    from swarm_handoff.workflow.types import StepContext as StepContext
    from swarm_handoff.workflow.types import StepDef as StepDef

# Each public name and the submodule that defines it.
_LAZY: dict[str, str] = {
    "Transition": "engine",
    "transitions": "engine",
    "BoundedInt": "exhaustive",
    "Case": "exhaustive",
    "ChoiceSet": "exhaustive",
    "Constant": "exhaustive",
    "StepSchema": "exhaustive",
    "extract_schema": "exhaustive",
    "generate_cases": "exhaustive",
    "run_case": "exhaustive",
    "to_dot": "graph",
    "to_mermaid": "graph",
    "Workflow": "model",
    "Param": "params",
    "NextCommand": "protocol",
    "StepDocument": "protocol",
    "parse_command": "protocol",
    "render_step": "protocol",
    "step_command": "protocol",
    "RegisteredWorkflow": "registry",
    "WorkflowRegistry": "registry",
    "get_registry": "registry",
    "load_registry": "registry",
    "reset_registry": "registry",
    "set_registry": "registry",
    "QUESTION_RELAY_HANDLER": "relay",
    "Question": "relay",
    "RelayRequest": "relay",
    "SUB_AGENT_QUESTION_FORMAT": "relay",
    "format_relay": "relay",
    "parse_relay": "relay",
    "Resource": "resources",
    "ResourceProvider": "resources",
    "SessionResources": "resources",
    "RunResult": "runner",
    "RunStep": "runner",
    "run_workflow": "runner",
    "AgentRole": "types",
    "Arg": "types",
    "Dispatch": "types",
    "Outcome": "types",
    "StepContext": "types",
    "StepDef": "types",
}

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


def __getattr__(name: str) -> Any:
    """Import the submodule that defines `name` on first use, then keep the name here."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """List the lazy names too, as if they had been imported eagerly."""
    return sorted(set(globals()) | set(__all__))
