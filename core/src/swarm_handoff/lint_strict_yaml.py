"""Valid YAML that the reference validator's parser refuses: `SPEC_STRICT_YAML`, with the line.

`agentskills validate` (skills-ref) reads frontmatter with strictyaml, which rejects flow-style
collections (`[a, b]`, `{k: v}`), anchors and aliases (`&x`, `*x`), explicit tags (`!!str`) and
sibling mappings indented differently. All of it is valid YAML that Claude Code, Codex and
swarm-handoff read, so `lint` reports it at info level (an error under `--strict-spec`): the user
learns why the reference validator fails the file, and which line to rewrite, without `lint`
failing a file every agent loads. Only `lint` imports this module; discovery never pays for it.
"""

from __future__ import annotations

from swarm_handoff.errors import Problem, Severity

SPEC_STRICT_YAML = "SPEC_STRICT_YAML"
# A frontmatter without any of these characters has none of the constructs: skip the parse.
_TRIGGERS = frozenset("[{&*!")
_HINTS = {
    "flow": "write it in block style: a list as indented '- item' lines, a mapping as indented 'key: value' "
    "lines (under metadata:, a list as one comma-separated string)",
    "anchor": "repeat the value instead of using an anchor or alias",
    "tag": "remove the tag; quote the value if it must stay text",
    "indent": "indent every mapping under the same parent by the same number of spaces",
}


def strict_yaml_problems(text: str, path: str, *, first_line: int = 2, strict: bool = False) -> list[Problem]:
    """One finding per construct strictyaml refuses (the first of each kind), located by file line.

    `text` is the frontmatter between the delimiters, its first line being file line `first_line`.
    """
    found = _constructs(text) if _TRIGGERS & set(text) or "\n " in text else {}
    level = Severity.ERROR if strict else Severity.INFO
    return [
        Problem(
            SPEC_STRICT_YAML,
            f"{what} (valid YAML, but agentskills validate's parser, strictyaml, rejects it)",
            path=path,
            line=line + first_line,
            hint=_HINTS[kind],
            severity=level,
        )
        for kind, (line, what) in sorted(found.items(), key=lambda item: item[1][0])
    ]


def _constructs(text: str) -> dict[str, tuple[int, str]]:
    """The first (0-based line, description) of each refused construct; {} when the text does not parse."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.events import (
        AliasEvent,
        CollectionEndEvent,
        CollectionStartEvent,
        MappingStartEvent,
        NodeEvent,
        ScalarEvent,
        SequenceStartEvent,
    )

    found: dict[str, tuple[int, str]] = {}
    # One frame per open collection: [is_mapping, expecting_a_value, column of the first mapping value].
    frames: list[list[object]] = []
    try:
        for event in YAML(typ="rt", pure=True).parse(text):
            line = event.start_mark.line
            if isinstance(event, CollectionStartEvent) and event.flow_style:
                kind = "list" if isinstance(event, SequenceStartEvent) else "mapping"
                found.setdefault("flow", (line, f"a flow-style {kind}, {'[a, b]' if kind == 'list' else '{k: v}'}"))
            if isinstance(event, AliasEvent) or (isinstance(event, NodeEvent) and event.anchor):
                found.setdefault("anchor", (line, "an anchor or alias (&name / *name)"))
            if isinstance(event, (ScalarEvent, CollectionStartEvent)) and event.tag:
                found.setdefault("tag", (line, f"an explicit tag ({event.tag})"))
            if isinstance(event, NodeEvent) and frames and frames[-1][0]:
                frame = frames[-1]
                if frame[1] and isinstance(event, MappingStartEvent):
                    column = event.start_mark.column
                    if frame[2] is None:
                        frame[2] = column
                    elif frame[2] != column:
                        found.setdefault("indent", (line, "a mapping indented differently from the one before it"))
                frame[1] = not frame[1]
            if isinstance(event, CollectionStartEvent):
                frames.append([isinstance(event, MappingStartEvent), False, None])
            elif isinstance(event, CollectionEndEvent) and frames:
                frames.pop()
    except YAMLError:
        return {}  # unreadable YAML is reported by the parser's own codes
    return found
