"""Every test sees this plugin alone (no other installed plugin or pack) and a home of its own."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from swarm_handoff.api import PluginHost


@pytest.fixture(autouse=True)
def _isolated_host(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
    make_swarm_host: Callable[..., PluginHost],
) -> PluginHost:
    # The user's own skills folder and caches must never be read or written by a test.
    home = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    return make_swarm_host(["link"], packs=())
