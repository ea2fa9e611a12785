"""A skill folder whose name is not UTF-8 (a real 0xff byte on disk): every command's output stays valid UTF-8.

Issue 18: such a name was written raw into JSON (invalid UTF-8). Each run is a real process, so
the real stdout encoding is exercised (a lone surrogate makes writing to a UTF-8 stdout fail).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = "import sys; sys.argv[0] = 'swarm-handoff'; from swarm_handoff.cli.entry import main; main()"
SKILL = (
    "---\nname: {name}\ndescription: Does things.\nhandoff:\n  accepts_handoff: true\n"
    "  handoff_categories: [research]\n  handoff_description: Hand it over.\n---\nbody\n"
)
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("undecodable")
    skills = os.path.join(os.fsencode(root), b"project", b".claude", b"skills")
    for folder in (b"bad\xffname", b"good"):
        os.makedirs(os.path.join(skills, folder))
        with open(os.path.join(skills, folder, b"SKILL.md"), "wb") as handle:
            handle.write(SKILL.format(name=folder.decode("ascii", "replace")).encode())
    shutil.copy(ROOT / "docs" / "examples" / "synthesis" / "synthesis.yaml", root / "synthesis.yaml")
    (root / "session").mkdir()
    return root


def run(tree, *args, **env):
    environment = {
        **os.environ,
        "HOME": str(tree / "home"),
        "CLAUDE_CONFIG_DIR": str(tree / "home" / ".claude"),
        "GIT_CEILING_DIRECTORIES": str(tree),
        "SWARM_HANDOFF_NO_CACHE": "1",
        "SWARM_HANDOFF_LOAD_PLUGINS": "frontmatter,formatters",
        "SWARM_HANDOFF_LOAD_PACKS": "",
        **env,
    }
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *args], cwd=tree / "project", env=environment, capture_output=True
    )
    for stream in (done.stdout, done.stderr):
        stream.decode("utf-8")  # strict: raises on any byte that is not UTF-8
        assert b"Traceback" not in stream, stream
        assert b"INTERNAL_ERROR" not in stream, stream
    return done


BAD_ARG = os.fsdecode(b"bad\xffname")  # passed on the command line as the byte itself


CASES = [
    *((("discover", "--all"), fmt) for fmt in ("json", "yaml", "xml", "text")),
    *(((command, BAD_ARG), fmt) for command in ("why",) for fmt in ("json", "text")),
    *((("lint", ".claude/skills"), fmt) for fmt in ("json", "text")),
    *((("rank", "--synthesis", "../synthesis.yaml"), fmt) for fmt in ("json", "xml")),
]


@pytest.mark.parametrize(("command", "fmt"), CASES)
def test_every_format_of_every_command_is_valid_utf8_with_the_byte_as_backslash_x(tree, command, fmt):
    done = run(tree, *command, "--format", fmt)
    assert done.returncode in (0, 1), done.stderr
    out = done.stdout.decode("utf-8")
    if fmt == "json":
        out = json.dumps(json.loads(out), ensure_ascii=False)  # parsed: the value holds the text `\xff`
        out = out.replace("\\\\", "\\")
    if command[0] != "rank":  # rank lists only skills that accept hand-offs
        assert "bad\\xffname" in out


def test_discover_json_names_the_folder_as_text_every_parser_reads(tree):
    data = json.loads(run(tree, "discover", "--all", "--format", "json").stdout)
    [bad] = [r for r in data["ineligible"] if r["skill"].startswith("bad")]
    assert bad["skill"] == "bad\\xffname"
    assert bad["path"].endswith("/bad\\xffname/SKILL.md")
    assert [p["code"] for p in bad["problems"]] == ["SKILL_NAME_NOT_UTF8"]


def test_a_stdout_that_is_not_utf8_still_gets_the_escaped_name(tree):
    for fmt in ("json", "text"):
        done = run(tree, "discover", "--all", "--format", fmt, PYTHONIOENCODING="ascii")
        assert done.returncode == 0
        assert b"bad\\\\xffname" in done.stdout or b"bad\\xffname" in done.stdout


def test_session_file_and_hand_off_never_crash_on_the_name(tree):
    assert run(tree, "discover", "--session", "../session").returncode == 0
    (tree / "session" / "available-workflows.yaml").read_text(encoding="utf-8")
    done = run(tree, "handoff", BAD_ARG, "--session", "../session", "--synthesis", "../synthesis.yaml", "-y")
    assert done.returncode == 1
    assert b"TARGET_NOT_FOUND" in done.stderr


def test_why_finds_the_folder_by_the_escaped_name_the_output_printed(tree):
    data = json.loads(run(tree, "why", "bad\\xffname", "--format", "json").stdout)
    assert data["looked"][0]["status"] == "not eligible"
    assert "SKILL_NAME_NOT_UTF8" in data["looked"][0]["detail"]
