"""Export a workflow's transition graph as Mermaid or Graphviz DOT text.

Edges carry the outcome that takes them; steps that can end the workflow get an edge to an
explicit end node, and error routes are dashed, so the picture shows every way through.
"""

from __future__ import annotations

import json

from swarm_handoff.workflow.model import Workflow

FORMATS = ("mermaid", "dot")


def _mermaid_text(text: str) -> str:
    # Mermaid labels are quoted strings; it has no escape for '"', so use its entity form.
    return text.replace('"', "#quot;")


def to_mermaid(workflow: Workflow) -> str:
    """Return a `flowchart TD` in which nodes are steps (by index) and edges are outcomes."""
    ids = {sid: f"s{n}" for n, sid in enumerate(workflow.step_ids, start=1)}
    lines = ["flowchart TD"]
    for n, step in enumerate(workflow.steps, start=1):
        title = step.title if isinstance(step.title, str) and step.title else step.id
        label = _mermaid_text(f"{n}. {step.id}: {title}" if title != step.id else f"{n}. {step.id}")
        shape = ('(["', '"])') if step.terminal else ('["', '"]')
        lines.append(f"    {ids[step.id]}{shape[0]}{label}{shape[1]}")
    lines.append("    end_node((end))")
    lines.append(f"    start_node((start)) --> {ids[workflow.entry]}")
    for source, label, target in workflow.edges():
        arrow = "-.->" if label == "error" else "-->"
        dest = ids[target] if target is not None else "end_node"
        lines.append(f"    {ids[source]} {arrow}|{_mermaid_text(label)}| {dest}")
    return "\n".join(lines) + "\n"


def to_dot(workflow: Workflow) -> str:
    """Return a `digraph` with one node per step, an end node, and outcome-labelled edges."""
    quote = json.dumps  # DOT's quoted strings share JSON's escaping of '"' and '\\'
    lines = [f"digraph {quote(workflow.name)} {{", "    rankdir=TB;", '    "__start__" [shape=point];']
    lines.append('    "__end__" [shape=doublecircle, label="end"];')
    for n, step in enumerate(workflow.steps, start=1):
        title = step.title if isinstance(step.title, str) and step.title else step.id
        shape = "box, peripheries=2" if step.terminal else "box"
        lines.append(f"    {quote(step.id)} [shape={shape}, label={quote(f'{n}. {title}')}];")
    lines.append(f'    "__start__" -> {quote(workflow.entry)};')
    for source, label, target in workflow.edges():
        dest = quote(target) if target is not None else '"__end__"'
        style = ", style=dashed" if label == "error" else ""
        lines.append(f"    {quote(source)} -> {dest} [label={quote(label)}{style}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def export(workflow: Workflow, syntax: str) -> str:
    """Return the graph in `syntax` (`mermaid` or `dot`); anything else is a ValueError."""
    if syntax == "mermaid":
        return to_mermaid(workflow)
    if syntax == "dot":
        return to_dot(workflow)
    raise ValueError(f"graph syntax must be one of {', '.join(FORMATS)}, not {syntax!r}")
