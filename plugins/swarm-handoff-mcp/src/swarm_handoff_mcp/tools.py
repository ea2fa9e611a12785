"""The MCP tools: each a JSON schema and a call into the same Python API the CLI command uses.

This module is the tool table (names, descriptions, argument schemas); `arguments.py` checks the
arguments and `calls.py` holds the bodies. Nothing here imports the MCP SDK, so the tool table can
be tested (and documented) without it; `server.py` turns these into protocol objects. Every tool
returns the CLI's document, so the structured content is what `swarm-handoff <command> --format json`
prints. The limits, the checker and `installed_scopes` are re-exported: callers always found them here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from swarm_handoff.api import Document, PluginHost
from swarm_handoff_mcp import calls
from swarm_handoff_mcp.arguments import DISCOVER_PAGE, MAX_OFFSET, MAX_PAGE, object_schema, text_arg
from swarm_handoff_mcp.arguments import MAX_LIST as MAX_LIST
from swarm_handoff_mcp.arguments import MAX_SYNTHESIS_BYTES as MAX_SYNTHESIS_BYTES
from swarm_handoff_mcp.arguments import MAX_TEXT as MAX_TEXT
from swarm_handoff_mcp.arguments import MAX_TOP as MAX_TOP
from swarm_handoff_mcp.arguments import PATH_ARGUMENTS as PATH_ARGUMENTS
from swarm_handoff_mcp.arguments import check_arguments as check_arguments
from swarm_handoff_mcp.calls import installed_scopes as installed_scopes

Confirm = Callable[[str], bool]


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


def _ack_statuses() -> list[str]:
    from swarm_handoff.api import ACK_STATUSES

    return list(ACK_STATUSES)


_CWD = text_arg("Discover as if run from this folder (default: the server's working folder).")
_SYNTHESIS = {
    "type": ["object", "string"],
    "maxLength": MAX_TEXT,
    "description": "The synthesis: an object (as in a synthesis file), or the path of a YAML/JSON synthesis file.",
}
_STRINGS = {"type": "array", "items": {"type": "string", "maxLength": MAX_TEXT}, "maxItems": MAX_LIST}
_PATH = text_arg("The payload file (YAML or JSON).")


def tool_specs(scopes: Sequence[str] | None = None) -> tuple[ToolSpec, ...]:
    """The tools, in the order an agent uses them; `scopes` (default: those declared so far) bound `discover`."""
    if scopes is None:
        from swarm_handoff.api import Scope

        scopes = [s.value for s in Scope]
    return (
        ToolSpec(
            "discover",
            "List the skills that accept a hand-off, most local first (as `swarm-handoff discover --format json`).",
            object_schema(
                {
                    "cwd": _CWD,
                    "category": {**_STRINGS, "description": "Only workflows in these categories."},
                    "scope": {
                        "type": "array",
                        "items": {"type": "string", "enum": list(scopes)},
                        "maxItems": MAX_LIST,
                        "description": "Only these scopes: the core's and every installed source's, most local first.",
                    },
                    "accepts_from": text_arg("Only workflows that accept a hand-off from this skill (--accepts-from)."),
                    "schema_version": text_arg("Only workflows a payload of this version suits (--schema-version)."),
                    "input": {**_STRINGS, "description": "Only workflows that take all these inputs (--input)."},
                    "all": {"type": "boolean", "description": "Also list skipped and shadowed skills."},
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_PAGE,
                        "description": f"At most this many workflows (default {DISCOVER_PAGE}); a cut list has `page`.",
                    },
                    "offset": {
                        "type": "integer",
                        "minimum": 0,
                        "maximum": MAX_OFFSET,
                        "description": "Start at this workflow (default 0): the previous answer's `page.next_offset`.",
                    },
                }
            ),
            calls.discover_tool,
        ),
        ToolSpec(
            "why",
            "Say every place a skill was looked for and what happened there (as `swarm-handoff why`).",
            object_schema({"name": text_arg("The skill's name (its folder name)."), "cwd": _CWD}, ("name",)),
            calls.why_tool,
        ),
        ToolSpec(
            "lint",
            "Check SKILL.md files or skill folders against the hand-off rules (as `swarm-handoff lint`).",
            object_schema(
                {
                    "path": {
                        "type": ["string", "array"],
                        "items": {"type": "string", "maxLength": MAX_TEXT},
                        "maxLength": MAX_TEXT,
                        "maxItems": MAX_LIST,
                        "description": "A SKILL.md file or skill folder, or a list of them.",
                    },
                    "strict_spec": {
                        "type": "boolean",
                        "description": "Make Agent Skills spec findings errors (as `lint --strict-spec`).",
                    },
                },
                ("path",),
            ),
            calls.lint_tool,
        ),
        ToolSpec(
            "rank",
            "Rank the discovered hand-off targets for a synthesis: the Stage 4 menu (as `swarm-handoff rank`).",
            object_schema(
                {
                    "synthesis": _SYNTHESIS,
                    "cwd": _CWD,
                    "scorer": text_arg("Scorer name (default: the built-in one)."),
                    "top": {"type": "integer", "minimum": 1, "maximum": MAX_TOP, "description": "Menu size."},
                    "chain": {**_STRINGS, "description": "The hand-off chain so far, source first."},
                    "source": text_arg("The skill handing off (put at the head of the chain)."),
                    "explain": {"type": "boolean", "description": "Show every factor's points and reason."},
                    "include_undeclared": {
                        "type": "boolean",
                        "description": "Also rank skills that declare no hand-off metadata (marked undeclared).",
                    },
                },
                ("synthesis",),
            ),
            calls.rank_tool,
        ),
        ToolSpec(
            "handoff",
            "Build, validate and write a hand-off payload into the session folder (as `swarm-handoff handoff`). "
            "A target already in the chain needs the user's confirmation: asked through elicitation when the "
            "client supports it, else pass confirm_loop=true once the user agreed.",
            object_schema(
                {
                    "target": text_arg("The skill to hand the work to."),
                    "synthesis": _SYNTHESIS,
                    "from_payload": text_arg(
                        "The payload this skill received: continue its chain (checked first; synthesis then "
                        "optional, and replaces its context) (as --from)."
                    ),
                    "session": text_arg("The session folder the payload is written into (must exist)."),
                    "schema": {"type": "string", "enum": ["2.0", "3.0"], "description": "Payload version."},
                    "source": text_arg("The handing-off skill (v3.0 only)."),
                    "reason": text_arg("Why this hand-off (meta.handoff_reason)."),
                    "feedback": text_arg("The user's feedback (meta.user_feedback)."),
                    "chain": {**_STRINGS, "description": "The chain so far, source first."},
                    "health_check": {"type": "boolean", "description": "Run the target's health_check first."},
                    "sign": {"type": "boolean", "description": "Add an HMAC signature with the user's key."},
                    "override_accepts_from": {
                        "type": "boolean",
                        "description": "Hand off although the target's accepts_from does not list the source "
                        "(recorded in the payload and the history).",
                    },
                    "allow_undeclared": {
                        "type": "boolean",
                        "description": "Hand off to a skill that declares no hand-off metadata (recorded as such).",
                    },
                    "expires_in": text_arg(
                        "How long the payload stays valid: 90m, 3h, 2d (at most 30d); default 1h (as --expires-in)."
                    ),
                    "require_signature": {
                        "type": "boolean",
                        "description": "With from_payload: refuse an unsigned received payload or one with an "
                        "unsigned hop. Default: true when the user has a signing key; false continues, recorded "
                        "in the new payload (as --require-signature/--no-require-signature).",
                    },
                    "confirm_loop": {
                        "type": "boolean",
                        "description": "The user confirmed handing off to a skill already in the chain, and "
                        "approves a long chain (--yes).",
                    },
                },
                ("target", "session"),
            ),
            calls.handoff_tool,
        ),
        ToolSpec(
            "verify",
            "Check a payload's hash, size, files, signature and expiry (as `swarm-handoff verify`).",
            object_schema(
                {"path": _PATH, "require_signature": {"type": "boolean", "description": "Fail when unsigned."}},
                ("path",),
            ),
            calls.verify_tool,
        ),
        ToolSpec(
            "validate",
            "Validate a payload of any version, reporting every problem (as `swarm-handoff validate`).",
            object_schema({"path": _PATH}, ("path",)),
            calls.validate_tool,
        ),
        ToolSpec(
            "ack",
            "Record the target's acknowledgment of a hand-off in the history (as `swarm-handoff ack`).",
            object_schema(
                {
                    "path": _PATH,
                    "status": {"type": "string", "enum": _ack_statuses(), "description": "The outcome."},
                    "require_signature": {
                        "type": "boolean",
                        "description": "Refuse an unsigned payload or one with an unsigned hop. Default: true "
                        "when the user has a signing key.",
                    },
                },
                ("path", "status"),
            ),
            calls.ack_tool,
        ),
        ToolSpec(
            "history",
            "List recorded hand-offs, newest first, with their latest acknowledgment (as `swarm-handoff history`).",
            object_schema(
                {
                    "skill": text_arg("Only hand-offs from or to this skill."),
                    "trace": text_arg("Show one chain (a v3.0 trace_id) hop by hop, oldest first (as --trace)."),
                }
            ),
            calls.history_tool,
        ),
        ToolSpec(
            "workflow_step",
            "Show one workflow step (title, actions) and what to run next (as `swarm-handoff workflow step`).",
            object_schema(
                {
                    "skill": text_arg("The workflow's name (the skill pack's workflow)."),
                    "step": text_arg("The step to show."),
                    "state": {"type": "object", "description": "Carried state, key: value."},
                    "params": {"type": "object", "description": "Workflow parameters, key: value."},
                    "project": text_arg("Project folder whose .claude/conventions override (default: '.')."),
                },
                ("skill", "step"),
            ),
            calls.workflow_step_tool,
        ),
    )
