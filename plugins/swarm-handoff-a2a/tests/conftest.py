"""Every test sees this plugin alone, a home of its own, and two machines' worth of folders on loopback.

`hosts` gives a sender (its own config folder, session and synthesis) and a receiver (its own
config folder and session root) that share one skills folder: `alpha` hands off to `beta`,
`picky` only takes work from `someone-else`. Both run in this process; the receiver listens on a
free loopback port (port 0) in a thread.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from swarm_handoff.api import HandoffOptions, PluginHost, hand_off, make_context

SYNTHESIS = """
original_prompt: Should we expand into Europe?
problem_type: strategic
synthesis_summary: Regulation is the main risk.
convergence_level: medium
"""


def skill(folder: Path, name: str, accepts: str = '["*"]', examples: str = "") -> None:
    """A v3.0 skill that accepts hand-offs from `accepts`."""
    (folder / name).mkdir(parents=True, exist_ok=True)
    extra = f"examples: {examples}\n" if examples else ""
    (folder / name / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: The {name} skill.\ncategories: [research]\n{extra}"
        f"handoff:\n  accepts_from: {accepts}\n  schema_version: '3.0'\n---\n# {name}\n",
        encoding="utf-8",
    )


@pytest.fixture
def v3_skill() -> Callable[..., None]:
    """Return `skill(folder, name, accepts='["*"]', examples="")`: write a v3.0 skill."""
    return skill


@pytest.fixture(autouse=True)
def _isolated_host(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
    make_swarm_host: Callable[..., PluginHost],
) -> PluginHost:
    home = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    return make_swarm_host(["a2a", "frontmatter"], packs=())


@pytest.fixture
def hosts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    project = tmp_path / "project"
    skills = project / ".claude" / "skills"
    skill(skills, "alpha")
    skill(skills, "beta", examples='["Review the market entry plan"]')
    skill(skills, "picky", accepts='["someone-else"]')
    monkeypatch.chdir(project)
    sender_config = tmp_path / "sender-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(sender_config))
    session = tmp_path / "session"
    (session / "perspectives").mkdir(parents=True)
    synthesis = tmp_path / "synthesis.yaml"
    synthesis.write_text(SYNTHESIS, encoding="utf-8")
    receiver_env = {**os.environ, "CLAUDE_CONFIG_DIR": str(tmp_path / "receiver-config")}
    return {
        "project": project,
        "session": session,
        "synthesis": synthesis,
        "sender_config": sender_config,
        "receiver_context": make_context(project, env=receiver_env),
        "inbox": tmp_path / "inbox",
        "root": tmp_path,
    }


@pytest.fixture
def payload(hosts: dict[str, Any]) -> Callable[..., Path]:
    """Return `make(target="beta", **options)`: a sealed v3.0 payload file from alpha, built by `hand_off`."""

    def make(target: str = "beta", **options: Any) -> Path:
        result = hand_off(
            HandoffOptions(
                target=target, synthesis=hosts["synthesis"], session=hosts["session"], source="alpha", **options
            )
        )
        return Path(result.payload_path)

    return make


@pytest.fixture
def receiver(hosts: dict[str, Any]) -> Iterator[Callable[..., Any]]:
    """Return `start(**options)`: a receiving host on a free loopback port, stopped after the test."""
    from swarm_handoff_a2a.receiver import build_receiver

    started: list[Any] = []

    def start(**options: Any) -> Any:
        options.setdefault("context", hosts["receiver_context"])
        built = build_receiver(hosts["inbox"], host="127.0.0.1", port=0, **options)
        built.start()
        started.append(built)
        return built

    yield start
    for built in started:
        built.stop()
