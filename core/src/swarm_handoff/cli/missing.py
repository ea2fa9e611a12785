"""Commands that optional plugin distributions add: a clear answer when one is used without its plugin.

The core holds only what every install needs; `skills link`, `registry ...`, `mcp` and `a2a ...` come from
plugins. Typed without its plugin, such a command would be click's bare "No such command", which
tells nobody what to install. Looked up only for a name the CLI does not know, so a command that
exists never pays for this module.
"""

from __future__ import annotations

from typing import Any

# Not click itself: typer 0.28 ships its own copy, and click may not be installed at all.
import typer

from swarm_handoff.cli.output import fail, format_from
from swarm_handoff.errors import ErrorCode, SwarmError

# command name -> the distribution that adds it (all in this repository's plugins/ folder).
OPTIONAL_COMMANDS = {
    "skills": "swarm-handoff-link",
    "registry": "swarm-handoff-registry",
    "mcp": "swarm-handoff-mcp",
    "a2a": "swarm-handoff-a2a",
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


def missing_command(name: str) -> Any:
    """A stand-in command for `name` when a known plugin adds it, else None (click then says "No such command")."""
    if name not in OPTIONAL_COMMANDS:
        return None
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)
    # Every argument and option is accepted, `--help` included: whatever was typed, say what to install.
    settings = {"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []}

    @app.command(name, context_settings=settings, add_help_option=False, hidden=True)
    def report(ctx: typer.Context) -> None:
        fail(not_installed(name), format_from(list(ctx.args)))

    return typer.main.get_command(app)
