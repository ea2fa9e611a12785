"""The core's tests never load the plugins installed next to it: each test gets built-ins only."""

from __future__ import annotations

import pytest

from swarm_handoff import plugins


@pytest.fixture(autouse=True)
def _isolated_host(monkeypatch: pytest.MonkeyPatch) -> object:
    monkeypatch.setenv(plugins.ENV_LOAD, "")
    monkeypatch.delenv(plugins.ENV_DISABLE, raising=False)
    monkeypatch.delenv(plugins.ENV_STRICT, raising=False)
    plugins.reset_host()
    yield
    plugins.reset_host()
