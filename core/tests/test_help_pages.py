"""The console script prints a repeated help page from the cache, byte for byte, and only a page it can trust."""

from __future__ import annotations

import os
import sys

import pytest

from swarm_handoff import filecache
from swarm_handoff.cli import help_pages, main

PAGES = [(), ("--help",), ("-h",), ("discover", "--help"), ("session", "new", "-h")]


@pytest.fixture(autouse=True)
def _core_host(swarm_host, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    return swarm_host


def console(monkeypatch, capsysbinary, *args):
    """Run `main()` as the console script does (arguments from sys.argv); give (status, stdout, stderr) as bytes."""
    monkeypatch.setattr(sys, "argv", ["swarm-handoff", *args])
    with pytest.raises(SystemExit) as exit_:
        main()
    out, err = capsysbinary.readouterr()
    return exit_.value.code, out, err


def library(capsysbinary, *args):
    """The same command through `main([...])`, which never reads or writes the help cache."""
    with pytest.raises(SystemExit) as exit_:
        main(list(args))
    out, err = capsysbinary.readouterr()
    return exit_.value.code, out, err


def no_app(monkeypatch):
    """Make building the CLI fail, so that only a stored page can still answer."""

    def refuse():
        raise AssertionError("the command ran instead of its page being printed from the cache")

    monkeypatch.setattr("swarm_handoff.cli.app.build_app", refuse)


def page_files():
    folder = os.path.join(filecache.cache_folder(os.environ), "help")
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


def page_path(*args):
    page = help_pages.start(list(args))
    assert page is not None
    return page


@pytest.mark.parametrize("args", PAGES, ids=" ".join)
def test_a_stored_page_is_byte_for_byte_what_the_app_prints(args, monkeypatch, capsysbinary):
    fresh = library(capsysbinary, *args)
    assert fresh[1] or fresh[2]
    assert console(monkeypatch, capsysbinary, *args) == fresh  # printed for real, then stored
    assert len(page_files()) == 1
    no_app(monkeypatch)
    assert console(monkeypatch, capsysbinary, *args) == fresh  # printed from the cache


def test_the_root_page_lists_plugin_commands(monkeypatch, capsysbinary, register_plugin):
    from swarm_handoff.api import hookimpl

    class Hello:
        @hookimpl
        def swarm_handoff_cli(self, app):
            @app.command("hello")
            def hello() -> None:
                """Say hello from a plugin."""

    register_plugin(Hello(), "hello")
    _, first, _ = console(monkeypatch, capsysbinary, "--help")
    assert b"Say hello from a plugin." in first
    no_app(monkeypatch)
    assert console(monkeypatch, capsysbinary, "--help")[1] == first


@pytest.mark.parametrize(
    ("args", "covered"),
    [
        ((), True),
        (("--help",), True),
        (("-h",), True),
        (("workflow", "step", "--help"), True),
        (("discover", "--format", "json", "--help"), False),  # options: run for real
        (("lint", "./SKILL.md", "--help"), False),  # a path, not a command name
        (("a", "b", "c", "d", "--help"), False),
        (("--help", "discover"), False),
        (("--version",), False),
        (("discover",), False),
    ],
)
def test_only_command_lines_that_print_help_are_covered(args, covered):
    assert help_pages.covers(args) is covered


def test_errors_are_never_stored(monkeypatch, capsysbinary):
    status, _, err = console(monkeypatch, capsysbinary, "no-such-command", "--help")
    assert status == 2
    assert b"no-such-command" in err
    assert page_files() == []


def test_a_page_with_plugin_failures_is_not_stored(monkeypatch, capsysbinary, swarm_host):
    from swarm_handoff.plugin_records import LoadFailure

    failure = LoadFailure(name="broken", distribution="broken-dist", version="1", error="ImportError: x", code="X")
    monkeypatch.setattr(swarm_host, "failures", [failure])
    console(monkeypatch, capsysbinary, "--help")
    assert page_files() == []


@pytest.mark.parametrize(
    ("variable", "value"),
    [(filecache.ENV_NO_CACHE, "1"), (help_pages.COMPLETE_VAR, "bash_complete"), ("SWARM_HANDOFF_STRICT_PLUGINS", "1")],
)
def test_no_cache_completion_and_strict_plugins_turn_pages_off(variable, value, monkeypatch):
    monkeypatch.setenv(variable, value)
    assert help_pages.start(["--help"]) is None


def test_the_completion_variable_is_spelled_once_in_the_sources():
    """One definition: the `--version` fast path and the help pages cannot disagree on typer's variable."""
    import ast
    from pathlib import Path

    import swarm_handoff
    from swarm_handoff import cli

    root = Path(swarm_handoff.__file__).parent
    spelled = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        spelled += [
            f"{path.relative_to(root)}:{node.lineno}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value == cli.COMPLETE_VAR and id(node) not in docstrings
        ]
    assert spelled == ["cli/__init__.py:" + str(_line_of(root / "cli" / "__init__.py", "COMPLETE_VAR = "))]
    assert help_pages.COMPLETE_VAR is cli.COMPLETE_VAR


def _line_of(path, prefix):
    """The number of the first line of `path` starting with `prefix`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.startswith(prefix))


def test_library_callers_of_main_never_store_a_page(capsysbinary):
    library(capsysbinary, "--help")
    assert page_files() == []


def test_width_environment_and_arguments_make_other_pages(monkeypatch, capsysbinary):
    _, wide, _ = console(monkeypatch, capsysbinary, "--help")
    monkeypatch.setenv("COLUMNS", "60")
    _, narrow, _ = console(monkeypatch, capsysbinary, "--help")
    assert narrow != wide
    assert library(capsysbinary, "--help") == (0, narrow, b"")  # wrapped to 60 columns, as the app does
    monkeypatch.setenv("NO_COLOR", "1")
    console(monkeypatch, capsysbinary, "--help")
    console(monkeypatch, capsysbinary, "-h")
    assert len(page_files()) == 4


def test_a_changed_input_is_never_printed(monkeypatch, capsysbinary, tmp_path, builds):
    _, first, _ = console(monkeypatch, capsysbinary, "--help")
    page = page_path("--help")
    key, inputs, chunks, status, check = filecache.load(page.path, help_pages.KIND)
    gone = str(tmp_path / "a-module-that-was-there.py")
    filecache.dump(page.path, help_pages.KIND, (key, (*inputs, (gone, 1, 1)), chunks, status, check))
    assert console(monkeypatch, capsysbinary, "--help")[1] == first
    assert builds["n"] == 2


@pytest.fixture
def builds(monkeypatch):
    """Count how often the CLI is built, i.e. how often the command really ran."""
    from swarm_handoff.cli import app

    count = {"n": 0}
    real = app.build_app

    def counting():
        count["n"] += 1
        return real()

    monkeypatch.setattr(app, "build_app", counting)
    return count


def test_a_corrupt_or_foreign_page_file_is_ignored_and_rewritten(monkeypatch, capsysbinary, builds):
    _, first, _ = console(monkeypatch, capsysbinary, "--help")
    path = page_path("--help").path
    with open(path, "wb") as handle:
        handle.write(b"\x00garbage")
    assert console(monkeypatch, capsysbinary, "--help")[1] == first
    chunks = ((1, b"stale\n"),)
    filecache.dump(path, help_pages.KIND, ("another key", (), chunks, 0, help_pages._digest(chunks)))
    assert console(monkeypatch, capsysbinary, "--help")[1] == first
    assert builds["n"] == 3
    assert filecache.load(path, help_pages.KIND)[2] == ((1, first),)


@pytest.mark.parametrize(
    "forged",
    [
        pytest.param(lambda key, inputs, check: (key, inputs, ((1, b"tampered\n"),), 0, check), id="digest"),
        pytest.param(
            lambda key, inputs, _: (
                key,
                inputs,
                ((1, b"\x1b[2J\x1b]8;;http://x\x07"),),
                0,
                help_pages._digest(((1, b"\x1b[2J\x1b]8;;http://x\x07"),)),
            ),
            id="terminal-control",
        ),
        pytest.param(lambda key, inputs, check: (key, inputs, ((3, b"x\n"),), 0, check), id="stream"),
        pytest.param(lambda key, inputs, check: (key, inputs, ((1, "text\n"),), 0, check), id="not-bytes"),
        pytest.param(lambda key, inputs, check: (key, inputs, ((1, b"x\n"),), "0", check), id="status"),
        pytest.param(lambda key, inputs, check: (key, "not inputs", ((1, b"x\n"),), 0, check), id="inputs"),
    ],
)
def test_a_page_that_fails_validation_is_never_printed(forged, monkeypatch, capsysbinary, builds):
    _, first, _ = console(monkeypatch, capsysbinary, "--help")
    path = page_path("--help").path
    key, inputs, _, _, check = filecache.load(path, help_pages.KIND)
    filecache.dump(path, help_pages.KIND, forged(key, inputs, check))
    status, out, err = console(monkeypatch, capsysbinary, "--help")
    assert (status, out, err) == (0, first, b"")
    assert builds["n"] == 2


def test_the_page_is_stored_atomically_and_only_the_newest_are_kept(monkeypatch, capsysbinary):
    monkeypatch.setattr(help_pages, "MAX_PAGES", 2)
    for args in (("--help",), ("-h",), ("discover", "--help")):
        console(monkeypatch, capsysbinary, *args)
    folder = os.path.join(filecache.cache_folder(os.environ), "help")
    assert len(page_files()) == 2
    assert not [name for name in os.listdir(folder) if name.startswith(".") and name.endswith(".tmp")]


def test_no_environment_value_is_written_to_disk(monkeypatch, capsysbinary):
    monkeypatch.setenv("SOME_API_TOKEN", "tok-4f1c9e-never-on-disk")
    console(monkeypatch, capsysbinary, "--help")
    (name,) = page_files()
    with open(os.path.join(filecache.cache_folder(os.environ), "help", name), "rb") as handle:
        assert b"tok-4f1c9e-never-on-disk" not in handle.read()
