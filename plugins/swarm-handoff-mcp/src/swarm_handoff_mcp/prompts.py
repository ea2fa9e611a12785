"""Prompts: `handoff_menu` (the Stage 4 ranked menu as text) and `next_step` (a workflow step's instructions).

Prompt arguments are strings in MCP, so objects (a synthesis, carried state) arrive as JSON text;
each prompt runs the same tool body as `rank` / `workflow_step` and renders the CLI's text view.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

from swarm_handoff.api import PluginHost, SwarmError, UsageError, chain_names, render
from swarm_handoff_mcp.tools import Call, check_arguments, tool_specs

MAX_ARGUMENT = 1 << 20


def listing() -> list[types.Prompt]:
    """The two prompts and their (string) arguments."""
    return [
        types.Prompt(
            name="handoff_menu",
            description="The ranked hand-off menu (C, D, E, ...) for a synthesis, as the Stage 4 text.",
            arguments=[
                types.PromptArgument(
                    name="synthesis", description="A synthesis file's path, or the synthesis as JSON.", required=True
                ),
                types.PromptArgument(name="cwd", description="Discover as if run from this folder."),
                types.PromptArgument(name="top", description="How many targets the menu shows."),
                types.PromptArgument(name="chain", description="The hand-off chain so far, comma-separated."),
            ],
        ),
        types.Prompt(
            name="next_step",
            description="One workflow step's instructions and the exact call(s) to make next.",
            arguments=[
                types.PromptArgument(name="skill", description="The workflow's name.", required=True),
                types.PromptArgument(name="step", description="The step to show.", required=True),
                types.PromptArgument(name="state", description="Carried state as a JSON object."),
            ],
        ),
    ]


def _json_object(name: str, text: str) -> Any:
    if len(text) > MAX_ARGUMENT:
        raise UsageError(f"{name} is larger than {MAX_ARGUMENT} characters")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{name} is not valid JSON: {exc}", hint=f"give {name} as a JSON object") from None


def get(name: str, arguments: dict[str, str], host: PluginHost) -> types.GetPromptResult:
    """Run the prompt's tool body and wrap its text view as one user message."""
    specs = {spec.name: spec for spec in tool_specs()}
    if name == "handoff_menu":
        synthesis: Any = arguments.get("synthesis", "")
        if synthesis.lstrip().startswith("{"):
            synthesis = _json_object("synthesis", synthesis)
        args: dict[str, Any] = {"synthesis": synthesis}
        if arguments.get("cwd"):
            args["cwd"] = arguments["cwd"]
        if arguments.get("top"):
            try:
                args["top"] = int(arguments["top"])
            except ValueError:
                raise UsageError(f"top must be a whole number, not {arguments['top']!r}") from None
        if arguments.get("chain"):
            args["chain"] = list(chain_names(arguments["chain"], "chain"))
        spec = specs["rank"]
        intro = "Offer the user this hand-off menu and ask which option to take:\n\n"
    elif name == "next_step":
        args = {"skill": arguments.get("skill", ""), "step": arguments.get("step", "")}
        if arguments.get("state"):
            args["state"] = _json_object("state", arguments["state"])
        spec = specs["workflow_step"]
        intro = ""
    else:
        raise UsageError(f"unknown prompt {name!r}", hint="use handoff_menu or next_step")
    document = spec.run(Call(check_arguments(spec, args), host))
    try:
        text = render(document, "text", host)
    except SwarmError:
        text = json.dumps(document.to_data(), indent=2)
    return types.GetPromptResult(
        description=f"{name} ({', '.join(f'{k}={v}' for k, v in args.items() if isinstance(v, str))})"[:500],
        messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text=intro + text))],
    )
