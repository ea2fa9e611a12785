"""Commands that optional plugin distributions add: a clear answer when one is used without its plugin.

The core holds only what every install needs; `skills link`, `registry ...` and `mcp` come from
plugins. Typed without its plugin, such a command would be click's bare "No such command", which
tells nobody what to install. Looked up only for a name the CLI does not know, so a command that
exists never pays for this module.
"""

from __future__ import annotations

from typing import Any

import click

from swarm_handoff.errors import ErrorCode, SwarmError

# command name -> the distribution that adds it (all in this repository's plugins/ folder).
OPTIONAL_COMMANDS = {
    "skills": "swarm-handoff-link",
    "registry": "swarm-handoff-registry",
    "mcp": "swarm-handoff-mcp",
}


class CommandNotInstalled(SwarmError):
    """A command of a plugin that is not installed (or not loaded): a usage error, exit status 2."""

    exit_code = 2


def not_installed(name: str) -> CommandNotInstalled:
    """The error for `swarm-handoff NAME ...` when the plugin that adds NAME did not load."""
    distribution = OPTIONAL_COMMANDS[name]
    return CommandNotInstalled(
        ErrorCode.COMMAND_NOT_INSTALLED,
        f"`swarm-handoff {name}` comes from the {distribution} plugin, which is not installed (or did not load)",
        details={"command": name, "distribution": distribution},
        hint=f"pip install {distribution} (from this repository: pip install ./plugins/{distribution});"
        " `swarm-handoff plugins` shows a plugin that is installed but disabled or broken",
    )


def missing_command(name: str) -> click.Command | None:
    """A stand-in for `name` when a known plugin adds it, else None (click then says "No such command")."""
    if name not in OPTIONAL_COMMANDS:
        return None

    def report(args: tuple[str, ...]) -> None:
        from swarm_handoff.cli import _format_from
        from swarm_handoff.cli.output import fail

        fail(not_installed(name), _format_from(list(args)))

    settings: dict[str, Any] = {"ignore_unknown_options": True, "allow_extra_args": True}
    return click.Command(
        name,
        callback=report,
        params=[click.Argument(["args"], nargs=-1, type=click.UNPROCESSED)],
        context_settings=settings,
        add_help_option=False,  # `skills --help` too must say what to install, not print an empty usage
        hidden=True,
    )
