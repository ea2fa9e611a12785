"""The rows of the payload commands: `handoff`, `validate`, `verify`, `convert`, `ack`, `history`."""

from __future__ import annotations

from pathlib import Path

from swarm_handoff.operation_table.shared_help import SYNTHESIS_TOOL_HELP
from swarm_handoff.operations import CLI_ONLY, Operation, Param
from swarm_handoff.ranking_options import MAX_REQUEST_CHARS

_PAYLOAD = Param(
    "payload",
    Path,
    "The payload file (YAML or JSON).",
    required=True,
    argument=True,
    tool_name="path",
    path=True,
)

HANDOFF = Operation(
    "handoff",
    "Build, validate and write a hand-off payload, then print the command that hands it over.",
    (
        Param(
            "target",
            help="The skill to hand the work to.",
            required=True,
            argument=True,
            complete="skill",
        ),
        Param(
            "session",
            help="The session folder the payload is written into (must exist).",
            required=True,
            path=True,
        ),
        Param(
            "synthesis",
            Path,
            "The synthesis file (YAML or JSON); with --from, replaces its context.",
            tool_type="text-or-object",
            tool_help=SYNTHESIS_TOOL_HELP,
            path=True,
        ),
        Param(
            "request",
            help="A request in words instead of a synthesis file: it becomes original_prompt "
            "(see docs/payloads.md for the defaults).",
            tool_help="A request in words instead of synthesis: it becomes original_prompt "
            "(see docs/payloads.md for the defaults).",
            tool_schema={"maxLength": MAX_REQUEST_CHARS},  # as rank and route: one bound for a request in words
        ),
        Param(
            "problem_type",
            help="With --request: the problem type it carries (default: analytical).",
            tool_help="With request: the problem type it carries (default: analytical).",
        ),
        Param(
            "received",
            Path,
            "Continue the chain of the payload this skill received (checked first; no synthesis needed).",
            flags=("--from",),
            tool_name="from_payload",
            tool_help="The payload this skill received: continue its chain (checked first; synthesis then "
            "optional, and replaces its context) (as --from).",
            path=True,
        ),
        Param(
            "schema",
            help="Force the payload version (2.0 or 3.0); default: the target's version.",
            choices=("2.0", "3.0"),
            tool_help="Payload version.",
        ),
        Param("source", help="The handing-off skill (v3.0 only).", complete="skill"),
        Param("reason", help="Why this hand-off (meta.handoff_reason).", default=""),
        Param("feedback", help="The user's feedback (meta.user_feedback)."),
        Param(
            "chain",
            help="The chain so far, comma-separated, source first.",
            tool_type="list",
            tool_help="The chain so far, source first.",
        ),
        Param("health_check", bool, "Run the target's health_check first.", default=False),
        Param(
            "confirm",
            bool,
            "Confirm loop and long-chain questions.",
            default=False,
            flags=("--yes", "-y"),
            tool_name="confirm_loop",
            tool_help="The user confirmed handing off to a skill already in the chain, and "
            "approves a long chain (--yes).",
        ),
        Param(
            "sign",
            bool,
            "Add an HMAC signature with your key (made on first use).",
            default=False,
            tool_help="Add an HMAC signature with the user's key.",
        ),
        Param(
            "override_accepts_from",
            bool,
            "Hand off although the target's accepts_from does not list the source (recorded).",
            default=False,
            tool_help="Hand off although the target's accepts_from does not list the source "
            "(recorded in the payload and the history).",
        ),
        Param(
            "allow_undeclared",
            bool,
            "Hand off to a skill that declares no hand-off metadata (recorded; rank --include-undeclared).",
            default=False,
            tool_help="Hand off to a skill that declares no hand-off metadata (recorded as such).",
        ),
        Param(
            "expires_in",
            help="How long the payload stays valid: 90m, 3h, 2d (at most 30d); default: 1h.",
            tool_help="How long the payload stays valid: 90m, 3h, 2d (at most 30d); default 1h (as --expires-in).",
        ),
        Param(
            "require_signature",
            bool,
            "With --from: refuse an unsigned received payload, or one with an unsigned hop "
            "(default: on when you have a signing key; --no-require-signature continues, recorded).",
            flags=("--require-signature/--no-require-signature",),
            tool_help="With from_payload: refuse an unsigned received payload or one with an "
            "unsigned hop. Default: true when the user has a signing key; false continues, recorded "
            "in the new payload (as --require-signature/--no-require-signature).",
        ),
        Param(
            "to",
            help="Also send the payload to the host at this URL (written here first; "
            "needs a transport plugin: swarm-handoff-a2a for http(s); see docs/a2a.md).",
            surfaces=CLI_ONLY,
        ),
    ),
    "swarm_handoff.cli.handoff_commands:handoff_operation",
    examples=(
        "swarm-handoff handoff code-review --synthesis synthesis.yaml --source planner --session DIR",
        'swarm-handoff handoff code-review --request "review my change for security holes" --session DIR',
        "swarm-handoff handoff code-review --synthesis synthesis.yaml --session DIR --to http://build-host:8470/",
    ),
    docs="docs/payloads.md",
    mcp=True,
    tool_summary="Build, validate and write a hand-off payload into the session folder (as `swarm-handoff handoff`). "
    "A target already in the chain needs the user's confirmation: asked through elicitation when the "
    "client supports it, else pass confirm_loop=true once the user agreed.",
)

