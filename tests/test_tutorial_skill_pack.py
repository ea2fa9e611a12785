"""The skill-pack tutorial's code is the research pack: every quoted block equals the file it names.

A block preceded by `<!-- file: PATH -->` must be that whole file; `<!-- excerpt: PATH -->` a
verbatim run of lines from it. Unmarked blocks may only be shell sessions or layouts (console,
text). Every file of the research pack must be quoted whole somewhere, so the tutorial shows all of it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = ROOT / "docs" / "tutorial-skill-pack.md"
PACK = "skills-examples/swarm-pack-research"
BLOCK = re.compile(r"(?:<!-- (?P<kind>file|excerpt): (?P<path>\S+) -->\n)?```(?P<lang>\w*)\n(?P<body>.*?)```\n", re.S)
UNQUOTED = {"py.typed", "LICENSE"}  # empty marker files; the licence text (the layout lists it)


def blocks() -> list[re.Match[str]]:
    return list(BLOCK.finditer(TUTORIAL.read_text(encoding="utf-8")))


def test_the_tutorial_has_quoted_blocks():
    assert sum(1 for b in blocks() if b["kind"]) >= 7


@pytest.mark.parametrize("block", [b for b in blocks() if b["kind"]], ids=lambda b: f"{b['kind']}:{b['path']}")
def test_each_quoted_block_equals_its_file(block):
    text = (ROOT / block["path"]).read_text(encoding="utf-8")
    if block["kind"] == "file":
        assert block["body"] == text, f"update the block quoting {block['path']} in {TUTORIAL.name}"
    else:
        assert block["body"] in text
        assert text[text.index(block["body"]) - 1 : text.index(block["body"])] in ("", "\n"), "excerpts start a line"


def test_unmarked_blocks_are_only_shell_sessions_or_layouts():
    assert {b["lang"] for b in blocks() if not b["kind"]} <= {"console", "text"}


def _build_litter(part: str) -> bool:
    """Folders that tools leave behind in a checkout; they are not part of the pack."""
    return part.startswith(".") or part in {"__pycache__", "build", "dist"} or part.endswith(".egg-info")


def test_every_file_of_the_research_pack_is_quoted_whole():
    quoted = {b["path"] for b in blocks() if b["kind"] == "file"}
    pack_files = {
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / PACK).rglob("*")
        if p.is_file() and p.name not in UNQUOTED and not any(map(_build_litter, p.relative_to(ROOT / PACK).parts))
    }
    assert pack_files - quoted == set(), "the tutorial should show every file of the pack"


def test_the_layout_lists_the_quoted_files():
    layout = next(b["body"] for b in blocks() if b["lang"] == "text")
    for path in {b["path"] for b in blocks() if b["kind"] == "file" and b["path"].startswith(PACK)}:
        assert path.removeprefix(PACK + "/") in layout


def test_the_layout_lists_the_unquoted_files_too():
    layout = next(b["body"] for b in blocks() if b["lang"] == "text")
    for name in UNQUOTED:
        assert any(p.name == name for p in (ROOT / PACK).rglob(name)), name
        assert name in layout, f"the tutorial's layout should list {name}"
