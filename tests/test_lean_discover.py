"""The lean `discover` (no typer) prints what the typer command prints, byte for byte.

`main` runs a plain `discover` command line through `cli/lean.py`; the `swarm_cli` fixture runs
the typer app. Each case below runs both on the same tree, in the same process and environment,
and compares exit status, stdout and stderr. Command lines the lean parser does not take are
listed too: they must go to typer, which owns help, abbreviations and usage errors.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from swarm_handoff.cli import lean
from swarm_handoff.cli import main as cli_main
from swarm_handoff.testing import SkillTree


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with declared skills in two categories, one shadowed copy and two skipped folders."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SWARM_HANDOFF_NO_CACHE", "1")
    project = tmp_path / "project"
    skills = SkillTree(project)
    skills.add_handoff("alpha", categories=["research"])
    skills.add_handoff("beta", categories=["writing"])
    skills.add("undeclared")
    (project / ".claude" / "skills" / "broken").mkdir()
    (project / ".claude" / "skills" / "broken" / "SKILL.md").write_text("---\nname: [\n---\n", encoding="utf-8")
    SkillTree(home).add_handoff("alpha", categories=["research"])  # shadowed by the project's copy
    return project


def _lean(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str, str]:
    assert lean.parse(args) is not None, args
    try:
        cli_main(args)
        status = 0
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


CASES = [
    [],
    ["--format", "json"],
    ["--format=yaml"],
    ["-f", "text"],
    ["--all", "--format", "json"],
    ["--category", "research", "--category", "writing"],
    ["--scope", "project", "--format", "json"],
    ["--scope", "no-such-scope"],
    ["--scope", "no-such-scope", "--format", "json"],
    ["--accepts-from", "someone", "--schema-version", "3.0", "--format", "json"],
    ["--input", "text", "--format", "json"],
    ["--format", "no-such-format"],
    ["--resume"],
    ["--refresh", "--format", "json"],
]


@pytest.mark.parametrize("extra", CASES, ids=lambda a: " ".join(a) or "plain")
def test_the_lean_path_prints_what_typer_prints(tree, capsys, swarm_cli, extra):
    args = ["discover", "--cwd", str(tree), *extra]
    status, out, err = _lean(capsys, args)
    typer_run = swarm_cli(*args)
    assert (status, out, err) == (typer_run.exit_code, typer_run.stdout, typer_run.stderr)


def test_a_session_and_a_missing_folder_print_the_same(tree, tmp_path, capsys, swarm_cli):
    session = tmp_path / "session"
    session.mkdir()
    for args in (
        ["discover", "--cwd", str(tree), "--session", str(session), "--format", "json"],
        ["discover", "--cwd", str(tmp_path / "missing"), "--format", "json"],
        ["discover", "--cwd", str(tmp_path / "missing")],
    ):
        status, out, err = _lean(capsys, args)
        typer_run = swarm_cli(*args)
        assert (status, out, err) == (typer_run.exit_code, typer_run.stdout, typer_run.stderr), args
    assert (session / "available-workflows.yaml").is_file()


def test_the_lean_path_lists_what_it_should(tree, capsys):
    status, out, err = _lean(capsys, ["discover", "--cwd", str(tree), "--format", "json"])
    assert status == 0
    assert {w["skill"] for w in json.loads(out)["workflows"]} >= {"alpha", "beta"}
    assert "skipped and 1 shadowed skill(s) not listed" in err


@pytest.mark.parametrize(
    "args",
    [
        ["discover", "--help"],
        ["discover", "-h"],
        ["discover", "--cwd"],
        ["discover", "--cwd", "--all"],
        ["discover", "--cwd", ""],
        ["discover", "--cwd=", "x"],
        ["discover", "--cw", "x"],
        ["discover", "--all=1"],
        ["discover", "-fjson"],
        ["discover", "-f=json"],
        ["discover", "--"],
        ["discover", "extra"],
        ["discover", "--cwd", "a", "--cwd", "b"],
        ["discover", "--format", "-"],
        ["rank", "x"],
        ["--version"],
        [],
    ],
)
def test_command_lines_the_lean_parser_leaves_to_typer(args):
    assert lean.parse(args) is None


def test_lean_parse_reads_every_option(tmp_path):
    params = lean.parse(
        [
            "discover",
            "--cwd=/a",
            "--session",
            "/s",
            "--all",
            "--refresh",
            "--resume",
            "--category",
            "x",
            "--scope=project",
            "--scope",
            "global",
            "--accepts-from",
            "me",
            "--schema-version",
            "3.0",
            "--input",
            "text",
            "-f",
            "json",
        ]
    )
    assert params == {
        "fmt": "json",
        "cwd": "/a",
        "session": "/s",
        "show_all": True,
        "refresh": True,
        "resume": True,
        "category": ["x"],
        "scope": ["project", "global"],
        "accepts_from": "me",
        "schema_version": "3.0",
        "input_types": ["text"],
    }


def test_a_plain_discover_imports_no_typer(tmp_path, tree):
    """The point of the lean path: a `discover` that is not replayed never imports typer or click."""
    code = (
        "import json, sys\nfrom swarm_handoff.cli import main\ntry:\n    main(sys.argv[1:])\n"
        "except SystemExit:\n    pass\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('typer', 'click'))), file=sys.stderr)"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_"))}
    env.update(HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    done = subprocess.run(
        [sys.executable, "-c", code, "discover", "--cwd", str(tree), "--format", "json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stderr.splitlines()[-1]) == []
    assert {w["skill"] for w in json.loads(done.stdout)["workflows"]} >= {"alpha", "beta"}


def test_an_interrupt_ends_the_lean_path_quietly_with_130(tree, capsys, monkeypatch):
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(lean, "discover_document", interrupted)
    assert _lean(capsys, ["discover", "--cwd", str(tree)]) == (130, "", "")


def test_an_unexpected_exception_is_the_same_internal_error_on_both_paths(tree, capsys, monkeypatch, swarm_cli):
    def broken(*args: object, **kwargs: object) -> None:
        raise EOFError("stdin went away")

    monkeypatch.setattr(lean, "discover_document", broken)
    args = ["discover", "--cwd", str(tree), "--format", "json"]
    status, out, err = _lean(capsys, args)
    typer_run = swarm_cli(*args)
    assert (status, out, err) == (typer_run.exit_code, typer_run.stdout, typer_run.stderr)
    assert json.loads(out)["error"]["code"] == "INTERNAL_ERROR"


@pytest.mark.parametrize("option", ["--cwd", "--session"])
def test_an_unreadable_path_is_left_to_typer(tree, capsys, monkeypatch, option):
    """Typer's Path type refuses an existing path the user may not read (exit 2); the lean path must not run it.

    Root reads everything, so the test denies the read the way a non-root user meets it: `os.access`.
    """
    denied = tree if option == "--cwd" else tree / "session"
    denied.mkdir(exist_ok=True)
    access = os.access
    monkeypatch.setattr(os, "access", lambda p, m, *a, **k: False if str(p) == str(denied) else access(p, m, *a, **k))
    args = ["discover", "--cwd", str(tree), *([option, str(denied)] if option == "--session" else [])]
    assert lean.parse(args) is None
    with pytest.raises(SystemExit) as exit_:
        cli_main(args)
    out, err = capsys.readouterr()
    assert (exit_.value.code, out) == (2, "")
    assert f"Invalid value for '{option}'" in err
    assert "is not readable" in err


def test_a_shell_completion_request_is_left_to_typer(tree, capsys, monkeypatch):
    """With `_SWARM_HANDOFF_COMPLETE` set, typer answers the shell's completion request, whatever argv says."""
    monkeypatch.setenv("_SWARM_HANDOFF_COMPLETE", "bash_complete")
    monkeypatch.setenv("COMP_WORDS", "swarm-handoff disc")
    monkeypatch.setenv("COMP_CWORD", "1")

    lean_runs: list[object] = []
    monkeypatch.setattr(lean, "run", lambda *args: lean_runs.append(args))
    with pytest.raises(SystemExit):
        cli_main(["discover", "--cwd", str(tree), "--format", "json"])
    assert lean_runs == []
    assert '"workflows"' not in capsys.readouterr().out


