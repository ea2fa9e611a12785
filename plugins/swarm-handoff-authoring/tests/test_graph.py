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


def test_edges_only_hides_skills_with_no_edge_and_says_how_many(project, swarm_cli):
    """Issue 26: on a real repository most skills have no edge; `--edges-only` leaves the hand-offs readable."""
    tree, env = project
    tree.add("loner", raw="---\nname: loner\ndescription: Talks to nobody.\n---\n")
    full = swarm_cli("graph", "--cwd", str(tree.root), "-f", "json", env=env).json()
    assert "loner" in {n["name"] for n in full["nodes"]}
    assert full["hidden_without_edges"] == 0
    only = swarm_cli("graph", "--edges-only", "--cwd", str(tree.root), "-f", "json", env=env).json()
    names = {n["name"] for n in only["nodes"]}
    assert "loner" not in names
    assert names == {e["source"] for e in only["edges"]} | {e["target"] for e in only["edges"]}
    assert only["edges"] == full["edges"]
    assert only["hidden_without_edges"] == len(full["nodes"]) - len(only["nodes"])
    text = swarm_cli("graph", "--edges-only", "--cwd", str(tree.root), env=env).stdout
    assert "loner" not in text
    assert f"%% {only['hidden_without_edges']} skill(s) with no hand-off edge hidden (--edges-only)" in text
    dot = swarm_cli("graph", "--edges-only", "--as", "dot", "--cwd", str(tree.root), env=env).stdout
    assert f"// {only['hidden_without_edges']} skill(s) with no hand-off edge hidden (--edges-only)" in dot
