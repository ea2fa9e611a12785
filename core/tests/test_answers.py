"""The console script replays a repeated `discover` only while everything it rests on is unchanged."""

from __future__ import annotations

import os
import sys

import pytest

from swarm_handoff import filecache
from swarm_handoff.cli import answers, main


@pytest.fixture
def listing(list_source, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    answers.record(None)
    yield list_source.listing
    answers.record(None)


def console(monkeypatch, capsys, *args):
    """Run `main()` as the console script does (arguments from sys.argv); give (status, stdout)."""
    monkeypatch.setattr(sys, "argv", ["swarm-handoff", *args])
    with pytest.raises(SystemExit) as exit_:
        main()
    return exit_.value.code, capsys.readouterr().out


@pytest.fixture
def builds(monkeypatch):
    """Count how often a command really ran (through typer or the lean `discover`), i.e. was not replayed."""
    import swarm_handoff.cli as cli

    count = {"n": 0}
    real = cli._run

    def counting(*args, **kwargs):
        count["n"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(cli, "_run", counting)
    return count


def no_app(monkeypatch):
    """Make running a command for real fail, so that only a replay can still answer."""

    def refuse(*args, **kwargs):
        raise AssertionError("the command ran instead of being replayed")

    monkeypatch.setattr("swarm_handoff.cli._run", refuse)


def answer_files():
    folder = os.path.join(filecache.cache_folder(os.environ), "answers")
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


def test_a_repeated_discover_is_replayed_without_building_the_cli(listing, list_source, monkeypatch, capsys):
    listing.write_text("alpha beta")
    status, first = console(monkeypatch, capsys, "discover", "--format", "json")
    assert status == 0
    assert '"alpha"' in first
    no_app(monkeypatch)
    assert console(monkeypatch, capsys, "discover", "--format", "json") == (0, first)
    assert list_source.runs == 1


def test_a_changed_input_is_never_replayed(listing, list_source, monkeypatch, capsys):
    listing.write_text("alpha")
    console(monkeypatch, capsys, "discover", "--format", "json")
    listing.write_text("alpha gamma")
    _, out = console(monkeypatch, capsys, "discover", "--format", "json")
    assert '"gamma"' in out
    listing.unlink()
    _, out = console(monkeypatch, capsys, "discover", "--format", "json")
    assert '"gamma"' not in out
    assert list_source.runs == 3


def test_other_arguments_directory_or_environment_make_another_answer(listing, monkeypatch, capsys, tmp_path):
    listing.write_text("alpha")
    console(monkeypatch, capsys, "discover", "--format", "json")
    console(monkeypatch, capsys, "discover", "--format", "yaml")
    monkeypatch.setenv("SOME_PLUGIN_SETTING", "on")
    console(monkeypatch, capsys, "discover", "--format", "json")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    console(monkeypatch, capsys, "discover", "--format", "json")
    assert len(answer_files()) == 4  # (the result cache below still saves the scans: no input changed)


def test_shell_bookkeeping_variables_do_not_change_the_key(listing, monkeypatch, capsys):
    listing.write_text("alpha")
    console(monkeypatch, capsys, "discover", "--format", "json")
    monkeypatch.setenv("OLDPWD", "/somewhere/else")
    monkeypatch.setenv("_", "/usr/bin/other")
    no_app(monkeypatch)
    assert console(monkeypatch, capsys, "discover", "--format", "json")[0] == 0


@pytest.mark.parametrize(
    "args",
    [
        ("discover", "--refresh"),
        ("discover", "--session", "s"),
        ("discover", "--session=s"),
        ("discover", "--help"),
        ("plugins",),
        ("why", "alpha"),
        (),
    ],
)
def test_commands_with_effects_or_other_commands_are_never_answered_from_the_cache(args, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert answers.start(list(args)) is None


def test_no_cache_turns_answers_off(listing, monkeypatch, capsys, builds):
    monkeypatch.setenv(filecache.ENV_NO_CACHE, "1")
    listing.write_text("alpha")
    console(monkeypatch, capsys, "discover", "--format", "json")
    console(monkeypatch, capsys, "discover", "--format", "json")
    assert builds["n"] == 2
    assert answers.start(["discover"]) is None


def test_library_callers_of_main_always_run_the_command(listing, monkeypatch, capsys, builds):
    listing.write_text("alpha")
    for _ in range(2):
        with pytest.raises(SystemExit):
            main(["discover", "--format", "json"])
    assert builds["n"] == 2
    assert answer_files() == []


def test_the_program_name_as_typed_is_part_of_the_key(listing, monkeypatch, capsys, builds):
    """The set-aside note quotes the program as it was typed, so another spelling is another answer."""
    listing.write_text("alpha")
    for program in ("swarm-handoff", "venv/bin/swarm-handoff", "swarm-handoff"):
        monkeypatch.setattr(sys, "argv", [program, "discover", "--format", "json"])
        with pytest.raises(SystemExit):
            main()
    assert builds["n"] == 2  # the third run replays the first
    assert len(answer_files()) == 2


def test_a_corrupt_or_foreign_answer_file_is_ignored_and_rewritten(listing, monkeypatch, capsys, builds):
    listing.write_text("alpha")
    _, first = console(monkeypatch, capsys, "discover", "--format", "json")
    (name,) = answer_files()
    path = os.path.join(filecache.cache_folder(os.environ), "answers", name)
    with open(path, "wb") as handle:
        handle.write(b"\x00garbage")
    assert console(monkeypatch, capsys, "discover", "--format", "json") == (0, first)
    # Another command line whose key happens to share the file name: the full key decides.
    filecache.dump(path, answers.KIND, ("another key", (), (), ((1, "stale\n"),), 0))
    assert console(monkeypatch, capsys, "discover", "--format", "json") == (0, first)
    assert builds["n"] == 3
    assert filecache.load(path, answers.KIND)[3] == ((1, first),)


def test_an_answer_with_plugin_failures_is_not_stored(listing, monkeypatch, capsys, swarm_host):
    from swarm_handoff.plugin_records import LoadFailure

    listing.write_text("alpha")
    failure = LoadFailure(name="broken", distribution="broken-dist", version="1", error="ImportError: x", code="X")
    monkeypatch.setattr(swarm_host, "failures", [failure])
    console(monkeypatch, capsys, "discover", "--format", "json")
    assert answer_files() == []


def test_a_resolved_symlink_that_now_points_elsewhere_is_not_replayed(listing, monkeypatch, capsys, tmp_path, builds):
    listing.write_text("alpha")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    link = tmp_path / "project"
    link.symlink_to(tmp_path / "a")
    console(monkeypatch, capsys, "discover", "--cwd", "project", "--format", "json")
    link.unlink()
    link.symlink_to(tmp_path / "b")
    console(monkeypatch, capsys, "discover", "--cwd", "project", "--format", "json")
    assert builds["n"] == 2


def test_errors_without_inputs_are_not_stored(listing, monkeypatch, capsys):
    status, _ = console(monkeypatch, capsys, "discover", "--cwd", "missing-folder", "--format", "json")
    assert status != 0
    assert answer_files() == []


def test_only_the_newest_answers_are_kept(listing, monkeypatch, capsys):
    monkeypatch.setattr(answers, "MAX_ANSWERS", 2)
    listing.write_text("alpha")
    for fmt in ("json", "yaml", "text"):
        console(monkeypatch, capsys, "discover", "--format", fmt)
    assert len(answer_files()) == 2


def test_no_environment_value_is_written_to_disk(listing, monkeypatch, capsys):
    monkeypatch.setenv("SOME_API_TOKEN", "tok-4f1c9e-never-on-disk")
    listing.write_text("alpha")
    console(monkeypatch, capsys, "discover", "--format", "json")
    folder = os.path.join(filecache.cache_folder(os.environ), "answers")
    (name,) = answer_files()
    with open(os.path.join(folder, name), "rb") as handle:
        assert b"tok-4f1c9e-never-on-disk" not in handle.read()
    monkeypatch.setenv("SOME_API_TOKEN", "another")  # yet the value is part of the key
    console(monkeypatch, capsys, "discover", "--format", "json")
    assert len(answer_files()) == 2


def test_an_answer_resting_on_a_file_changed_just_before_the_run_is_not_stored(listing, monkeypatch, capsys):
    monkeypatch.setattr(filecache, "RACY_NS", 10**12)  # every file the test wrote is "just changed"
    listing.write_text("alpha")
    console(monkeypatch, capsys, "discover", "--format", "json")
    assert answer_files() == []


def test_a_damaged_answer_prints_nothing_of_itself_before_the_real_run(listing, monkeypatch, capsys, builds):
    """A stored answer is checked whole before a byte of it is printed: a bad chunk is a miss, not half a replay."""
    listing.write_text("alpha")
    _, first = console(monkeypatch, capsys, "discover", "--format", "json")
    (name,) = answer_files()
    path = os.path.join(filecache.cache_folder(os.environ), "answers", name)
    key, inputs, resolved, _, status = filecache.load(path, answers.KIND)
    filecache.dump(path, answers.KIND, (key, inputs, resolved, ((1, "stale\n"), (3, "no such stream\n")), status))
    assert console(monkeypatch, capsys, "discover", "--format", "json") == (0, first)
    assert builds["n"] == 2
