"""How the interface handing off names each input a refusal asks the user to change.

A hand-off refusal names what to give or change (`--source`, `--yes`, `--override-accepts-from`);
the CLI and the MCP server spell those differently (`source`, `confirm_loop=true`...). The lifecycle
takes the caller's spelling of each input, keyed by the neutral name in `HANDOFF_CLI_NAMES`, so one table
lists them: an interface that names them from its keys cannot miss one (the MCP server does).
A refusal an override lifts also says which one in `details["override"]`, in neutral terms.
"""

from __future__ import annotations

from collections.abc import Mapping

from swarm_handoff.undeclared import OPTION as UNDECLARED_OPTION

# Neutral name (a `HandoffOptions` field; `confirm` answers the loop and long-chain questions) -> CLI option.
HANDOFF_CLI_NAMES: Mapping[str, str] = {
    "source": "--source",
    "session": "--session",
    "schema": "--schema",
    "synthesis": "--synthesis",
    "received": "--from",
    "reason": "--reason",
    "health_check": "--health-check",
    "accepts_from": "--accepts-from",  # `discover`'s query, suggested when a source is not accepted
    "schema_version": "--schema-version",  # `discover`'s query, suggested when no writable schema suits
    "override_accepts_from": "--override-accepts-from",
    "allow_undeclared": UNDECLARED_OPTION,
    "confirm": "--yes",
    "expires_in": "--expires-in",
    "require_signature": "--require-signature",
}
# The refusals an override lifts, by neutral name: each carries it in `details["override"]`.
OVERRIDES = ("override_accepts_from", "allow_undeclared", "confirm")


def is_cli_option(name: str) -> bool:
    """Whether `name` is the CLI's spelling of an input, so a hint writes it as a command line would.

    Told by the spelling itself, the one rule every helper here follows: a CLI option always begins
    with "-" and a tool's argument (a JSON property the tool's schema declares) never does. Hints
    name inputs outside this table too (`--param`, `--strict-spec`, `--category`), so the rule is
    one of spelling, not a field of any one table.
    """
    return name.startswith("-")


def given(name: str, value: str) -> str:
    """An input with a value as the interface writes it: `--schema 2.0` for the CLI, `schema=2.0` for a tool."""
    return f"{name} {value}" if is_cli_option(name) else f"{name}={value}"


def switched_on(name: str) -> str:
    """A yes/no input turned on: the CLI's flag as it is (`--yes`), a tool's argument `=true`."""
    return name if is_cli_option(name) else f"{name}=true"


def switched_off(name: str) -> str:
    """A yes/no input turned off: the CLI's `--no-` flag (`--no-require-signature`), a tool's argument `=false`."""
    return f"--no-{name[2:]}" if is_cli_option(name) else f"{name}=false"


def entry(name: str, key: str) -> str:
    """One entry of a key=value input: `--param mode=VALUE` for the CLI, `mode in params` for a tool."""
    return f"{name} {key}=VALUE" if is_cli_option(name) else f"{key} in {name}"


def finding(names: Mapping[str, str], query: str, value: str) -> str:
    """How to list the targets `discover` keeps for a query: the CLI's command, or the tool's argument."""
    option = names[query]
    if is_cli_option(option):
        return f"swarm-handoff discover {option} {value}"
    return f"the discover tool with {given(option, value)}"


def finding_accepting(names: Mapping[str, str], source: str) -> str:
    """How to list the targets that accept `source`."""
    return finding(names, "accepts_from", source)