def test_an_internal_error_is_never_replayed(tree, tmp_path):
    """An unexpected exception is reported afresh every time: its replay would lose SWARM_HANDOFF_DEBUG's traceback.

    A YAML answer holding non-ASCII text on an ASCII stdout is such an error (`printing.encodable`).
    """
    SkillTree(tree).add_handoff("gamma", categories=["wrïting"])
    shifted = time.time_ns() - 2_000_000_000  # the answer cache does not trust files changed within the last tick
    for folder, _, files in os.walk(tmp_path):
        for path in [folder, *(os.path.join(folder, f) for f in files)]:
            os.utime(path, ns=(shifted, shifted))
    script = "import sys; sys.argv[0] = 'swarm-handoff'; from swarm_handoff.cli import main; main()"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_"))}
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        PYTHONIOENCODING="ascii",
        SWARM_HANDOFF_DEBUG="1",
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", script, "discover", "--cwd", str(tree), "--format", "yaml"],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        for _ in range(2)
    ]
    assert "INTERNAL_ERROR" in runs[0].stdout
    assert "Traceback" in runs[0].stderr
    first, second = ((r.returncode, r.stdout, r.stderr) for r in runs)
    assert second == first


def _settle(root: Path) -> None:
    """Date the test's files two seconds back: the answer cache does not trust files changed within the last tick."""
    shifted = time.time_ns() - 2_000_000_000
    for folder, _, files in os.walk(root):
        for path in [folder, *(os.path.join(folder, f) for f in files)]:
            os.utime(path, ns=(shifted, shifted))


