"""The CLI shell: --version, `plugins`, output formats, exit codes, strict plugin loading."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from swarm_handoff import __version__, plugins
from swarm_handoff.cli.entry import main

BROKEN = "raise ImportError('no such thing')\n"
TYPO = "from swarm_handoff.api import hookimpl\n@hookimpl\ndef swarm_handoff_formaters(register):\n    pass\n"


@pytest.fixture
def broken_plugins(fake_distributions, monkeypatch):
    fake_distributions.install(
        "broken-dist",
        version="2.1",
        entry_points={"swarm_handoff": {"broken": "broken_mod"}},
        modules={"broken_mod": BROKEN},
    )
    fake_distributions.install(
        "typo-dist", entry_points={"swarm_handoff": {"typo": "typo_mod"}}, modules={"typo_mod": TYPO}
    )
    monkeypatch.setenv(plugins.ENV_LOAD, "broken,typo")
    plugins.reset_host()


def test_version(swarm_cli):
    result = swarm_cli("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"swarm-handoff {__version__}"


def test_plugins_json_is_one_document_listing_builtins(swarm_cli):
    result = swarm_cli("plugins", "--format", "json")
    assert result.exit_code == 0
    data = result.json()
    assert data["core_version"] == __version__
    assert data["plugins"][0]["name"] == "core-formatters"
    assert data["failures"] == []


def test_plugins_reports_broken_and_misspelled_plugins_and_still_works(swarm_cli, broken_plugins):
    result = swarm_cli("plugins", "--format", "json")
    assert result.exit_code == 0
    failures = {f["name"]: f for f in result.json()["failures"]}
    assert failures["broken"]["distribution"] == "broken-dist"
    assert failures["broken"]["version"] == "2.1"
    assert "no such thing" in failures["broken"]["error"]
    assert "swarm_handoff_formaters" in failures["typo"]["error"]
    assert "warning: plugin 'broken'" in result.stderr
    assert swarm_cli("plugins", "--format", "yaml").exit_code == 0


def test_strict_mode_exits_non_zero_naming_the_plugins(broken_plugins, monkeypatch, capsys):
    monkeypatch.setenv(plugins.ENV_STRICT, "1")
    with pytest.raises(SystemExit) as caught:
        main(["plugins", "--format", "json"])
    assert caught.value.code == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == "PLUGINS_STRICT"
    assert "broken" in error["message"]
    assert "typo" in error["message"]


def test_strict_mode_text_error_goes_to_stderr(broken_plugins, monkeypatch, capsys):
    monkeypatch.setenv(plugins.ENV_STRICT, "1")
    with pytest.raises(SystemExit) as caught:
        main(["--version"])
    assert caught.value.code == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "PLUGINS_STRICT" in captured.err
    assert "broken" in captured.err


def test_unknown_format_is_a_usage_error_with_exit_2(swarm_cli):
    result = swarm_cli("plugins", "--format", "xmll")
    assert result.exit_code == 2
    assert "use one of: json, text, yaml" in result.stderr


def test_unknown_command_is_a_usage_error(swarm_cli):
    assert swarm_cli("no-such-command").exit_code == 2


def test_text_output_with_the_core_alone_uses_the_reports_own_layout(swarm_cli):
    # Issue 13: `text` and its layouts are the core's; the core alone no longer prints the data tree.
    result = swarm_cli("plugins")
    assert result.exit_code == 0
    assert "core-formatters  (built-in " in result.stdout
    assert "  formatter text - readable plain text for people" in result.stdout
    assert "name: core-formatters" not in result.stdout


def test_plugin_commands_are_added_through_the_cli_hook(swarm_cli, register_plugin):
    from swarm_handoff.api import hookimpl

    class Hello:
        @hookimpl
        def swarm_handoff_cli(self, app):
            @app.command("hello")
            def hello() -> None:
                print("hello from a plugin")

    register_plugin(Hello(), "hello")
    result = swarm_cli("hello")
    assert result.exit_code == 0
    assert result.stdout == "hello from a plugin\n"


def test_importing_the_package_is_light():
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import swarm_handoff"], capture_output=True, text=True, check=True
    ).stderr
    imported = {line.split("|")[-1].strip().split(".")[0] for line in out.splitlines() if "|" in line}
    # Not even pluggy or attrs: `--version` must not pay for them.
    assert not imported & {"typer", "click", "rich", "ruamel", "pydantic", "importlib_metadata", "pluggy", "attr"}
    assert "swarm_handoff" in imported


def test_a_plugin_cannot_replace_a_core_command(swarm_cli, register_plugin, swarm_host):
    from swarm_handoff.api import hookimpl

    class Hijack:
        @hookimpl
        def swarm_handoff_cli(self, app):
            @app.command("plugins")
            def plugins_() -> None:
                print("hijacked")

    register_plugin(Hijack(), "hijack")
    result = swarm_cli("plugins", "--format", "json")
    assert "hijacked" not in result.stdout
    assert result.json()["plugins"][0]["name"] == "core-formatters"
    assert any(f.code == "PLUGIN_NAME_CONFLICT" and "plugins" in f.error for f in swarm_host.failures)


def test_a_raising_cli_hook_is_reported_and_leaves_no_half_added_commands(swarm_cli, register_plugin, swarm_host):
    from swarm_handoff.api import hookimpl

    class Raises:
        @hookimpl
        def swarm_handoff_cli(self, app):
            @app.command("half")
            def half() -> None:
                print("half")

            raise RuntimeError("cli hook broke")

    register_plugin(Raises(), "raises")
    assert swarm_cli("half").exit_code == 2
    assert swarm_cli("plugins").exit_code == 0
    assert any("cli hook broke" in f.error for f in swarm_host.failures)


def test_plugin_commands_are_listed_and_run_in_typers_order(swarm_cli, register_plugin):
    # Help lists plugin commands where typer puts them: commands, then groups, the core's first.
    import typer

    from swarm_handoff.api import hookimpl

    class Adds:
        @hookimpl
        def swarm_handoff_cli(self, app):
            @app.command("zeta")
            def zeta() -> None:
                """A plugin command."""
                print("zeta ran")

            @app.command()
            def un_named() -> None:  # no explicit name: typer derives `un-named`
                print("un-named ran")

            extra = typer.Typer(help="A plugin group.")

            @extra.command("inner")
            def inner() -> None:
                print("inner ran")

            app.add_typer(extra, name="omega")

    register_plugin(Adds(), "adds")
    commands = swarm_cli("--help").stdout.split("Commands:")[1].split("\n\n")[0]  # up to the epilog
    listed = [line.split()[0] for line in commands.splitlines() if line.strip()]
    assert listed.index("demo") < listed.index("zeta") < listed.index("un-named") < listed.index("workflow")
    assert listed[-1] == "omega"
    assert swarm_cli("zeta").stdout == "zeta ran\n"
    assert swarm_cli("un-named").stdout == "un-named ran\n"
    assert swarm_cli("omega", "inner").stdout == "inner ran\n"
    typo = swarm_cli("zta")
    assert typo.exit_code == 2
    # The same message typer itself gives for that typo (recent versions add "Did you mean ...?").
    from typer.testing import CliRunner

    plain = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)
    plain.command("zeta")(lambda: None)
    plain.command("other")(lambda: None)
    expected = CliRunner().invoke(plain, ["zta"])
    said = [line for line in expected.output.splitlines() if line.startswith("Error:")]
    assert said
    assert "zta" in said[0]
    assert said[0] in typo.stderr


def test_version_does_not_build_the_plugin_host():
    code = (
        "import sys\nfrom swarm_handoff.cli.entry import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('importlib_metadata', 'swarm_handoff.builtin.formatters') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [f"swarm-handoff {__version__}", "[]"]


def _run_script(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    code = "from swarm_handoff.cli.entry import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], env={**os.environ, **env}, capture_output=True, text=True, check=False
    )


def test_a_completion_request_is_answered_by_typer_even_when_argv_says_version():
    """The `--version` fast path answers only a real `--version`: under `_SWARM_HANDOFF_COMPLETE` typer completes."""
    env = {"_SWARM_HANDOFF_COMPLETE": "complete_bash", "COMP_WORDS": "swarm-handoff disc", "COMP_CWORD": "1"}
    done = _run_script(["--version"], env)
    assert (done.returncode, done.stdout.split()) == (0, ["discover"]), done.stderr


def test_the_console_script_completes_values_as_well_as_commands():
    """The console script builds the app with the completer: an option's value is completed, not only a command."""
    env = {
        "_SWARM_HANDOFF_COMPLETE": "complete_bash",
        "COMP_WORDS": "swarm-handoff rank --scorer swarm",
        "COMP_CWORD": "3",
    }
    done = _run_script([], env)
    assert (done.returncode, done.stdout.split()) == (0, ["swarm-v2"]), done.stderr


