"""Add hand-off keys to a SKILL.md's frontmatter text, changing no other byte where that is possible.

The usual case is an insertion: a `metadata:` block (or `handoff:` block) appended at the end of
the frontmatter, or new lines appended inside an existing block-style `metadata:` mapping, in the
file's own line ending and indentation. Only where the keys cannot simply be added (a `handoff:`
block to amend, a flow-style `metadata: {...}`) is the frontmatter rewritten by a ruamel.yaml round
trip, which keeps comments and key order. The body after the closing `---` is never touched.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from swarm_handoff.api import SwarmError

ADOPT_NO_FRONTMATTER = "ADOPT_NO_FRONTMATTER"
ADOPT_BAD_FRONTMATTER = "ADOPT_BAD_FRONTMATTER"
ADOPT_HAS_HANDOFF_BLOCK = "ADOPT_HAS_HANDOFF_BLOCK"
FORMS = ("metadata", "v3")
_LEADING_COMMENTS = re.compile(r"(?:\s*<!--.*?-->)+\s*", re.S)
_OPEN = re.compile(r"---[ \t]*(\r?\n)")
_CLOSE = re.compile(r"^---[ \t]*\r?$", re.M)
_TOP_KEY = re.compile(r"^(?:'([^']*)'|\"([^\"]*)\"|([^\s#:'\"-][^:]*?))\s*:(?:[ \t]+|$)(.*)$")


@attrs.frozen
class Split:
    """A SKILL.md as three strings: everything up to the frontmatter, the frontmatter, the rest."""

    head: str  # a BOM, leading HTML comments and the opening `---` line
    front: str  # the YAML between the delimiters (ends with a newline unless empty)
    tail: str  # the closing `---` line and the body, byte for byte
    newline: str

    def join(self, front: str) -> str:
        """The file with `front` in place of the frontmatter."""
        return self.head + front + self.tail


def split(text: str, path: str) -> Split:
    """Find the frontmatter the way discovery does (after a BOM and leading HTML comments)."""
    start = 1 if text.startswith("\ufeff") else 0
    comments = _LEADING_COMMENTS.match(text, start)
    if comments and text[comments.end() :].startswith("---"):
        start = comments.end()
    opening = _OPEN.match(text, start)
    if opening is None:
        raise SwarmError(
            ADOPT_NO_FRONTMATTER,
            f"{path}: line 1: no frontmatter (the file does not open with a '---' line)",
            details={"path": path, "line": 1},
            hint="add a frontmatter with name and description first (swarm-handoff lint PATH says what is missing)",
        )
    closing = _CLOSE.search(text, opening.end())
    if closing is None:
        line = text.count("\n", 0, opening.start()) + 1
        raise SwarmError(
            ADOPT_NO_FRONTMATTER,
            f"{path}: line {line}: the frontmatter is never closed by a '---' line",
            details={"path": path, "line": line},
            hint="close the frontmatter with a line holding only ---",
        )
    return Split(text[: opening.end()], text[opening.end() : closing.start()], text[closing.start() :], opening[1])


def top_keys(front: str) -> dict[str, tuple[int, str]]:
    """Each top-level key's line index in `front` and what follows its colon on that line."""
    found: dict[str, tuple[int, str]] = {}
    for number, line in enumerate(front.splitlines()):
        if line[:1] in ("", " ", "\t", "#"):
            continue
        match = _TOP_KEY.match(line)
        if match:
            key = next(g for g in match.groups()[:3] if g is not None).strip()
            found.setdefault(key, (number, match[4]))
    return found


def _yaml_text(value: str) -> str:
    """A double-quoted YAML scalar (JSON's string syntax is a subset of YAML's)."""
    return json.dumps(value, ensure_ascii=False)


def metadata_lines(accepts: Sequence[str], categories: Sequence[str]) -> list[tuple[str, str]]:
    """The metadata form's keys for these choices, as (key, YAML scalar) pairs."""
    pairs = [("accepts-from", _yaml_text(", ".join(accepts)))]
    if categories:
        pairs.append(("handoff-categories", _yaml_text(", ".join(categories))))
    return pairs


def _block(values: Sequence[str], indent: str, nl: str) -> str:
    """A block-style list (`- item` lines): `lint --strict-spec` refuses flow style (`[a, b]`)."""
    return "".join(f"{indent}- {_yaml_text(v)}{nl}" for v in values)


