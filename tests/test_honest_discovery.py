"""Honest discovery output: what plain `discover` did not list, what a filter excluded, no dead links,
and the synthesis example of docs/synthesis.md handed off as the page shows."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from swarm_handoff.discovery_result import FILTERED_MESSAGE, NONE_ACCEPT_MESSAGE
from swarm_handoff.testing import SkillTree

ROOT = Path(__file__).resolve().parents[1]
NOTE = re.compile(r"^note: (\d+) skipped and (\d+) shadowed skill\(s\) not listed; `\S*swarm-handoff discover --all`")


@pytest.fixture
def trees(tmp_path, make_swarm_host):
    make_swarm_host(["frontmatter"])
    home = SkillTree(tmp_path / "home")
    project = SkillTree(tmp_path / "project")
    home.add_handoff("shared", categories=["research"])
    home.add_handoff("analyst", categories=["analysis"])
    home.add("plain")  # no handoff block: skipped
    project.add_handoff("shared", categories=["research", "implementation"])  # shadows the global one
    project.add("broken", raw="---\nname: broken\ndescription: Use when: it breaks\n---\n")  # skipped
    env = {"HOME": str(home.root), "CLAUDE_CONFIG_DIR": "", "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    return home, project, env


def _notes(stderr: str) -> list[re.Match[str]]:
    return [m for m in map(NOTE.match, stderr.splitlines()) if m]


def test_plain_discover_counts_skipped_and_shadowed_on_one_stderr_line(trees, swarm_cli):
    _home, project, env = trees
    text = swarm_cli("discover", "--cwd", str(project.root), env=env)
    [note] = _notes(text.stderr)
    assert note.groups() == ("2", "1")
    assert "note:" not in text.stdout
    data = swarm_cli("discover", "--cwd", str(project.root), "-f", "json", env=env)
    assert len(_notes(data.stderr)) == 1
    assert (data.json()["skipped_count"], data.json()["shadowed_count"]) == (2, 1)
    shown = swarm_cli("discover", "--cwd", str(project.root), "--all", env=env)
    assert _notes(shown.stderr) == []  # --all lists them: nothing to point at


def test_the_counts_survive_the_session_cache(trees, swarm_cli, tmp_path):
    _home, project, env = trees
    session = tmp_path / "session"
    session.mkdir()
    for _ in range(2):  # written, then read back from the cache
        out = swarm_cli("discover", "--cwd", str(project.root), "--session", str(session), "-f", "json", env=env)
        assert (out.json()["skipped_count"], out.json()["shadowed_count"]) == (2, 1)
        assert [n.groups() for n in _notes(out.stderr)] == [("2", "1")]


def test_ec01_with_a_filter_says_what_the_filter_excluded(trees, swarm_cli):
    _home, project, env = trees
    data = swarm_cli("discover", "--cwd", str(project.root), "--category", "nope", "-f", "json", env=env).json()
    assert data["workflows"] == []
    assert data["message"] == FILTERED_MESSAGE.format(excluded=2, filter="--category nope")
    assert data["filter"] == {"text": "--category nope", "excluded": 2}
    assert "none accept" not in data["message"]
    scoped = swarm_cli("discover", "--cwd", str(project.root), "--scope", "installed", env=env)
    assert "No workflow matches --scope installed: it excluded 2 workflow(s)" in scoped.stdout


def test_ec01_points_only_at_things_that_exist(tmp_path, make_swarm_host, swarm_cli):
    make_swarm_host(["frontmatter"])
    project = SkillTree(tmp_path / "project")
    project.add("plain")
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": "", "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    out = swarm_cli("discover", "--cwd", str(project.root), env=env)
    assert out.stdout.startswith("1 skills found, none accept handoffs.\n")
    assert "references/handoff-schema.md" not in out.stdout
    assert "discover --all" in NONE_ACCEPT_MESSAGE
    for page in (ROOT / "docs").glob("*.md"):
        if page.name != "seed-deviations.md":  # that page names the seed's link to say why it is gone
            assert "references/handoff-schema.md" not in page.read_text(encoding="utf-8"), page


# --- an answer from the cache carries the stderr line ---------------------------------------------

SCRIPT = "import sys; sys.argv[0] = 'swarm-handoff'; from swarm_handoff.cli.entry import main; main()"


def _settle(root: Path) -> None:
    """Age fresh files by two seconds: the caches do not trust a file changed just before a run."""
    now = time.time_ns()
    for folder, _dirs, files in os.walk(root):
        for path in [folder, *(os.path.join(folder, f) for f in files)]:
            st = os.stat(path)
            if st.st_mtime_ns > now - 1_000_000_000:
                os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - 2_000_000_000))


def test_a_discover_answered_from_the_cache_prints_the_same_stderr_line(tmp_path, monkeypatch):
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    project = SkillTree(tmp_path / "project")
    project.add_handoff("alpha", categories=["research"])
    project.add("plain")
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "SWARM_HANDOFF_LOAD_PLUGINS": "frontmatter",
        "SWARM_HANDOFF_LOAD_PACKS": "",
        "GIT_CEILING_DIRECTORIES": str(tmp_path),
    }
    env.pop("CLAUDE_CONFIG_DIR", None)
    runs = []
    for _ in range(2):
        _settle(tmp_path / "project")
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", SCRIPT, "discover"],
            cwd=tmp_path / "project",
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(done)
    first, again = runs
    assert again.stdout == first.stdout
    assert [n.groups() for n in _notes(first.stderr)] == [("1", "0")]
    assert [n.groups() for n in _notes(again.stderr)] == [("1", "0")]
    assert "| ruamel" not in again.stderr  # the stored answer, not a second parse


# --- the synthesis example of docs/synthesis.md ---------------------------------------------------


def _page_example() -> str:
    page = (ROOT / "docs" / "synthesis.md").read_text(encoding="utf-8")
    match = re.search(r"## A complete example\n.*?```yaml\n(.*?)```", page, re.S)
    assert match is not None
    return match.group(1)


def test_the_synthesis_example_file_is_the_page_example():
    assert (ROOT / "docs" / "examples" / "synthesis" / "synthesis.yaml").read_text(encoding="utf-8") == _page_example()


@pytest.mark.parametrize("files", [5, 4])
def test_the_synthesis_example_hands_off_as_the_page_shows(trees, swarm_cli, tmp_path, files):
    _home, project, env = trees
    synthesis = tmp_path / "synthesis.yaml"
    synthesis.write_text(_page_example())
    session = tmp_path / "session"
    (session / "perspectives").mkdir(parents=True)
    for n in range(1, files + 1):
        (session / "perspectives" / f"p{n}.md").write_text(f"Perspective {n}: ...\n")
    os.chdir(project.root)
    out = swarm_cli(
        "handoff", "shared", "--synthesis", str(synthesis), "--session", str(session), "-f", "json", env=env
    )
    if files == 5:
        assert out.exit_code == 0, out.stdout + out.stderr
        assert swarm_cli("verify", out.json()["payload_path"], "-f", "json").json()["ok"] is True
    else:
        error = out.json()["error"]
        assert error["code"] == "VALIDATION_FAILED"
        assert error["problems"][0]["code"] == "PAYLOAD_PERSPECTIVES_MISMATCH"
        assert "put one file per perspective into" in error["hint"]
        assert "perspectives_completed in the synthesis" in error["hint"]