@pytest.mark.parametrize("repeat", [False, True], ids=["lean", "typer"])
def test_an_interrupted_discover_stores_no_answer(tree, tmp_path, capsys, monkeypatch, repeat):
    """Ctrl-C while printing ends with 130 on both paths, and neither stores the half-printed answer for replay."""
    from swarm_handoff.cli import _main, output, printing

    monkeypatch.delenv("SWARM_HANDOFF_NO_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    _settle(tmp_path)

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(printing, "emit", interrupted)
    monkeypatch.setattr(output, "emit", interrupted)
    args = ["discover", "--cwd", str(tree), *(["--cwd", str(tree)] if repeat else [])]  # typer keeps the last
    assert (lean.parse(args) is None) == repeat
    with pytest.raises(SystemExit) as exit_:
        _main(args, replay=True)
    assert exit_.value.code == 130
    assert "shadowed skill(s) not listed" in capsys.readouterr().err
    stored = tmp_path / "cache" / "swarm-handoff" / "answers"
    assert not stored.exists() or not list(stored.iterdir())


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize("repeat", [False, True], ids=["lean", "typer"])
def test_a_reader_that_went_away_ends_discover_quietly(tree, tmp_path, fmt, repeat):
    """`discover | head`: the reader closed the pipe, so exit 1 with nothing more said (as `main` promises)."""
    _settle(tmp_path)
    script = "import sys; sys.argv[0] = 'swarm-handoff'; from swarm_handoff.cli import main; main()"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_"))}
    env.update(HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    args = ["discover", "--cwd", str(tree), "--format", fmt, *(["--cwd", str(tree)] if repeat else [])]
    with subprocess.Popen(
        [sys.executable, "-c", script, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    ) as proc:
        assert proc.stdout is not None
        assert proc.stderr is not None
        proc.stdout.close()  # before the interpreter has even started: every write meets a closed pipe
        err = proc.stderr.read().decode()
    assert proc.returncode == 1
    assert err.splitlines() == [line for line in err.splitlines() if line.startswith("note: ")]
    stored = tmp_path / "cache" / "swarm-handoff" / "answers"
    assert not stored.exists() or not list(stored.iterdir())
