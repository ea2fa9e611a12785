"""The tools' arguments: bounded JSON schemas, and checking them ourselves (a client may skip validation).

Each schema is derived from the operation's parameters in the core's operations table (`Param`):
its MCP spelling, type, help, choices and bounds; this module adds only the bounds every agent's
argument gets (text length, list length, object size). Paths an agent gives are made absolute
here, once: a client does not know the server's working folder, and every document then carries
absolute paths.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from swarm_handoff.api import MCP, YAML_TOO_DEEP, LoadError, UsageError, check_size, type_name

if TYPE_CHECKING:
    from swarm_handoff.api import Operation, Param
    from swarm_handoff_mcp.tools import ToolSpec

# Argument limits: an agent's arguments are input like any other (never unbounded).
MAX_TEXT = 4096
MAX_LIST = 256
MAX_SYNTHESIS_BYTES = 1 << 20
# How deep an object argument may nest (a synthesis reads at most 32 levels); checked before any work.
MAX_ARGUMENT_DEPTH = 32


def text_arg(description: str) -> dict[str, Any]:
    """A bounded text argument: an agent's arguments are input like any other."""
    return {"type": "string", "maxLength": MAX_TEXT, "description": description}


def object_schema(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """A tool's argument object: closed, so a misspelt argument is refused rather than ignored."""
    return {"type": "object", "properties": properties, "required": list(required), "additionalProperties": False}


def _strings() -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string", "maxLength": MAX_TEXT}, "maxItems": MAX_LIST}


def property_schema(param: Param, scopes: Sequence[str]) -> dict[str, Any]:
    """One argument's bounded JSON schema, from the operation's parameter."""
    shape = param.tool_type
    schema: dict[str, Any]
    if shape == "object":
        schema = {"type": "object"}
    elif shape == "text-or-object":
        schema = {"type": ["object", "string"], "maxLength": MAX_TEXT}
    elif shape == "text-or-list":
        schema = {**_strings(), "type": ["string", "array"], "maxLength": MAX_TEXT}
    elif shape == "list" or param.repeatable:
        schema = _strings()
        if param.complete == "scope":  # the scopes declared when the tools are listed, no others
            schema["items"] = {"type": "string", "enum": list(scopes)}
    elif param.type is bool:
        schema = {"type": "boolean"}
    elif param.type is int:
        schema = {"type": "integer"}
        if param.minimum is not None:
            schema["minimum"] = param.minimum
        if param.maximum is not None:
            schema["maximum"] = param.maximum
    else:
        choices = param.choice_values()
        schema = {"type": "string", "enum": list(choices)} if choices else {"type": "string", "maxLength": MAX_TEXT}
    schema.update(param.tool_schema or {})
    schema["description"] = param.tool_help_text()
    return schema


def operation_schema(operation: Operation, scopes: Sequence[str]) -> dict[str, Any]:
    """A tool's argument object, from the operation's MCP parameters."""
    params = operation.on(MCP)
    return object_schema(
        {p.mcp_spelling: property_schema(p, scopes) for p in params},
        tuple(p.mcp_spelling for p in params if p.tool_is_required),
    )


def path_arguments(operations: Sequence[Operation]) -> frozenset[str]:
    """The tools' arguments naming files or folders (`Param.path`), as the tools spell them."""
    return frozenset(p.mcp_spelling for op in operations if op.tool for p in op.on(MCP) if p.path)


def check_arguments(spec: ToolSpec, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
    """Check arguments against the tool's schema ourselves: a client may skip validation."""
    args = dict(arguments or {})
    props: dict[str, Any] = spec.schema["properties"]
    problems = [f"unknown argument {key!r}" for key in args if key not in props]
    problems += [f"missing required argument {key!r}" for key in spec.schema["required"] if key not in args]
    for key, value in args.items():
        if key in props:
            problem = _check_value(key, value, props[key])
            if problem:
                problems.append(problem)
    if problems:
        raise UsageError(
            f"{spec.name}: {'; '.join(problems)}",
            hint=f"see the input schema of `{spec.name}` in tools/list",
            tool=spec.name,
            validation_errors=problems,
        )
    for key in spec.paths & set(args):
        args[key] = _absolute(args[key])
    return args


def _absolute(value: Any) -> Any:
    if isinstance(value, list):
        return [_absolute(item) for item in value]
    if isinstance(value, str) and value.strip():
        return str(Path(value).expanduser().absolute())
    return value  # an empty text stays empty, for the command's own "is empty" error


def _check_value(key: str, value: Any, prop: Mapping[str, Any]) -> str | None:
    kinds = prop.get("type", "string")
    allowed: list[str] = kinds if isinstance(kinds, list) else [str(kinds)]
    checks = {
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list),
        "null": lambda v: v is None,
    }
    if not any(checks[kind](value) for kind in allowed):
        return f"{key} must be {' or '.join(allowed)}, not {type_name(value, json=True)}"
    if isinstance(value, str):
        if len(value) > prop.get("maxLength", MAX_TEXT):
            return f"{key} is longer than {prop.get('maxLength', MAX_TEXT)} characters"
        if "enum" in prop and value not in prop["enum"]:
            return f"{key} must be one of {', '.join(prop['enum'])}"
    if isinstance(value, list):
        if len(value) > MAX_LIST:
            return f"{key} has more than {MAX_LIST} items"
        if not all(isinstance(item, str) and len(item) <= MAX_TEXT for item in value):
            return f"{key} must be a list of strings"
    if (
        isinstance(value, int)
        and not isinstance(value, bool)
        and not prop.get("minimum", value) <= value <= prop.get("maximum", value)
    ):
        return f"{key} must be between {prop.get('minimum')} and {prop.get('maximum')}"
    if isinstance(value, dict):
        problem = _shape_problem(key, value)  # before json.dumps, whose recursion a deep value exhausts
        if problem:
            return problem
        size = len(json.dumps(value, default=str))
        if size > MAX_SYNTHESIS_BYTES:
            return f"{key} is larger than {MAX_SYNTHESIS_BYTES} bytes as JSON"
    return None


def _shape_problem(key: str, value: Any) -> str | None:
    """The core's limits on loaded data (`check_size`: depth, number of values, integer size), argument-bound deep."""
    try:
        check_size(value, max_depth=MAX_ARGUMENT_DEPTH)
    except LoadError as exc:
        if exc.problem.code == YAML_TOO_DEEP:
            return f"{key} is nested more than {MAX_ARGUMENT_DEPTH} deep"
        return f"{key}: {exc.problem.message}"
    return None