def test_a_reader_that_went_away_ends_version_verbose_quietly():
    """`--version --verbose | head -1`: the closed pipe ends the run with 1 and no traceback, as for any command."""
    code = "from swarm_handoff.cli.entry import main; main()"
    with subprocess.Popen(
        [sys.executable, "-c", code, "--version", "--verbose"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as proc:
        assert proc.stdout is not None
        assert proc.stderr is not None
        proc.stdout.close()  # before the interpreter has started: every write meets a closed pipe
        err = proc.stderr.read().decode()
    assert (proc.returncode, err) == (1, "")


@pytest.mark.parametrize(
    "args",
    [
        ("rank", "--format", "json", "--bogus"),  # an unknown option
        ("verify", "--format", "json"),  # a missing argument
        ("handoff", "x", "-f", "json"),  # a missing required option
        ("history", "--format=json", "--limit", "many"),  # a bad value
    ],
)
def test_a_usage_error_under_a_machine_format_is_a_usage_document(swarm_cli, args):
    """`--format json` prints exactly one document on stdout for every failure, click's usage errors included."""
    result = swarm_cli(*args)
    assert result.exit_code == 2
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "USAGE"
    assert error["message"]
    assert f"swarm-handoff {args[0]} -h" in error["hint"]


def test_a_usage_error_in_text_is_still_clicks_own(swarm_cli):
    result = swarm_cli("verify")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "Missing argument" in result.stderr


def test_an_interrupt_ends_a_command_quietly_with_130(tmp_path, monkeypatch, capsys):
    """Ctrl-C while a command prints: exit status 130 and no traceback, as a shell expects."""
    from swarm_handoff.cli import output

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setenv("SWARM_HANDOFF_NO_CACHE", "1")
    monkeypatch.setattr(output, "emit", interrupted)
    with pytest.raises(SystemExit) as exit_:
        main(["discover", "--cwd", str(tmp_path), "--format", "json"])
    assert exit_.value.code == 130
    assert "Traceback" not in capsys.readouterr().err
