"""The pack seen through swarm-handoff itself, isolated by the testing kit: only this pack is installed."""

from __future__ import annotations

import pytest

SYNTHESIS = """\
original_prompt: Do the nightly retries lose messages under load?
problem_type: analytical
synthesis_summary: The perspectives disagree on whether retries drop messages, and cite little evidence.
key_uncertainties: [retry semantics, broker durability, how loss was measured]
research_seeds:
  open_questions: [Which brokers guarantee at-least-once delivery?]
"""


@pytest.fixture
def only_this_pack(make_swarm_host):
    """No other plugin or pack leaks in: the results depend on this pack alone."""
    return make_swarm_host(packs=["evidence-review"])


def test_discover_lists_the_skill_in_scope_installed(only_this_pack, swarm_cli, tmp_path):
    result = swarm_cli("discover", "--cwd", str(tmp_path), "--format", "json", env={"HOME": str(tmp_path)})
    [skill] = result.json()["workflows"]
    assert skill["skill"] == "evidence-review"
    assert skill["scope"] == "installed"
    assert skill["trigger"] == "--handoff {payload_path}"


def test_it_ranks_first_and_accepts_the_handoff(only_this_pack, swarm_cli, tmp_path):
    synthesis = tmp_path / "synthesis.yaml"
    synthesis.write_text(SYNTHESIS, encoding="utf-8")
    env = {"HOME": str(tmp_path)}
    ranked = swarm_cli("rank", "--synthesis", str(synthesis), "--cwd", str(tmp_path), "--format", "json", env=env)
    assert ranked.json()["workflows"][0]["skill"] == "evidence-review"
    session = tmp_path / "session"
    session.mkdir()
    handoff = swarm_cli(
        "handoff", "evidence-review", "--synthesis", str(synthesis), "--session", str(session), "--format", "json",
        env=env,
    )  # fmt: skip
    assert handoff.exit_code == 0, handoff.stdout
    assert handoff.json()["invocation"] == f"/evidence-review --handoff {session / 'handoff-payload.yaml'}"
