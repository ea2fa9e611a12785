"""`graph`: who hands off to whom among the discovered skills, from every form, as Mermaid or DOT.

An edge comes from a sender's outgoing declarations (`handoffs:` entries, with their labels;
`provides_to` in a `handoff:` block or `metadata:`) or from a target's `accepts_from` naming a
sender. `accepts_from: ["*"]` draws no edges (it would join every pair); such targets are drawn
rounded instead. A name nothing discovered answers to is drawn dashed, so a typo is visible.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import attrs

from swarm_handoff.api import SkillRecord, agent_key

STYLES = ("mermaid", "dot")
_ANY = "*"


@attrs.frozen
class Node:
    """A skill in the graph: whether it accepts hand-offs and from anyone, or whether it was not found."""

    name: str
    target: bool = False
    accepts_any: bool = False
    missing: bool = False


@attrs.frozen
class Edge:
    """One hand-off the metadata allows: from, to, which form said so, and the sender's label."""

    source: str
    target: str
    form: str
    label: str | None = None


@attrs.frozen(kw_only=True)
class GraphDocument:
    """The `graph` document: nodes and edges as data; text is Mermaid or DOT."""

    kind: ClassVar[str] = "graph"
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    style: str = "mermaid"
    hidden_without_edges: int = 0  # skills left out by `--edges-only` (they have no edge)

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form (no rendering: the data is what a program wants)."""
        return {
            "nodes": [attrs.asdict(n) for n in self.nodes],
            "edges": [attrs.asdict(e) for e in self.edges],
            "hidden_without_edges": self.hidden_without_edges,
        }

    def to_text(self) -> str:
        """Render as Mermaid (a `flowchart`) or DOT (a `digraph`)."""
        return mermaid(self) if self.style == "mermaid" else dot(self)


def build(records: Iterable[SkillRecord]) -> GraphDocument:
    """The hand-off graph of `records` (every discovered skill, eligible or not; one record per name)."""
    skills: dict[str, SkillRecord] = {}
    for record in records:
        skills.setdefault(record.name, record)
    aliases: dict[str, str] = {}
    for record in skills.values():
        for alias in (record.name, record.declared_name):
            if alias:
                aliases.setdefault(alias, record.name)
                aliases.setdefault(agent_key(alias), record.name)

    def resolve(name: str) -> str:
        return aliases.get(name) or aliases.get(agent_key(name)) or name

    edges: dict[tuple[str, str], Edge] = {}
    for record in skills.values():
        labels = {
            e["agent"]: e.get("label")
            for e in record.meta.get("handoffs") or ()
            if isinstance(e, dict) and "agent" in e
        }
        for name in record.provides_to:
            target = resolve(name)
            form = "handoffs" if name in labels else "provides_to"
            edges.setdefault((record.name, target), Edge(record.name, target, form, labels.get(name)))
    for record in skills.values():
        for name in record.accepts_from:
            if name != _ANY:
                edges.setdefault((resolve(name), record.name), Edge(resolve(name), record.name, "accepts_from"))
    nodes = [
        # eligible with no accepts_from is a v2.0 `accepts_handoff: true`: anyone may hand off
        Node(r.name, target=r.eligible, accepts_any=r.eligible and (not r.accepts_from or _ANY in r.accepts_from))
        for r in skills.values()
    ]
    missing = sorted({n for e in edges.values() for n in (e.source, e.target)} - set(skills))
    nodes.extend(Node(name, missing=True) for name in missing)
    return GraphDocument(
        nodes=tuple(sorted(nodes, key=lambda n: n.name)),
        edges=tuple(sorted(edges.values(), key=lambda e: (e.source, e.target))),
    )


def _clean(text: str) -> str:
    """One line of printable text (names and labels come from other people's files)."""
    return "".join(c if c.isprintable() else " " for c in text)


def mermaid(graph: GraphDocument) -> str:
    """A Mermaid flowchart; node ids are positional so any skill name is safe inside quotes."""
    ids = {n.name: f"n{i}" for i, n in enumerate(graph.nodes)}

    def quoted(text: str) -> str:
        return '"' + _clean(text).replace('"', "#quot;") + '"'

    lines = ["flowchart LR"]
    for node in graph.nodes:
        shape = "([{}])" if node.accepts_any else ("({})" if node.target else "[{}]")
        lines.append(f"    {ids[node.name]}{shape.format(quoted(node.name))}")
    for edge in graph.edges:
        label = f"|{quoted(edge.label)}|" if edge.label else ""
        arrow = "-.->" if edge.form == "accepts_from" else "-->"
        lines.append(f"    {ids[edge.source]} {arrow}{label} {ids[edge.target]}")
    missing = [ids[n.name] for n in graph.nodes if n.missing]
    if missing:
        lines.append("    classDef missing stroke-dasharray: 5 5")
        lines.append(f"    class {','.join(missing)} missing")
    if graph.hidden_without_edges:
        lines.append(f"    %% {_hidden_note(graph)}")
    return "\n".join(lines) + "\n"


def dot(graph: GraphDocument) -> str:
    """A Graphviz digraph (`dot -Tsvg`)."""

    def quoted(text: str) -> str:
        return '"' + _clean(text).replace("\\", "\\\\").replace('"', '\\"') + '"'

    lines = ["digraph handoffs {", "    rankdir=LR;", "    node [shape=box];"]
    for node in graph.nodes:
        attributes = []
        if node.target:
            attributes.append('style="rounded,bold"' if node.accepts_any else "style=rounded")
        if node.missing:
            attributes.append("style=dashed")
        suffix = f" [{', '.join(attributes)}]" if attributes else ""
        lines.append(f"    {quoted(node.name)}{suffix};")
    for edge in graph.edges:
        attributes = [f"label={quoted(edge.label)}"] if edge.label else []
        if edge.form == "accepts_from":
            attributes.append("style=dashed")
        suffix = f" [{', '.join(attributes)}]" if attributes else ""
        lines.append(f"    {quoted(edge.source)} -> {quoted(edge.target)}{suffix};")
    if graph.hidden_without_edges:
        lines.append(f"    // {_hidden_note(graph)}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _hidden_note(graph: GraphDocument) -> str:
    return f"{graph.hidden_without_edges} skill(s) with no hand-off edge hidden (--edges-only)"


def edges_only(graph: GraphDocument) -> GraphDocument:
    """The graph without the skills no edge touches: on a real repository, most of them."""
    joined = {name for edge in graph.edges for name in (edge.source, edge.target)}
    kept = tuple(node for node in graph.nodes if node.name in joined)
    return attrs.evolve(graph, nodes=kept, hidden_without_edges=len(graph.nodes) - len(kept))


def with_style(graph: GraphDocument, style: str) -> GraphDocument:
    """The same graph, rendered as `style` in text."""
    return attrs.evolve(graph, style=style)


def discovered(workflows: Sequence[SkillRecord], ineligible: Sequence[SkillRecord]) -> list[SkillRecord]:
    """Every skill discovery saw that claims its name: the targets first, then the others."""
    return [*workflows, *ineligible]
