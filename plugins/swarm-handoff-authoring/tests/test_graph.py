"""`swarm-handoff graph`: the hand-off graph from every form, as Mermaid, DOT and data."""

from __future__ import annotations

import pytest

from swarm_handoff.testing import SkillTree

CLARIFY = """---
name: speckit-clarify
description: Ask what the spec leaves open.
handoffs:
  - label: Build a "plan"
    agent: speckit.plan
    prompt: Plan it.
  - label: Gone
    agent: speckit.nowhere
---
"""
PLAN = "---\nname: speckit-plan\ndescription: Plan from a spec.\n---\n"
REVIEW = '---\nname: review\ndescription: Review.\nmetadata:\n  accepts-from: "speckit-plan"\n---\n'
ANY = '---\nname: any\ndescription: Anyone.\nmetadata:\n  accepts-from: "*"\n  provides-to: "review"\n---\n'


@pytest.fixture
def project(tmp_path, make_swarm_host):
    make_swarm_host(["frontmatter", "authoring"])
    tree = SkillTree(tmp_path / "project")
    for name, text in (("speckit-clarify", CLARIFY), ("speckit-plan", PLAN), ("review", REVIEW), ("any", ANY)):
        tree.add(name, raw=text)
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": "", "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    return tree, env


def test_graph_data_has_an_edge_per_form(project, swarm_cli):
    tree, env = project
    result = swarm_cli("graph", "--cwd", str(tree.root), "-f", "json", env=env)
    assert result.exit_code == 0, result.stderr
    edges = {(e["source"], e["target"]): (e["form"], e["label"]) for e in result.json()["edges"]}
    assert edges == {
        ("speckit-clarify", "speckit-plan"): ("handoffs", 'Build a "plan"'),
        ("speckit-clarify", "speckit.nowhere"): ("handoffs", "Gone"),
        ("speckit-plan", "review"): ("accepts_from", None),
        ("any", "review"): ("provides_to", None),
    }
    nodes = {n["name"]: n for n in result.json()["nodes"]}
    assert nodes["speckit.nowhere"]["missing"]
    assert nodes["speckit-plan"]["target"]  # named by a handoffs: list
    assert nodes["any"]["accepts_any"]
    assert not nodes["speckit-clarify"]["target"]


def test_graph_text_is_mermaid_and_dot_with_quotes_escaped(project, swarm_cli):
    tree, env = project
    mermaid = swarm_cli("graph", "--cwd", str(tree.root), env=env).stdout
    assert mermaid.startswith("flowchart LR\n")
    assert '-->|"Build a #quot;plan#quot;"|' in mermaid
    assert "class " in mermaid  # the missing node is styled
    dot = swarm_cli("graph", "--as", "dot", "--cwd", str(tree.root), env=env).stdout
    assert dot.startswith("digraph handoffs {")
    assert '"speckit-clarify" -> "speckit-plan" [label="Build a \\"plan\\""];' in dot
    assert dot.rstrip().endswith("}")


def test_unknown_style_is_a_usage_error(project, swarm_cli):
    tree, env = project
    result = swarm_cli("graph", "--as", "svg", "--cwd", str(tree.root), "-f", "json", env=env)
    assert result.exit_code == 2
    assert "mermaid" in result.json()["error"]["hint"]
