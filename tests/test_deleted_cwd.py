"""Run from a folder that was removed: a coded CWD_UNAVAILABLE with a hint, on every path, never INTERNAL_ERROR.

A shell keeps its working directory after another terminal (or `git worktree remove`, or a test's
clean-up) deletes it; `os.getcwd()` then raises FileNotFoundError. Each case runs the console
script in a real subprocess that first enters a fresh folder and removes it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from swarm_handoff.testing import SkillTree

pytestmark = pytest.mark.skipif(os.name == "nt", reason="Windows does not remove a folder a process is in")

# Enter `gone`, remove it, then run the console script (`main()`, through the typer app).
SCRIPT = """
import os, sys
gone = sys.argv.pop(1)
os.chdir(gone)
os.rmdir(gone)
sys.argv[0] = sys.argv.pop(1)
from swarm_handoff.cli.entry import main
main()
"""


def _run(tmp_path: Path, *args: str, program: str = "swarm-handoff") -> subprocess.CompletedProcess[str]:
    gone = tmp_path / "gone"
    gone.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_"))}
    env.update(HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    try:
        return subprocess.run(
            [sys.executable, "-c", SCRIPT, str(gone), program, *args],
            capture_output=True,
            text=True,
            env=env,
            check=False,
            cwd=tmp_path,
        )
    finally:
        assert not gone.exists()


@pytest.mark.parametrize(
    "args",
    [
        ["discover", "--format", "json"],
        ["discover", "-fjson"],
        ["why", "anything", "--format", "json"],
        ["graph", "--format", "json"],
        ["discover", "--cwd", "relative", "--format", "json"],  # resolved against the removed folder
    ],
    ids=" ".join,
)
def test_a_removed_working_directory_is_a_coded_error_in_json(tmp_path, args):
    done = _run(tmp_path, *args)
    assert done.returncode == 1, done.stderr
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "CWD_UNAVAILABLE"
    assert "--cwd" in error["hint"]
    assert "cd to an existing folder" in error["hint"]
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("args", [["discover"], ["discover", "--all"], ["rank", "--synthesis", "{synthesis}"]])
def test_a_removed_working_directory_in_text_names_the_code_and_the_hint(tmp_path, args):
    synthesis = tmp_path / "synthesis.yaml"
    synthesis.write_text("original_prompt: choose a database\nproblem_type: decision\n", encoding="utf-8")
    done = _run(tmp_path, *(a.format(synthesis=synthesis) for a in args))
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    first = done.stderr.splitlines()[0]
    assert first.startswith("error: CWD_UNAVAILABLE: the current working directory is no longer available")
    assert "hint: cd to an existing folder" in first
    assert "INTERNAL_ERROR" not in done.stderr


def test_a_plugin_command_gets_the_same_code(tmp_path):
    """`skills link` (swarm-handoff-link) asks the api's `working_directory` for the project folder."""
    done = _run(tmp_path, "skills", "link", "--format", "json")
    assert json.loads(done.stdout)["error"]["code"] == "CWD_UNAVAILABLE", done.stderr


def test_a_relative_path_that_cannot_be_resolved_is_reported_as_the_folder_gone(tmp_path):
    """Wherever a relative path meets the removed folder (here `adopt`'s), the report is not a bug report."""
    done = _run(tmp_path, "adopt", "some-skill/SKILL.md", "--format", "json")
    assert json.loads(done.stdout)["error"]["code"] == "CWD_UNAVAILABLE", done.stderr


def test_discover_of_an_existing_folder_still_works_and_its_note_names_the_program_in_full(tmp_path):
    """`--cwd` names a real project: it runs, and the set-aside note gives the program's path whole."""
    project = tmp_path / "project"
    SkillTree(project).add_handoff("alpha", categories=["research"])
    (project / ".claude" / "skills" / "broken").mkdir()
    (project / ".claude" / "skills" / "broken" / "SKILL.md").write_text("no front matter\n", encoding="utf-8")
    program = str(tmp_path / "bin" / "swarm-handoff")  # absolute and not on PATH: quoted relative to the cwd
    done = _run(tmp_path, "discover", "--cwd", str(project), "--format", "json", program=program)
    assert done.returncode == 0, done.stderr
    assert "alpha" in [w["skill"] for w in json.loads(done.stdout)["workflows"]]
    assert f"`{program} discover --all` shows them" in done.stderr


@pytest.mark.parametrize(
    ("exc", "gone", "code"),
    [
        (FileNotFoundError(2, "No such file or directory"), True, "CWD_UNAVAILABLE"),
        (FileNotFoundError(2, "No such file or directory"), False, "INTERNAL_ERROR"),  # a real bug stays one
        (KeyError("x"), True, "INTERNAL_ERROR"),  # not a file-system error: the folder did not cause it
    ],
)
def test_only_a_file_system_error_while_the_folder_is_gone_is_blamed_on_it(monkeypatch, exc, gone, code):
    from swarm_handoff import errors
    from swarm_handoff.cli import output

    monkeypatch.setattr(errors, "cwd_gone", lambda: gone)  # asked by errors.situation_error, the one mapping
    assert output.internal_error(exc).code == code


def test_working_directory_is_part_of_the_plugin_api():
    from swarm_handoff import api, errors

    assert api.working_directory is errors.working_directory
    assert api.working_directory() == os.getcwd()
