"""Shell completion offers the names a parameter declares in the operations table (`Param.complete`)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from swarm_handoff.cli import completion
from swarm_handoff.cli.app import build_app
from swarm_handoff.operation_table import CORE_OPERATIONS
from swarm_handoff.operations import Param


def _complete(*words: str) -> list[str]:
    """What bash completion offers after `swarm-handoff WORDS...` (the last word is being typed)."""
    line = " ".join(("swarm-handoff", *words))
    env = {"_SWARM_HANDOFF_COMPLETE": "complete_bash", "COMP_WORDS": line, "COMP_CWORD": str(len(words))}
    result = CliRunner().invoke(build_app(complete=completion.completer), [], env=env, prog_name="swarm-handoff")
    return result.stdout.split()


def test_scorer_names_are_offered() -> None:
    assert "swarm-v2" in _complete("rank", "--scorer", "")
    assert _complete("rank", "--scorer", "swarm") == ["swarm-v2"]


def test_format_names_are_offered_on_every_command() -> None:
    assert {"json", "text", "yaml"} <= set(_complete("discover", "--format", ""))
    assert _complete("history", "-f", "js") == ["json"]


def test_declared_choices_are_offered() -> None:
    assert _complete("handoff", "--schema", "") == ["2.0", "3.0"]
    assert _complete("ack", "payload.yaml", "--status", "s") == ["success"]


def test_skill_and_workflow_names_are_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(completion.NAMES, "skill", lambda: ["code-review", "planner"])
    monkeypatch.setitem(completion.NAMES, "workflow", lambda: ["think-through"])
    assert _complete("why", "co") == ["code-review"]
    assert _complete("discover", "--accepts-from", "") == ["code-review", "planner"]
    assert _complete("workflow", "step", "th") == ["think-through"]


def test_a_failing_lister_offers_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> list[str]:
        raise OSError("unreadable folder")

    monkeypatch.setitem(completion.NAMES, "skill", broken)
    assert _complete("why", "") == []


def test_every_completing_param_names_a_known_kind() -> None:
    kinds = {p.complete for op in CORE_OPERATIONS for p in op.params if p.complete}
    assert kinds <= set(completion.NAMES)
    assert completion.completer(Param("plain")) is None


def test_a_completer_declares_its_types_as_objects_typer_reads_without_evaluating() -> None:
    """typer reads each completing parameter's completer signature while it builds the app (every
    command, `--help` too): annotations left as strings were compiled and evaluated once per parameter."""
    complete = completion.completer(Param("target", complete="skill"))
    assert complete is not None
    assert complete.__annotations__ == {"incomplete": str, "return": list[str]}
    choices = completion.completer(Param("schema", choices=("2.0", "3.0")))
    assert choices is not None
    assert choices.__annotations__ == {"incomplete": str, "return": list[str]}
