"""`swarm-handoff adopt`: hand-off metadata written into a SKILL.md, nothing else changed, safely."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from swarm_handoff.api import SwarmError, discover, make_context
from swarm_handoff.testing import SkillTree
from swarm_handoff_authoring.adopt import MAX_BYTES, adopt

PLAIN = """---
# who wrote it
name: plain
description: >-
  Folded text that must stay folded.
metadata:
  author: someone   # kept
  version: "1.0"
allowed-tools: Read
---
Body with --- and key: value, untouched.
"""


@pytest.fixture
def tree(tmp_path, make_swarm_host):
    make_swarm_host(["frontmatter", "authoring"])
    return SkillTree(tmp_path / "project")


def _env(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": "", "GIT_CEILING_DIRECTORIES": str(tmp_path)}


def test_metadata_form_inserts_two_lines_and_nothing_else(tree, tmp_path):
    path = tree.add("plain", raw=PLAIN)
    report = adopt(path, categories=["review", "analysis"])
    assert report.changed
    new = path.read_text()
    expected = PLAIN.replace(
        '  version: "1.0"\n', '  version: "1.0"\n  accepts-from: "*"\n  handoff-categories: "review, analysis"\n'
    )
    assert new == expected
    assert Path(report.backup).read_text() == PLAIN
    record = discover(make_context(tree.root, _env(tmp_path)), cache=False).named("plain")
    assert record is not None
    assert record.categories == ("review", "analysis")


def test_v3_form_appends_a_handoff_block(tree):
    path = tree.add("plain", raw="---\r\nname: plain\r\ndescription: x\r\n---\r\nbody\r\n")
    adopt(path, form="v3", categories=["review"])
    # Block style (issue 26): `lint --strict-spec` refuses the flow style `["*"]` this used to write.
    assert path.read_bytes() == (
        b'---\r\nname: plain\r\ndescription: x\r\nhandoff:\r\n  accepts_from:\r\n    - "*"\r\n'
        b'categories:\r\n  - "review"\r\n---\r\nbody\r\n'
    )


def test_v3_form_completes_an_existing_block_by_round_trip(tree):
    text = "---\nname: plain\ndescription: x  # note\nhandoff:\n  accepts_from: []  # nobody yet\n---\nbody\n"
    path = tree.add("plain", raw=text)
    adopt(path, form="v3", accepts_from=["planner"])
    new = path.read_text()
    assert "description: x  # note" in new
    assert "  accepts_from:     # nobody yet\n    - planner\n" in new  # block style; the comment stays on its line
    assert new.endswith("---\nbody\n")


@pytest.mark.parametrize(
    "text",
    [
        "---\nname: plain\ndescription: x\n---\nbody\n",
        "---\nname: plain\ndescription: x\nhandoff:\n  accepts_from: []\n---\nbody\n",
    ],
)
def test_v3_form_writes_what_lint_strict_spec_accepts(tree, swarm_cli, text):
    """Whatever adopt writes is block style: no SPEC_STRICT_YAML finding for `lint --strict-spec` to fail on."""
    path = tree.add("plain", raw=text)
    adopt(path, form="v3", accepts_from=["planner", "*"], categories=["review"])
    report = swarm_cli("lint", "--strict-spec", str(path), "--format", "json").json()
    codes = [p["code"] for f in report["files"] for p in f["problems"]]
    assert "SPEC_STRICT_YAML" not in codes, path.read_text()


def test_metadata_form_refuses_when_a_handoff_block_would_win(tree):
    path = tree.add("plain", raw="---\nname: plain\ndescription: x\nhandoff:\n  accepts_from: []\n---\n")
    with pytest.raises(SwarmError) as caught:
        adopt(path)
    assert caught.value.code == "ADOPT_HAS_HANDOFF_BLOCK"
    assert "line 4" in caught.value.message


def test_flow_metadata_is_round_tripped(tree):
    path = tree.add("plain", raw="---\nname: plain\ndescription: x\nmetadata: {author: me}\n---\nB\n")
    adopt(path)
    front = path.read_text()
    assert "author: me" in front
    assert "accepts-from: '*'" in front or 'accepts-from: "*"' in front


def test_dry_run_shows_a_diff_and_writes_nothing(tree, swarm_cli, tmp_path):
    path = tree.add("plain", raw=PLAIN)
    result = swarm_cli("adopt", str(path.parent), "--dry-run", env=_env(tmp_path))
    assert result.exit_code == 0, result.stderr
    assert '+  accepts-from: "*"' in result.stdout
    assert path.read_text() == PLAIN
    assert not Path(str(path) + ".bak").exists()


def test_adopt_by_name_through_discovery_then_again_is_a_no_op(tree, swarm_cli, tmp_path):
    path = tree.add("plain", raw=PLAIN)
    env = _env(tmp_path)
    first = swarm_cli("adopt", "plain", "--cwd", str(tree.root), "-f", "json", env=env)
    assert first.exit_code == 0, first.stderr
    assert first.json()["changed"]
    once = path.read_bytes()
    second = swarm_cli("adopt", str(path), "-f", "json", env=env).json()
    assert second["already_target"]
    assert path.read_bytes() == once


def test_two_adopts_at_once_write_once(tree):
    path = tree.add("plain", raw=PLAIN)
    reports = []
    threads = [threading.Thread(target=lambda: reports.append(adopt(path))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r.changed for r in reports) == [False, True]
    assert path.read_text().count("accepts-from") == 1


def test_refuses_a_symlinked_file_and_a_symlinked_folder(tree, tmp_path):
    real = tree.add("plain", raw=PLAIN)
    linked = tree.skills_dir / "linked"
    linked.mkdir()
    (linked / "SKILL.md").symlink_to(real)
    folder_link = tree.skills_dir / "folder-link"
    folder_link.symlink_to(real.parent)
    for path in (linked / "SKILL.md", folder_link / "SKILL.md"):
        with pytest.raises(SwarmError) as caught:
            adopt(path)
        assert caught.value.code == "ADOPT_SYMLINK"
    assert real.read_text() == PLAIN


def test_refuses_a_huge_file_and_a_file_without_frontmatter(tree):
    big = tree.add("big", raw="---\nname: big\ndescription: x\n---\n" + "x" * MAX_BYTES)
    with pytest.raises(SwarmError) as caught:
        adopt(big)
    assert caught.value.code == "ADOPT_UNREADABLE"
    bare = tree.add("bare", raw="# just a body\n")
    with pytest.raises(SwarmError) as caught:
        adopt(bare)
    assert caught.value.code == "ADOPT_BAD_FRONTMATTER"


def test_errors_through_the_cli_are_coded_and_exit_1(tree, swarm_cli, tmp_path):
    tree.root.mkdir()
    result = swarm_cli("adopt", "nope", "--cwd", str(tree.root), "-f", "json", env=_env(tmp_path))
    assert result.exit_code == 1
    assert result.json()["error"]["code"] == "ADOPT_NOT_FOUND"
    bad = swarm_cli("adopt", "x", "--form", "v9", "-f", "json", env=_env(tmp_path))
    assert bad.exit_code == 2


def test_keeps_the_file_mode(tree):
    path = tree.add("plain", raw=PLAIN)
    os.chmod(path, 0o640)
    adopt(path)
    assert os.stat(path).st_mode & 0o777 == 0o640
