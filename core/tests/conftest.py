"""The core's tests never load the plugins or skill packs installed next to it: built-ins only."""

from __future__ import annotations

import pytest

from swarm_handoff import plugins
from swarm_handoff.packs import ENV_DISABLE_PACKS, ENV_LOAD_PACKS
from swarm_handoff.workflow.registry import reset_registry


@pytest.fixture(autouse=True)
def _isolated_host(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> object:
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


def _load_examples() -> None:
    """Make `import workflow_examples` work: importlib mode puts no test folder on sys.path."""
    import importlib.util
    import sys
    from pathlib import Path

    if "workflow_examples" in sys.modules:
        return
    spec = importlib.util.spec_from_file_location("workflow_examples", Path(__file__).with_name("workflow_examples.py"))
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)


_load_examples()
