"""Every command's `-h` page, byte for byte: the operations table must render help exactly as before.

The pages are stored in `tests/golden-help/` (one file per command path, installed plugins' commands
included). Regenerate after an intended change with `SWARM_HANDOFF_REGEN_GOLDEN=1 pytest
tests/test_help_pages_golden.py`. A command whose page is not stored (a plugin added later) is skipped.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from swarm_handoff import plugins
from swarm_handoff.cli.app import build_app

GOLDEN = Path(__file__).resolve().parent / "golden-help"
REGENERATE = os.environ.get("SWARM_HANDOFF_REGEN_GOLDEN") == "1"
# The commands whose pages are pinned: the core's and the plugins' of this repository.
PINNED = (
    "",
    "plugins",
    "discover",
    "why",
    "lint",
    "rank",
    "route",
    "handoff",
    "validate",
    "verify",
    "convert",
    "ack",
    "history",
    "demo",
    "workflow",
    "workflow list",
    "workflow show",
    "workflow check",
    "workflow graph",
    "workflow step",
    "session",
    "session new",
    "session close",
    "session gc",
    "session resume",
    "graph",
    "adopt",
    "skills",
    "skills link",
    "skills unlink",
    "registry",
    "registry path",
    "registry show",
    "registry sync",
    "registry prune",
    "mcp",
    "a2a",
    "a2a serve",
    "a2a send",
    "a2a skills",
    "a2a status",
)


def _file(path: str) -> Path:
    return GOLDEN / f"{path.replace(' ', '-') or 'root'}.txt"


@pytest.fixture
def help_page(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / ".claude"))
    monkeypatch.delenv(plugins.ENV_DISABLE, raising=False)
    monkeypatch.delenv(plugins.ENV_LOAD, raising=False)
    plugins.reset_host()
    app = build_app()
    try:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        runner = CliRunner()

    def page(path: str) -> tuple[int, str]:
        result = runner.invoke(app, [*path.split(), "--help"], env={"COLUMNS": "100"}, catch_exceptions=False)
        return result.exit_code, result.stdout

    yield page
    plugins.reset_host()


@pytest.mark.parametrize("path", PINNED)
def test_help_page_is_unchanged(help_page, path: str) -> None:
    code, text = help_page(path)
    stored = _file(path)
    if REGENERATE:
        GOLDEN.mkdir(exist_ok=True)
        stored.write_text(text, encoding="utf-8")
    if not stored.exists():
        pytest.skip(f"no stored page for {path!r} (its plugin is not installed when it was stored)")
    if "No such command" in text or code != 0:
        pytest.skip(f"{path!r}: its plugin is not installed here")
    assert text == stored.read_text(encoding="utf-8"), f"`swarm-handoff {path} -h` changed"


def test_root_lists_the_commands(help_page) -> None:
    # The root page is the list every command joins: a command lost from the table shows here.
    _code, text = help_page("")
    group = typer.main.get_command(build_app())
    assert all(name in text for name in group.list_commands(group.context_class(group)))


def test_a_scope_a_plugin_declared_earlier_in_the_process_does_not_change_the_page(
    help_page, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Sources declare their scopes when built; the page names the core's, whatever ran before it.
    from swarm_handoff import scopes

    monkeypatch.setattr(scopes, "_TABLE", dict(scopes._TABLE))  # the scratch scope goes with the test
    scopes.declare({}, "a-test", (scopes.ScopeSpec("help-page-scratch", 1.5, scopes.SHADOW),))
    _code, text = help_page("discover")
    assert "help-page-scratch" not in text
