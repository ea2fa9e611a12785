"""The core's tests never load the plugins or skill packs installed next to it: built-ins only."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from swarm_handoff import plugins
from swarm_handoff.api import hookimpl, not_cacheable, watch
from swarm_handoff.packs import ENV_DISABLE_PACKS, ENV_LOAD_PACKS
from swarm_handoff.records import DiscoveryContext, SkillRecord, SourceResult
from swarm_handoff.workflow.registry import reset_registry


@pytest.fixture(autouse=True)
def _isolated_host(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory, trust_fresh_files: None
) -> object:
    # The user's own skills, hand-off history and caches must never leak into (or be written by) a test.
    home = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv(plugins.ENV_LOAD, "")
    monkeypatch.setenv(ENV_LOAD_PACKS, "")
    monkeypatch.delenv(ENV_DISABLE_PACKS, raising=False)
    monkeypatch.delenv(plugins.ENV_DISABLE, raising=False)
    monkeypatch.delenv(plugins.ENV_STRICT, raising=False)
    plugins.reset_host()
    reset_registry()
    yield
    plugins.reset_host()
    reset_registry()


class ListSource:
    """A discovery source for the cache tests: one skill per name in `folder/list.txt`; counts its runs."""

    priority = 1

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.listing = folder / "list.txt"
        self.runs = 0
        self.cacheable = True

    def discover(self, context: DiscoveryContext) -> SourceResult:
        self.runs += 1
        watch(self.listing)
        names = self.listing.read_text().split() if self.listing.exists() else []
        records = tuple(SkillRecord(name=n, scope="project", source="list", path=str(self.listing)) for n in names)
        if not self.cacheable:
            not_cacheable("the test says so")
        return SourceResult(records=records, scanned=len(records))

    def cache_key(self, context: DiscoveryContext) -> str:
        return ""


@pytest.fixture
def list_source(register_plugin: Callable[..., bool], tmp_path: Path) -> ListSource:
    """Register a `ListSource` reading `tmp_path/data/list.txt` (not written yet) as the only extra source."""
    folder = tmp_path / "data"
    folder.mkdir()
    source = ListSource(folder)

    class Plugin:
        @hookimpl
        def swarm_handoff_discovery_sources(self, register: Callable[..., None]) -> None:
            register("list", lambda: source)

    register_plugin(Plugin(), "list")
    return source


@pytest.fixture
def handoff_world(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, register_source: Callable[..., None]
) -> Callable[..., dict[str, Path]]:
    """Return `make(records, synthesis, *, perspectives=(), session="session")`: what a hand-off test starts from.

    `tmp_path/SESSION` (mode 0755, whatever the umask: a session others can write draws a warning)
    with `perspectives/NAME.md` per name, `tmp_path/synthesis.yaml` holding `synthesis`,
    `CLAUDE_CONFIG_DIR` at `tmp_path/config` (not created) and a source `fake-skills` answering
    `records`. Returns those paths as `session`, `synthesis`, `config`, and `tmp_path` as `root`.
    """

    def make(
        records: Sequence[SkillRecord], synthesis: str, *, perspectives: Sequence[str] = (), session: str = "session"
    ) -> dict[str, Path]:
        folder = tmp_path / session
        (folder / "perspectives").mkdir(parents=True)
        folder.chmod(0o755)
        for name in perspectives:
            (folder / "perspectives" / f"{name}.md").write_text(name)
        synthesis_file = tmp_path / "synthesis.yaml"
        synthesis_file.write_text(synthesis)
        config = tmp_path / "config"
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
        register_source("fake-skills", records)
        return {"session": folder, "synthesis": synthesis_file, "config": config, "root": tmp_path}

    return make


@pytest.fixture
def in_thread() -> Callable[[Callable[[], Any]], Any]:
    """Return `run(function)`: what `function()` returns, called in a thread so a hang fails the test, not the run."""

    def run(function: Callable[[], Any]) -> Any:
        out: list[Any] = []
        worker = threading.Thread(target=lambda: out.append(function()), daemon=True)
        worker.start()
        worker.join(120)  # only a safety net, not a limit under test
        assert out, "it waited forever"
        return out[0]

    return run


def _load_helper(name: str) -> None:
    """Make `import NAME` work for a helper module here: importlib mode puts no test folder on sys.path."""
    import importlib.util
    import sys

    if name in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)


_load_helper("workflow_examples")
_load_helper("source_plugins")
