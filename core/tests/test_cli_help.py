"""Help pages a newcomer can use: -h, readable usage lines, examples and a docs pointer, completion."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
import typer

from swarm_handoff.cli import help_text
from swarm_handoff.cli.app import build_app
from swarm_handoff.operation_table import CORE_GROUPS, CORE_OPERATIONS

ROOT = Path(__file__).resolve().parents[2]
# Every help page's examples and docs page: the core's from the operations table, then help_text's.
EXAMPLES = {
    **{group.name: (group.examples, group.docs) for group in CORE_GROUPS},
    **{op.name: (op.examples, op.docs) for op in CORE_OPERATIONS},
    **help_text.EXAMPLES,
}


def _core_commands():
    """Every core command path (groups and their subcommands), from the app itself."""
    group = typer.main.get_command(build_app())
    ctx = group.context_class(group)  # click's Context, reached without importing click (typer may vendor it)
    paths = []

    def walk(command, path):
        paths.append(path)
        if hasattr(command, "list_commands"):  # a group
            for name in command.list_commands(ctx):
                walk(command.get_command(ctx, name), f"{path} {name}")

    for name in group.list_commands(ctx):
        walk(group.get_command(ctx, name), name)
    return paths


def test_short_help_option_on_the_root_and_on_subcommands(swarm_cli):
    for args in (("-h",), ("discover", "-h"), ("workflow", "step", "-h")):
        result = swarm_cli(*args)
        assert result.exit_code == 0, args
        assert "Usage: swarm-handoff" in result.stdout


def test_usage_lines_name_arguments_in_capitals(swarm_cli):
    usage = swarm_cli("workflow", "step", "--help").stdout.splitlines()[0]
    assert usage == "Usage: swarm-handoff workflow step [OPTIONS] NAME [STEP_ID]"
    assert "{" not in swarm_cli("handoff", "--help").stdout.splitlines()[0]


@pytest.mark.parametrize("path", list(EXAMPLES))
def test_every_example_names_a_real_command_and_parses(path):
    group = typer.main.get_command(build_app())
    for line in EXAMPLES[path][0]:
        words = shlex.split(line.split(" > ")[0].split(" | ")[0])[1:]  # the command, without the shell's redirection
        # resilient parsing: options and argument counts are checked, nothing runs
        ctx = group.make_context("swarm-handoff", list(words), resilient_parsing=True)
        command, sub = group, ctx
        while hasattr(command, "list_commands") and _rest(sub):
            rest = _rest(sub)
            found = command.get_command(sub, rest[0])
            assert found is not None, f"{line!r}: no command {rest[0]!r}"
            sub = found.make_context(rest[0], rest[1:], parent=sub)
            command = found
        assert (ROOT / EXAMPLES[path][1]).is_file(), f"{path}: docs page missing"


def _rest(ctx):
    """The words a group left for its subcommand (click < 9 calls the first ones `protected_args`)."""
    protected = getattr(ctx, "_protected_args", None)
    if protected is None:
        protected = getattr(ctx, "protected_args", [])
    return [*protected, *ctx.args]


def test_every_core_command_has_examples_and_a_docs_pointer(swarm_cli):
    # Issue 26: `mcp -h` and `registry ... -h` used to be left out ("their distributions write their own
    # help") and had no examples; every command's -h promises them. graph and adopt give theirs in the docstring.
    own_examples = {"graph", "adopt"}
    missing = [p for p in _core_commands() if p not in own_examples and p not in EXAMPLES]
    assert missing == []
    page = swarm_cli("rank", "--help").stdout
    assert "Examples:\n    swarm-handoff rank --synthesis synthesis.yaml\n" in page
    assert "More: docs/rank.md" in page


def test_shell_completion_completes_commands_and_subcommands():
    # What a shell's completion script does: run the program with the completion variables set.
    # (`--show-completion` detects the calling shell, which a test runner is not.)
    import os
    import subprocess
    import sys

    def complete(words: str, index: int) -> list[str]:
        env = {**os.environ, "_SWARM_HANDOFF_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(index)}
        code = "from swarm_handoff.cli.entry import main; main()"
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        return done.stdout.split()

    assert complete("swarm-handoff disc", 1) == ["discover"]
    assert set(complete("swarm-handoff workflow s", 2)) == {"show", "step"}


def test_the_ack_examples_use_statuses_ack_accepts():
    from swarm_handoff.history import ACK_STATUSES

    for line in EXAMPLES["ack"][0]:
        words = shlex.split(line)
        assert words[words.index("--status") + 1] in ACK_STATUSES, line
