"""The minimal core (issue 13, point 7): what every install needs, and nothing optional.

`skills link` lives in the swarm-handoff-link plugin. The core alone (the host with its built-ins
only, as after `pip install ./core`) still discovers, ranks and hands off; a command of a plugin
that is not installed says which distribution to install instead of "No such command".
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import swarm_handoff

CORE = Path(swarm_handoff.__file__).parent
REPO = Path(__file__).resolve().parents[2]
# What moved out of the core, and the distribution that holds it now.
MOVED = {"linking": "swarm-handoff-link", "cli/skills_commands": "swarm-handoff-link"}
MODULE = "from importlib.resources import files\nSKILL_MD = files(__name__) / 'SKILL.md'\n"


def core_modules() -> list[str]:
    return sorted(p.relative_to(CORE).with_suffix("").as_posix() for p in CORE.rglob("*.py"))


def test_the_core_distribution_holds_none_of_the_moved_features():
    modules = core_modules()
    assert "discovery" in modules  # the walk found the core
    for moved, distribution in MOVED.items():
        assert not [m for m in modules if m.startswith(moved)], f"{moved} belongs in {distribution}"


def test_no_core_module_imports_a_plugin_package():
    pattern = re.compile(r"^\s*(from|import)\s+swarm_handoff_\w+", re.MULTILINE)
    offenders = [m for m in core_modules() if pattern.search((CORE / f"{m}.py").read_text(encoding="utf-8"))]
    assert offenders == []


@pytest.fixture
def core_alone(swarm_host, fake_distributions, tmp_path):
    """The built-ins only, one installed pack skill that accepts hand-offs, and a session as a swarm leaves it."""
    skill_md = (REPO / "examples" / "skills" / "release-notes" / "SKILL.md").read_text(encoding="utf-8")
    fake_distributions.install(
        "notes-pack",
        modules={"notespack.__init__": MODULE},
        files={"notespack/SKILL.md": skill_md},
        entry_points={"swarm_handoff.skills": {"release-notes": "notespack"}},
    )
    session = tmp_path / "session"
    shutil.copytree(REPO / "examples" / "session", session)
    return session


def test_the_core_alone_discovers_ranks_and_hands_off(core_alone, swarm_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # `handoff` discovers from the working directory
    synthesis = str(core_alone / "synthesis.yaml")
    found = swarm_cli("discover", "--cwd", str(tmp_path), "--format", "json")
    assert found.exit_code == 0, found.stderr
    assert [w["skill"] for w in found.json()["workflows"]] == ["release-notes"]
    ranked = swarm_cli("rank", "--synthesis", synthesis, "--cwd", str(tmp_path), "--format", "json")
    assert ranked.exit_code == 0, ranked.stderr
    assert ranked.json()["workflows"][0]["skill"] == "release-notes"
    handoff = ["handoff", "release-notes", "--synthesis", synthesis, "--session", str(core_alone)]
    handed = swarm_cli(*handoff, "--format", "json")
    assert handed.exit_code == 0, handed.stderr
    payload = core_alone / "handoff-payload.yaml"
    assert payload.is_file()
    verified = swarm_cli("verify", str(payload), "--format", "json")
    assert verified.exit_code == 0, verified.stderr


@pytest.mark.parametrize(
    ("args", "distribution"),
    [
        (["skills", "link"], "swarm-handoff-link"),
        (["skills", "unlink", "review", "--scope", "global"], "swarm-handoff-link"),
        (["skills"], "swarm-handoff-link"),
        (["skills", "--help"], "swarm-handoff-link"),
        (["registry", "sync"], "swarm-handoff-registry"),
        (["mcp"], "swarm-handoff-mcp"),
        (["a2a", "serve"], "swarm-handoff-a2a"),
    ],
)
def test_a_plugin_command_without_its_plugin_says_what_to_install(swarm_host, swarm_cli, args, distribution):
    result = swarm_cli(*args, "--format", "json")
    assert result.exit_code == 2, result.stdout + result.stderr
    error = result.json()["error"]
    assert error["code"] == "COMMAND_NOT_INSTALLED"
    assert distribution in error["message"]
    assert f"pip install {distribution}" in error["hint"]
    assert error["details"] == {"command": args[0], "distribution": distribution}


def test_in_text_the_missing_plugin_is_named_on_stderr(swarm_host, swarm_cli, tmp_path):
    result = swarm_cli("skills", "link", "--cwd", str(tmp_path))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "COMMAND_NOT_INSTALLED" in result.stderr
    assert "swarm-handoff-link" in result.stderr
    assert "pip install ./plugins/swarm-handoff-link" in result.stderr
    assert not (tmp_path / ".claude").exists()


def test_a_disabled_plugin_gets_the_same_answer(make_swarm_host, swarm_cli):
    make_swarm_host(["formatters"], disable=["link"])
    result = swarm_cli("skills", "link", "--format", "json")
    assert result.exit_code == 2
    assert result.json()["error"]["code"] == "COMMAND_NOT_INSTALLED"


def test_a_command_nobody_provides_is_still_clicks_usage_error(swarm_host, swarm_cli):
    result = swarm_cli("no-such-command")
    assert result.exit_code == 2
    assert "No such command" in result.stderr
    assert "COMMAND_NOT_INSTALLED" not in result.stderr


def test_the_stand_ins_are_not_listed_as_commands(swarm_host, swarm_cli):
    result = swarm_cli("--help")
    assert result.exit_code == 0
    assert not re.search(r"^\s+skills\b", result.stdout, re.MULTILINE)
