"""docs/hooks.md documents every hook and every protocol, each with an example the suite runs.

Datasette's pattern: adding a hook to `hookspecs.py`, or a protocol to `swarm_handoff.api`, fails
this test until docs/hooks.md has a section for it (a heading that starts with the name in
backticks) holding a python block that the suite runs as a test (`tests/test_docs_run.py` runs
every unskipped block with a `def test_` under pytest) and that uses the name.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from swarm_handoff import api, hookspecs

ROOT = Path(__file__).resolve().parents[1]
# The block parser of tests/test_docs_run.py, so "runs" means exactly what that test runs
# (loaded by path: the suite imports test files in importlib mode, so they cannot import each other).
_spec = importlib.util.spec_from_file_location("_docs_run", Path(__file__).with_name("test_docs_run.py"))
assert _spec is not None
assert _spec.loader is not None
_docs_run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_docs_run)
blocks = _docs_run.blocks
PAGE = ROOT / "docs" / "hooks.md"
HOOKS = sorted(name for name in vars(hookspecs) if name.startswith("swarm_handoff_"))
PROTOCOLS = sorted(name for name in api.__all__ if getattr(getattr(api, name), "_is_protocol", False))
HEADING = re.compile(r"^(#{2,4}) (.+)$", re.M)


def sections(text: str) -> dict[str, tuple[int, int]]:
    """Each heading's text -> the (first, last) line of its section, up to the next heading of its level or above."""
    found = [(m.group(2), len(m.group(1)), text.count("\n", 0, m.start()) + 1) for m in HEADING.finditer(text)]
    last_line = text.count("\n") + 1
    spans = {}
    for i, (title, level, line) in enumerate(found):
        end = next((other for _, lvl, other in found[i + 1 :] if lvl <= level), last_line + 1)
        spans[title] = (line, end - 1)
    return spans


def undocumented(page: Path, name: str) -> str | None:
    """Why `name` is not documented with a tested example on `page`, or None when it is."""
    spans = sections(page.read_text(encoding="utf-8"))
    title = next((t for t in spans if re.match(rf"`{re.escape(name)}[`(]", t)), None)
    if title is None:
        return f"{name}: no section (a heading starting with `{name}`) in {page.name}"
    first, last = spans[title]
    tested = [
        b
        for b in blocks(page)
        if first <= b.line <= last
        and b.lang == "python"
        and b.skip is None
        and not b.quoted
        and re.search(r"^def test_", b.body, re.M)
        and re.search(rf"\b{re.escape(name)}\b", b.body)
    ]
    if not tested:
        return f"{name}: its section in {page.name} has no runnable python example with a test that uses it"
    return None


@pytest.mark.parametrize("name", HOOKS + PROTOCOLS)
def test_every_hook_and_protocol_has_a_section_with_a_tested_example(name):
    assert undocumented(PAGE, name) is None


def test_every_hook_section_names_a_real_hook():
    documented = {m.group(1) for m in re.finditer(r"^#{2,4} `(swarm_handoff_\w+)\(", PAGE.read_text(), re.M)}
    assert documented == set(HOOKS)


def test_the_meta_test_notices_a_missing_section_or_an_untested_example(tmp_path):
    page = tmp_path / "hooks.md"
    page.write_text("# Hooks\n\n## `swarm_handoff_a(register)`\n\nSome words.\n\n## `Thing`\n\n```python\nx = 1\n```\n")
    assert "no section" in undocumented(page, "swarm_handoff_b")
    assert "no runnable python example" in undocumented(page, "swarm_handoff_a")
    assert "no runnable python example" in undocumented(page, "Thing")
    page.write_text("## `Thing`\n\n<!-- docs-test: skip not run -->\n```python\ndef test_thing():\n    Thing\n```\n")
    assert "no runnable python example" in undocumented(page, "Thing")  # a skipped block is no test
    page.write_text("## `Thing`\n\n```python\ndef test_thing():\n    assert Thing\n```\n")
    assert undocumented(page, "Thing") is None
