"""The MCP tools: each a JSON schema and a call into the same Python API the CLI command uses.

Nothing here imports the MCP SDK, so the tool table can be tested (and documented) without it;
`server.py` turns these into protocol objects. Every tool returns the CLI's document, so the
structured content is exactly what `swarm-handoff <command> --format json` prints.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from swarm_handoff.api import Document, ErrorCode, PluginHost, SwarmError, UsageError

Confirm = Callable[[str], bool]

# Argument limits: an agent's arguments are input like any other (never unbounded).
MAX_TEXT = 4096
MAX_LIST = 256
MAX_SYNTHESIS_BYTES = 1 << 20
MAX_TOP = 100


@attrs.frozen
class Call:
    """One tool call: its checked arguments, the plugin host and how to ask the user."""

    args: Mapping[str, Any]
    host: PluginHost
    confirm: Confirm | None = None
    progress: Callable[[str], None] = lambda _message: None


@attrs.frozen
class ToolSpec:
    """A tool as the server lists it: a name, what it is for, its argument schema and its body."""

    name: str
    description: str
    schema: dict[str, Any]
    run: Callable[[Call], Document]


def _text(description: str) -> dict[str, Any]:
    return {"type": "string", "maxLength": MAX_TEXT, "description": description}


def _schema(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required), "additionalProperties": False}


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
    for key in PATH_ARGUMENTS & set(args):
        args[key] = _absolute(args[key])
    return args


# Arguments naming files or folders. A client does not know the server's working folder, so
# relative paths are resolved here, once, and every document carries absolute paths.
PATH_ARGUMENTS = frozenset({"cwd", "path", "session", "synthesis", "project", "from_payload"})


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
        return f"{key} must be {' or '.join(allowed)}, not {type(value).__name__}"
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
        size = len(json.dumps(value, default=str))
        if size > MAX_SYNTHESIS_BYTES:
            return f"{key} is larger than {MAX_SYNTHESIS_BYTES} bytes as JSON"
    return None


def _cwd(call: Call) -> Path | None:
    from swarm_handoff.api import check_cwd

    cwd = call.args.get("cwd")
    path = Path(cwd) if cwd else None
    check_cwd(path)
    return path


def installed_scopes(host: PluginHost) -> list[str]:
    """Every scope a client may filter on: a source declares its scopes only when it is built, so build them all."""
    from swarm_handoff.api import Kind, Scope

    for name in host.components(Kind.SOURCE):
        # A broken source is reported when discovery runs it; its scopes stay unknown.
        with contextlib.suppress(SwarmError):
            host.get(Kind.SOURCE, name)
    return [s.value for s in Scope]


def _discover(call: Call) -> Document:
    from swarm_handoff.api import DiscoveryQuery, Scope, discover, make_context

    call.progress("scanning the skill folders")
    result = discover(make_context(_cwd(call)), call.host, show_all=bool(call.args.get("all", False)))
    # Checked once the sources ran, as the CLI does: a plugin's source declares its scopes when it is built.
    scopes = [s.value for s in Scope]
    bad = [s for s in call.args.get("scope", []) if s not in scopes]
    if bad:
        raise UsageError(f"unknown scope {bad[0]!r}", hint=f"use one of: {', '.join(scopes)}")
    query = DiscoveryQuery(
        accepts_from=call.args.get("accepts_from"),
        schema_version=call.args.get("schema_version"),
        inputs=tuple(call.args.get("input", [])),
    )
    return result.filtered(tuple(call.args.get("category", [])), tuple(call.args.get("scope", []))).queried(query)


def _why(call: Call) -> Document:
    from swarm_handoff.api import explain, make_context

    return explain(call.args["name"], make_context(_cwd(call)), call.host)


def _lint(call: Call) -> Document:
    from swarm_handoff.api import lint

    paths = call.args["path"]
    return lint([paths] if isinstance(paths, str) else paths)


class _Synthesis:
    """A synthesis given as a path, or as an object written to a private temporary file."""

    def __init__(self, value: Any) -> None:
        self.given = value
        self.temp: str | None = None

    def __enter__(self) -> Path | None:
        if self.given is None:  # none given: a continued chain carries the received context
            return None
        if isinstance(self.given, str):
            return Path(self.given)
        fd, self.temp = tempfile.mkstemp(prefix="swarm-handoff-mcp-synthesis-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(self.given, out)
        return Path(self.temp)

    def __exit__(self, *exc: object) -> None:
        if self.temp is not None:
            os.unlink(self.temp)


def _rank(call: Call) -> Document:
    from swarm_handoff.api import (
        DEFAULT_SCORER,
        DEFAULT_TOP,
        RankingRequest,
        discover,
        load_synthesis,
        make_context,
        parse_synthesis,
        rank,
        recorded_history,
    )

    given = call.args["synthesis"]
    synthesis = load_synthesis(Path(given)) if isinstance(given, str) else parse_synthesis(given, path="synthesis")
    chain = call.args.get("chain", [])
    source = call.args.get("source")
    if source and (not chain or chain[0] != source):  # the handing-off skill starts the chain
        chain = [source, *chain]
    request = RankingRequest(synthesis=synthesis, chain=",".join(chain), history=recorded_history())
    call.progress("discovering hand-off targets")
    found = discover(make_context(_cwd(call)), call.host)
    records = found.workflows
    if call.args.get("include_undeclared"):
        from swarm_handoff.api import with_undeclared

        records = tuple(with_undeclared(found))
    call.progress(f"ranking {len(records)} targets")
    return rank(
        records,
        request,
        scorer=call.args.get("scorer", DEFAULT_SCORER),
        top=call.args.get("top", DEFAULT_TOP),
        explain=bool(call.args.get("explain", False)),
        host=call.host,
        problems=found.problems,
    )


def _handoff(call: Call) -> Document:
    from swarm_handoff.api import HandoffOptions, UsageError, check_session, hand_off, make_context

    session = call.args["session"]
    check_session(session)
    received = call.args.get("from_payload")
    if received is None and "synthesis" not in call.args:
        raise UsageError(
            "handoff: neither synthesis nor from_payload was given",
            hint="give synthesis, or from_payload to continue the chain of a payload this skill received",
        )
    with _Synthesis(call.args.get("synthesis")) as synthesis:
        options = HandoffOptions(
            target=call.args["target"],
            synthesis=synthesis,
            received=Path(received) if received is not None else None,
            session=Path(session),
            # as the CLI's --schema: none given, the target's version decides (docs/payloads.md)
            schema=call.args.get("schema"),
            source=call.args.get("source"),
            reason=call.args.get("reason", ""),
            chain=tuple(call.args.get("chain", [])),
            health_check=bool(call.args.get("health_check", False)),
            sign=bool(call.args.get("sign", False)),
            allow_undeclared=bool(call.args.get("allow_undeclared", False)),
        )
        confirm = call.confirm
        if call.args.get("confirm_loop"):
            confirm = _yes
        return hand_off(options, host=call.host, context=make_context(), confirm=confirm)


def _yes(_message: str) -> bool:
    return True


def _verify(call: Call) -> Document:
    from swarm_handoff.api import verify_file

    return verify_file(Path(call.args["path"]), require_signature=bool(call.args.get("require_signature", False)))


def _validate(call: Call) -> Document:
    from swarm_handoff.api import validate_file

    report = validate_file(Path(call.args["path"]), call.host)
    if not report.valid:
        raise report.to_error()
    return report


def _ack(call: Call) -> Document:
    from swarm_handoff.api import AckReport, config_dir, load_payload, open_history, require_intact

    payload = Path(call.args["path"])
    data = load_payload(payload)
    if not isinstance(data, dict) or not isinstance(data.get("handoff"), dict):
        raise SwarmError(ErrorCode.INVALID_PAYLOAD, f"{payload} is not a hand-off payload")
    require_intact(payload, data, config_dir())
    with open_history(config_dir()) as history:
        row = history.acknowledge(payload.resolve(), data, call.args["status"])
        return AckReport(handoff=row, problems=history.problems)


def _history(call: Call) -> Document:
    from swarm_handoff.api import HistoryReport, TraceReport, UsageError, config_dir, open_history

    skill = call.args.get("skill")
    trace = call.args.get("trace")
    if trace is not None and skill is not None:
        raise UsageError("history: trace and skill cannot be combined", hint="pass one of them")
    with open_history(config_dir()) as store:
        if trace is not None:
            return TraceReport(trace_id=trace, hops=store.trace(trace), problems=store.problems)
        return HistoryReport(handoffs=tuple(store.list(skill)), skill=skill, problems=store.problems)


def _workflow_step(call: Call) -> Document:
    from swarm_handoff.api import SessionResources, coerce_state, get_registry, render_step

    registry = get_registry()
    workflow = registry.get(call.args["skill"])
    state = {str(k): coerce_state(str(v)) for k, v in call.args.get("state", {}).items()}
    params = {str(k): str(v) for k, v in call.args.get("params", {}).items()}
    provider = SessionResources(Path(call.args.get("project") or "."), find_workflow=registry.get)
    return render_step(workflow, call.args["step"], params, state, resources=provider, fmt="json")


def _ack_statuses() -> list[str]:
    from swarm_handoff.api import ACK_STATUSES

    return list(ACK_STATUSES)


_CWD = _text("Discover as if run from this folder (default: the server's working folder).")
_SYNTHESIS = {
    "type": ["object", "string"],
    "maxLength": MAX_TEXT,
    "description": "The synthesis: an object (as in a synthesis file), or the path of a YAML/JSON synthesis file.",
}
_STRINGS = {"type": "array", "items": {"type": "string", "maxLength": MAX_TEXT}, "maxItems": MAX_LIST}
_PATH = _text("The payload file (YAML or JSON).")


def tool_specs(scopes: Sequence[str] | None = None) -> tuple[ToolSpec, ...]:
    """The tools, in the order an agent uses them; `scopes` (default: those declared so far) bound `discover`."""
    if scopes is None:
        from swarm_handoff.api import Scope

        scopes = [s.value for s in Scope]
    return (
        ToolSpec(
            "discover",
            "List the skills that accept a hand-off, most local first (as `swarm-handoff discover --format json`).",
            _schema(
                {
                    "cwd": _CWD,
                    "category": {**_STRINGS, "description": "Only workflows in these categories."},
                    "scope": {
                        "type": "array",
                        "items": {"type": "string", "enum": list(scopes)},
                        "maxItems": MAX_LIST,
                        "description": "Only these scopes: the core's and every installed source's, most local first.",
                    },
                    "accepts_from": _text("Only workflows that accept a hand-off from this skill (--accepts-from)."),
                    "schema_version": _text("Only workflows a payload of this version suits (--schema-version)."),
                    "input": {**_STRINGS, "description": "Only workflows that take all these inputs (--input)."},
                    "all": {"type": "boolean", "description": "Also list skipped and shadowed skills."},
                }
            ),
            _discover,
        ),
        ToolSpec(
            "why",
            "Say every place a skill was looked for and what happened there (as `swarm-handoff why`).",
            _schema({"name": _text("The skill's name (its folder name)."), "cwd": _CWD}, ("name",)),
            _why,
        ),
        ToolSpec(
            "lint",
            "Check SKILL.md files or skill folders against the hand-off rules (as `swarm-handoff lint`).",
            _schema(
                {
                    "path": {
                        "type": ["string", "array"],
                        "items": {"type": "string", "maxLength": MAX_TEXT},
                        "maxLength": MAX_TEXT,
                        "maxItems": MAX_LIST,
                        "description": "A SKILL.md file or skill folder, or a list of them.",
                    }
                },
                ("path",),
            ),
            _lint,
        ),
        ToolSpec(
            "rank",
            "Rank the discovered hand-off targets for a synthesis: the Stage 4 menu (as `swarm-handoff rank`).",
            _schema(
                {
                    "synthesis": _SYNTHESIS,
                    "cwd": _CWD,
                    "scorer": _text("Scorer name (default: the built-in one)."),
                    "top": {"type": "integer", "minimum": 1, "maximum": MAX_TOP, "description": "Menu size."},
                    "chain": {**_STRINGS, "description": "The hand-off chain so far, source first."},
                    "source": _text("The skill handing off (put at the head of the chain)."),
                    "explain": {"type": "boolean", "description": "Show every factor's points and reason."},
                    "include_undeclared": {
                        "type": "boolean",
                        "description": "Also rank skills that declare no hand-off metadata (marked undeclared).",
                    },
                },
                ("synthesis",),
            ),
            _rank,
        ),
        ToolSpec(
            "handoff",
            "Build, validate and write a hand-off payload into the session folder (as `swarm-handoff handoff`). "
            "A target already in the chain needs the user's confirmation: asked through elicitation when the "
            "client supports it, else pass confirm_loop=true once the user agreed.",
            _schema(
                {
                    "target": _text("The skill to hand the work to."),
                    "synthesis": _SYNTHESIS,
                    "from_payload": _text(
                        "The payload this skill received: continue its chain (checked first; synthesis then "
                        "optional, and replaces its context) (as --from)."
                    ),
                    "session": _text("The session folder the payload is written into (must exist)."),
                    "schema": {"type": "string", "enum": ["2.0", "3.0"], "description": "Payload version."},
                    "source": _text("The handing-off skill (v3.0 only)."),
                    "reason": _text("Why this hand-off (meta.handoff_reason)."),
                    "chain": {**_STRINGS, "description": "The chain so far, source first."},
                    "health_check": {"type": "boolean", "description": "Run the target's health_check first."},
                    "sign": {"type": "boolean", "description": "Add an HMAC signature with the user's key."},
                    "allow_undeclared": {
                        "type": "boolean",
                        "description": "Hand off to a skill that declares no hand-off metadata (recorded as such).",
                    },
                    "confirm_loop": {
                        "type": "boolean",
                        "description": "The user confirmed handing off to a skill already in the chain (--yes).",
                    },
                },
                ("target", "session"),
            ),
            _handoff,
        ),
        ToolSpec(
            "verify",
            "Check a payload's hash, size, files, signature and expiry (as `swarm-handoff verify`).",
            _schema(
                {"path": _PATH, "require_signature": {"type": "boolean", "description": "Fail when unsigned."}},
                ("path",),
            ),
            _verify,
        ),
        ToolSpec(
            "validate",
            "Validate a payload of any version, reporting every problem (as `swarm-handoff validate`).",
            _schema({"path": _PATH}, ("path",)),
            _validate,
        ),
        ToolSpec(
            "ack",
            "Record the target's acknowledgment of a hand-off in the history (as `swarm-handoff ack`).",
            _schema(
                {"path": _PATH, "status": {"type": "string", "enum": _ack_statuses(), "description": "The outcome."}},
                ("path", "status"),
            ),
            _ack,
        ),
        ToolSpec(
            "history",
            "List recorded hand-offs, newest first, with their latest acknowledgment (as `swarm-handoff history`).",
            _schema(
                {
                    "skill": _text("Only hand-offs from or to this skill."),
                    "trace": _text("Show one chain (a v3.0 trace_id) hop by hop, oldest first (as --trace)."),
                }
            ),
            _history,
        ),
        ToolSpec(
            "workflow_step",
            "Show one workflow step (title, actions) and what to run next (as `swarm-handoff workflow step`).",
            _schema(
                {
                    "skill": _text("The workflow's name (the skill pack's workflow)."),
                    "step": _text("The step to show."),
                    "state": {"type": "object", "description": "Carried state, key: value."},
                    "params": {"type": "object", "description": "Workflow parameters, key: value."},
                    "project": _text("Project folder whose .claude/conventions override (default: '.')."),
                },
                ("skill", "step"),
            ),
            _workflow_step,
        ),
    )
