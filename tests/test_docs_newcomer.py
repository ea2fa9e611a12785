"""What a newcomer found in the docs (issue 26, point 6), each kept from coming back.

The docs test (test_docs_run.py) runs every block; these check what running cannot: a page that
says a tool argument does not exist, a transcript whose printed output went stale, a page no
other page links, a command that needs a folder only another command creates.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end != -1 else len(text)]


def test_the_mcp_page_lists_every_tool_argument_and_calls_none_missing():
    tools = pytest.importorskip("swarm_handoff_mcp.tools")
    page = (DOCS / "mcp.md").read_text(encoding="utf-8")
    rows = {m[1]: m[2] for m in re.finditer(r"^\| `(\w+)` \| (.*?) \|", page, re.M)}
    missing_section = _section(page, "## What it does not do")
    for spec in tools.tool_specs():
        assert spec.name in rows, f"{spec.name}: no row in the tools table"
        for argument in spec.schema["properties"]:
            assert f"`{argument}`" in rows[spec.name], f"{spec.name}: `{argument}` is not in its row"
            assert f"`{argument}`" not in missing_section, f"'does not do' names `{argument}`, which exists"


def test_the_mcp_transcript_prints_what_the_page_says_it_printed(tmp_path):
    pytest.importorskip("mcp")
    page = (DOCS / "mcp.md").read_text(encoding="utf-8")
    transcript = _section(page, "## A transcript")
    code = re.search(r"```python\n(.*?)```", transcript, re.S)[1]
    printed = re.search(r"It printed[^\n]*\n\n```text\n(.*?)```", transcript, re.S)[1]
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_", "PYTEST_"))}
    env |= {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"), "TMPDIR": str(tmp_path)}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == printed


def test_the_index_links_every_page():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    pages = [p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md") if "examples" not in p.parts]
    unlinked = [p for p in pages if p != "index.md" and f"]({p})" not in index]
    assert unlinked == []


def test_development_blocks_make_the_nox_venv_they_use():
    """A fresh clone that never ran the tests has no `.nox-venv`: a block using it must make it."""
    page = (DOCS / "development.md").read_text(encoding="utf-8")
    for block in re.findall(r"```console\n(.*?)```", page, re.S):
        if ".nox-venv/bin/" in block:
            assert "python3 -m venv .nox-venv" in block, block


def test_the_source_guide_example_declares_its_own_scope():
    page = (DOCS / "plugin-guide-source.md").read_text(encoding="utf-8")
    source = (DOCS / "examples/swarm-handoff-envdir/src/swarm_handoff_envdir/source.py").read_text(encoding="utf-8")
    assert source in page  # the guide quotes the file whole
    assert re.search(r"^\s+scopes = \(ENVDIR,\)", source, re.M)
    assert 'ScopeSpec("envdir"' in source
    assert "priority = " not in source


def test_the_synthesis_hand_off_runs_from_a_folder_holding_only_the_example():
    page = (DOCS / "synthesis.md").read_text(encoding="utf-8")
    marker, block = re.search(r"<!-- docs-test: cwd (\S+) -->\n```console\n(.*?)```", page, re.S).groups()
    assert "swarm-handoff handoff" in block
    folder = ROOT / marker
    assert sorted(p.name for p in folder.iterdir()) == ["synthesis.yaml"]
    assert "why the example needs" in page.replace("\n", " ")