VALIDATE = Operation(
    "validate",
    "Validate a payload of any version (by its `version` field), reporting every problem.",
    (_PAYLOAD,),
    "swarm_handoff.cli.handoff_commands:validate_operation",
    examples=("swarm-handoff validate DIR/handoff-payload.yaml",),
    docs="docs/payloads.md",
    mcp=True,
    tool_summary="Validate a payload of any version, reporting every problem (as `swarm-handoff validate`).",
)

VERIFY = Operation(
    "verify",
    "Check a payload's hash, size, files, signature and expiry; exit 1 when any fails.",
    (
        _PAYLOAD,
        Param(
            "require_signature",
            bool,
            "Fail when the payload is not signed.",
            default=False,
            tool_help="Fail when unsigned.",
        ),
    ),
    "swarm_handoff.cli.handoff_commands:verify_operation",
    examples=("swarm-handoff verify DIR/handoff-payload.yaml",),
    docs="docs/payloads.md",
    mcp=True,
    tool_summary="Check a payload's hash, size, files, signature and expiry (as `swarm-handoff verify`).",
)

CONVERT = Operation(
    "convert",
    "Convert a payload between 2.0 and 3.0, listing every field the conversion drops.",
    (
        Param("payload", Path, "The payload file.", required=True, argument=True),
        Param("to", help="The version to convert to: 3.0 or 2.0.", required=True, choices=("3.0", "2.0")),
        Param(
            "output",
            help="Also write the converted payload here; - for stdout (the report goes to stderr).",
            flags=("--output", "-o"),
        ),
    ),
    "swarm_handoff.cli.handoff_commands:convert_operation",
    examples=("swarm-handoff convert DIR/handoff-payload.yaml --to 3.0",),
    docs="docs/payloads.md",
    cli_invoke="swarm_handoff.cli.handoff_commands:convert_invoke",
)

ACK = Operation(
    "ack",
    "Record the target's acknowledgment of a hand-off in the history.",
    (
        Param(
            "payload",
            Path,
            "The payload file being acknowledged.",
            required=True,
            argument=True,
            tool_name="path",
            tool_help="The payload file (YAML or JSON).",
            path=True,
        ),
        Param(
            "status",
            help="received, processed, success or failure.",
            required=True,
            choices="swarm_handoff.history:ACK_STATUSES",
            tool_help="The outcome.",
        ),
        Param(
            "require_signature",
            bool,
            "Refuse an unsigned payload, or one with an unsigned hop (default: on when you have a signing key).",
            flags=("--require-signature/--no-require-signature",),
            tool_help="Refuse an unsigned payload or one with an unsigned hop. Default: true "
            "when the user has a signing key.",
        ),
    ),
    "swarm_handoff.cli.handoff_commands:ack_operation",
    examples=(
        "swarm-handoff ack DIR/handoff-payload.yaml --status received",
        "swarm-handoff ack DIR/handoff-payload.yaml --status success",
    ),
    docs="docs/payloads.md",
    mcp=True,
    tool_summary="Record the target's acknowledgment of a hand-off in the history (as `swarm-handoff ack`).",
)

HISTORY = Operation(
    "history",
    "List recorded hand-offs, newest first, with their latest acknowledgment; or one chain with --trace.",
    (
        Param("skill", help="Only hand-offs from or to this skill.", complete="skill"),
        Param(
            "trace",
            help="Show one chain (a v3.0 trace_id) hop by hop, oldest first.",
            tool_help="Show one chain (a v3.0 trace_id) hop by hop, oldest first (as --trace).",
        ),
    ),
    "swarm_handoff.cli.handoff_commands:history_operation",
    examples=("swarm-handoff history", "swarm-handoff history --skill code-review -f json"),
    docs="docs/payloads.md",
    mcp=True,
    tool_summary="List recorded hand-offs, newest first, with their latest acknowledgment "
    "(as `swarm-handoff history`).",
)