def add_keys(
    parts: Split, data: Mapping[str, Any], form: str, accepts: Sequence[str], categories: Sequence[str], path: str
) -> str:
    """The new frontmatter text with the hand-off keys of `form` added (`data`: the parsed frontmatter)."""
    nl = parts.newline
    front = parts.front
    if front and not front.endswith("\n"):
        front += nl
    keys = top_keys(front)
    if form == "metadata":
        if "handoff" in data:
            raise SwarmError(
                ADOPT_HAS_HANDOFF_BLOCK,
                f"{path}: line {keys.get('handoff', (0, ''))[0] + 2}: the skill has a 'handoff:' block, "
                "which wins over metadata keys",
                details={"path": path, "line": keys.get("handoff", (0, ""))[0] + 2},
                hint="use --form v3 to complete the 'handoff:' block, or remove it first",
            )
        pairs = metadata_lines(accepts, categories)
        block = data.get("metadata")
        if "metadata" not in keys and "metadata" not in data:
            return front + "metadata:" + nl + "".join(f"  {k}: {v}{nl}" for k, v in pairs)
        if isinstance(block, Mapping) and not any(k in block for k, _ in pairs) and "metadata" in keys:
            inserted = _insert_into_block(front, keys["metadata"], pairs, nl)
            if inserted is not None:
                return inserted
        return _round_trip(front, path, lambda doc: _set_metadata(doc, pairs), nl)
    if "handoff" not in data and "handoff" not in keys:
        added = f"handoff:{nl}  accepts_from:{nl}{_block(accepts, '    ', nl)}"
        if categories and "categories" not in data:
            added += f"categories:{nl}{_block(categories, '  ', nl)}"
        return front + added
    return _round_trip(front, path, lambda doc: _set_v3(doc, accepts, categories, path), nl)


def _insert_into_block(front: str, where: tuple[int, str], pairs: list[tuple[str, str]], nl: str) -> str | None:
    """New lines at the end of a block-style `metadata:` mapping, at its children's indentation."""
    number, rest = where
    if rest.strip() and not rest.lstrip().startswith("#"):
        return None  # `metadata: {...}` or a scalar: not a block to append to
    lines = front.splitlines(keepends=True)
    indent: str | None = None
    last = number
    for index in range(number + 1, len(lines)):
        line = lines[index]
        body = line.rstrip("\r\n")
        if not body.strip():
            continue
        if body[:1] not in (" ", "\t"):
            break
        if body.lstrip().startswith("#"):
            continue
        if indent is None:
            indent = body[: len(body) - len(body.lstrip())]
        last = index
    if indent is None or "\t" in indent:
        return None  # an empty or odd block: leave it to the round trip
    added = "".join(f"{indent}{k}: {v}{nl}" for k, v in pairs)
    return "".join(lines[: last + 1]) + added + "".join(lines[last + 1 :])


def _set_metadata(doc: Any, pairs: list[tuple[str, str]]) -> None:
    from ruamel.yaml.comments import CommentedMap

    block = doc.get("metadata")
    if not isinstance(block, dict):
        block = CommentedMap()
        doc["metadata"] = block
    for key, value in pairs:
        block[key] = json.loads(value)


def _set_v3(doc: Any, accepts: Sequence[str], categories: Sequence[str], path: str) -> None:
    handoff = doc.get("handoff")
    if not isinstance(handoff, dict):
        raise SwarmError(
            ADOPT_HAS_HANDOFF_BLOCK,
            f"{path}: 'handoff:' is not a mapping of fields, so it cannot be completed",
            details={"path": path},
            hint="fix or remove the 'handoff:' line by hand, then run adopt again",
        )
    handoff["accepts_from"] = _block_seq(accepts)
    if categories and not doc.get("categories") and not handoff.get("handoff_categories"):
        doc["categories"] = _block_seq(categories)


def _block_seq(values: Sequence[str]) -> Any:
    """A block-style list (`- item` lines), which `lint --strict-spec` accepts and `[a, b]` is not."""
    from ruamel.yaml.comments import CommentedSeq

    seq = CommentedSeq(values)
    seq.fa.set_block_style()
    return seq


def _round_trip(front: str, path: str, change: Any, nl: str = "\n") -> str:
    """Rewrite the frontmatter with ruamel.yaml's round trip (comments and key order kept)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 1 << 16  # never fold a long description onto new lines
    yaml.indent(mapping=2, sequence=4, offset=2)
    try:
        doc = yaml.load(front)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else None
        raise SwarmError(
            ADOPT_BAD_FRONTMATTER,
            f"{path}: line {line}: the frontmatter is not valid YAML",
            details={"path": path, "line": line},
            hint="fix it first (swarm-handoff lint PATH shows where)",
        ) from None
    change(doc)
    out = io.StringIO()
    yaml.dump(doc, out)
    return out.getvalue().replace("\n", nl)
