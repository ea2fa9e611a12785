"""How a spelt input reads in a hint: `--schema 2.0` for a command-line option, `schema=2.0` for a tool.

The spelling itself comes from the operations table (`inputs.py` renders a refusal's neutral names
with it); these helpers only write a spelt name the way its interface writes values, flags and
entries. Modules that are handed a caller's spelling (`option="--strict-spec"`) use them directly.
"""

from __future__ import annotations


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
