"""A repository an attacker controls: every command a user runs there returns, explains, and leaks nothing.

The repository (built in tmp_path) holds good skills among symlink loops, FIFOs, a socket, a
device, a folder named SKILL.md, deep nesting, escape sequences in names and descriptions, huge
files, and a links manifest whose entries point out of the skills folder at a sentinel tree of
files outside the repository. Each command runs in its own process, as a user would run it, with
HOME, CLAUDE_CONFIG_DIR and XDG_* in tmp_path and a timeout as a safety net only. Asserted:
no command hangs, none prints a traceback, every good skill is still found, and every file of
the sentinel tree is byte-for-byte (and link-for-link) what it was.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import stat
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="FIFOs, sockets and symlinks as an attacker uses them")

SAFETY_NET = 120  # seconds; a command that needs this long has hung (each takes about a second)
MANIFEST = ".swarm-handoff-links.json"
ESC = "\x1b"

GOOD_V2 = """---
name: {name}
description: A good skill that accepts hand-offs
handoff:
  accepts_handoff: true
  handoff_categories: [research, analysis]
  handoff_description: Research the open questions
---
# {name}
"""
GOOD_V3 = """---
name: {name}
description: A good v3 skill
handoff:
  accepts_from: ["*"]
  schema_version: "3.0"
---
"""
GOOD = {"good-alpha": GOOD_V2, "good-beta": GOOD_V3, "good-zulu": GOOD_V2}


def snapshot(root: Path) -> dict[str, str]:
    """Every entry under `root`: a file's SHA-256 and mode, a link's target, a folder's mode."""
    out: dict[str, str] = {}
    for folder, dirs, names in os.walk(root, followlinks=False):
        for name in [*dirs, *names]:
            path = Path(folder, name)
            rel = path.relative_to(root).as_posix()
            st = path.lstat()
            if stat.S_ISLNK(st.st_mode):
                out[rel] = "link -> " + os.readlink(path)
            elif stat.S_ISREG(st.st_mode):
                out[rel] = f"file {oct(st.st_mode)} {hashlib.sha256(path.read_bytes()).hexdigest()}"
            else:
                out[rel] = f"other {oct(st.st_mode)}"
    return out


def tree_hashes(root: Path) -> dict[str, str]:
    """What `skills link` records for a copy: SHA-256 per relative path of every file."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def build_sentinel(outside: Path) -> None:
    """Files the attacker would like the tool to delete or overwrite."""
    (outside / "docs" / "deep").mkdir(parents=True)
    (outside / "docs" / "notes.md").write_text("precious notes\n")
    (outside / "docs" / "deep" / "key.txt").write_text("do not touch\n")
    (outside / "victim").mkdir()
    (outside / "victim" / "SKILL.md").write_text(GOOD_V2.format(name="victim"))
    (outside / "registry-backup-target.yaml").write_text("mine: true\n")
    os.symlink(outside / "docs", outside / "docs-link")


def build_repository(repo: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> list[socket.socket]:
    skills = repo / ".claude" / "skills"
    skills.mkdir(parents=True)
    for name, text in GOOD.items():
        (skills / name).mkdir()
        (skills / name / "SKILL.md").write_text(text.format(name=name))
    # Links: a folder that loops on itself, a SKILL.md that does, links that dangle or leave the repository.
    os.symlink("loop", skills / "loop")
    (skills / "loop-md").mkdir()
    os.symlink("SKILL.md", skills / "loop-md" / "SKILL.md")
    os.symlink("nowhere", skills / "dangling")
    os.symlink(outside / "victim", skills / "outside-skill")  # reading outside is fine; writing is not
    # Things that are not files where a SKILL.md should be.
    (skills / "fifo").mkdir()
    os.mkfifo(skills / "fifo" / "SKILL.md")
    (skills / "folder" / "SKILL.md").mkdir(parents=True)
    (skills / "device-link").mkdir()
    os.symlink("/dev/zero", skills / "device-link" / "SKILL.md")  # a device that never ends
    servers = []
    (skills / "sock").mkdir()
    server = socket.socket(socket.AF_UNIX)
    monkeypatch.chdir(skills / "sock")  # a relative name: AF_UNIX paths are limited to ~100 bytes
    server.bind("SKILL.md")
    monkeypatch.undo()
    servers.append(server)
    # Deep nesting: folders in folders, and frontmatter nested far deeper than any real one.
    deep = skills / "deep"
    for _ in range(200):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (skills / "deep" / "SKILL.md").write_text("---\nname: deep\nx: " + "[" * 50_000 + "\n---\n")
    # Escape sequences in a folder name and in the metadata (colour, OSC title, bell, newlines).
    ansi = skills / f"ansi-{ESC}[31mred{ESC}[0m"
    ansi.mkdir()
    (ansi / "SKILL.md").write_text(
        "---\nname: ansi\n"
        f'description: "evil {ESC}]0;pwned\\u0007 {ESC}[2J\\nline two"\n'
        "handoff:\n  accepts_handoff: true\n"
        f'  handoff_categories: ["{ESC}[5mblink"]\n'
        f'  handoff_description: "{ESC}[31mred"\n---\n'
    )
    # Huge files: an unclosed frontmatter over a sparse 64 MiB file, and a valid one with a huge body.
    (skills / "huge-unclosed").mkdir()
    with open(skills / "huge-unclosed" / "SKILL.md", "wb") as handle:
        handle.write(b"---\nname: huge\n")
        handle.truncate(64 * 1024 * 1024)
    (skills / "huge-body").mkdir()
    with open(skills / "huge-body" / "SKILL.md", "wb") as handle:
        handle.write(GOOD_V2.format(name="huge-body").encode())
        handle.truncate(64 * 1024 * 1024)
    if os.geteuid() == 0:  # a real device node needs root (git cannot carry one, but a tarball can)
        (skills / "device").mkdir()
        os.mknod(skills / "device" / "SKILL.md", 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero
    # The links manifest: entries that leave the skills folder, their recorded content matching.
    copy = {"kind": "copy", "files": tree_hashes(outside / "docs")}
    entries = {
        str(outside / "docs"): copy,
        "../../../outside/docs": copy,
        "../../../outside/docs-link": {"kind": "link", "target": str(outside / "docs")},
        "sub/../../../../outside/docs": copy,
        "..": copy,
        ".": copy,
        "": copy,
        "outside-skill": {"kind": "link", "target": str(outside / "victim")},  # a valid name: only the link goes
    }
    (skills / MANIFEST).write_text(json.dumps({"version": 1, "entries": entries}))
    (repo / "synthesis.yaml").write_bytes(files("swarm_handoff").joinpath("data/demo-synthesis.yaml").read_bytes())
    return servers


@pytest.fixture
def world(tmp_path, monkeypatch):
    """(repo, outside, env): the hostile repository, the sentinel tree, and an isolated environment."""
    outside = tmp_path / "outside"
    repo = tmp_path / "repo"
    build_sentinel(outside)
    servers = build_repository(repo, outside, monkeypatch)
    config = tmp_path / "config"
    config.mkdir()
    os.symlink(outside / "registry-backup-target.yaml", config / "handoff-registry.yaml.bak")
    (config / "handoff-registry.yaml").write_text(
        "workflows:\n"
        "  - {name: '../../../outside/escape', description: d, handoff: {accepts_from: ['*']}}\n"
        "  - {name: remote, skill_path: '/a/../../outside/docs/SKILL.md', description: d,"
        " handoff: {accepts_from: ['*']}}\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "XDG_", "GIT_"))}
    env.update(
        HOME=str(tmp_path / "home"),
        CLAUDE_CONFIG_DIR=str(config),
        XDG_CACHE_HOME=str(tmp_path / "xdg-cache"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg-config"),
        XDG_DATA_HOME=str(tmp_path / "xdg-data"),
        XDG_STATE_HOME=str(tmp_path / "xdg-state"),
        GIT_CEILING_DIRECTORIES=str(tmp_path),
        NO_COLOR="1",
    )
    yield repo, outside, env
    for server in servers:
        server.close()


def make_session(repo: Path) -> Path:
    """A session folder with the three perspectives the demo synthesis says were completed."""
    session = repo / "session"
    (session / "perspectives").mkdir(parents=True)
    for name in ("optimist", "critic", "pragmatist"):
        (session / "perspectives" / f"{name}.md").write_text(f"# {name}\n")
    return session


def cli(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run one command in its own process as a user would; a hang fails the test instead of the run."""
    command = [sys.executable, "-c", "from swarm_handoff.cli.entry import main; main()", *args]
    try:
        done = subprocess.run(
            command, cwd=repo, env=env, capture_output=True, text=True, timeout=SAFETY_NET, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"`swarm-handoff {' '.join(args)}` hung (no answer in {SAFETY_NET} s)")
    assert "Traceback" not in done.stderr, f"`swarm-handoff {' '.join(args)}`:\n{done.stderr}"
    assert "Traceback" not in done.stdout, f"`swarm-handoff {' '.join(args)}`:\n{done.stdout}"
    return done


@pytest.mark.slow
def test_every_command_in_a_hostile_repository_returns_finds_the_good_skills_and_touches_nothing_outside(world):
    repo, outside, env = world
    before = snapshot(outside)
    found = json.loads(cli(repo, env, "discover", "--format", "json").stdout)
    names = {w["skill"] for w in found["workflows"]}
    assert set(GOOD) <= names
    assert "SOURCE_FAILED" not in {p["code"] for p in found["problems"]}

    every = json.loads(cli(repo, env, "discover", "--all", "--format", "json").stdout)
    codes = {r["skill"]: {p["code"] for p in r["problems"]} for r in every["ineligible"]}
    assert "SKILL_SYMLINK_LOOP" in codes["loop"]
    assert "SKILL_SYMLINK_LOOP" in codes["loop-md"]
    for name in ("fifo", "folder", "sock", "device-link", *(["device"] if os.geteuid() == 0 else [])):
        assert "SKILL_NOT_A_FILE" in codes[name], name
    assert "SKILL_FRONTMATTER_TOO_LARGE" in codes["huge-unclosed"]
    assert "huge-body" in names  # a huge body costs nothing: only the frontmatter is read
    for fmt in ("text", "xml"):
        cli(repo, env, "discover", "--all", "--format", fmt)

    for name in ("good-alpha", "fifo"):
        cli(repo, env, "why", name)
    why = json.loads(cli(repo, env, "why", "loop", "--format", "json").stdout)
    assert "SKILL_SYMLINK_LOOP" in json.dumps(why)

    skills = repo / ".claude" / "skills"
    entries = [str(entry) for entry in sorted(skills.iterdir()) if not entry.name.startswith(".")]
    linted = json.loads(cli(repo, env, "lint", *entries, str(skills / "fifo" / "SKILL.md"), "-f", "json").stdout)
    assert len(linted["files"]) == len(entries) + 1  # one bad path never stops the others

    linked = json.loads(cli(repo, env, "skills", "link", "--format", "json").stdout)
    assert {p["code"] for p in linked["problems"]} >= {"LINK_MANIFEST_ENTRY_INVALID"}
    unlinked = json.loads(cli(repo, env, "skills", "unlink", "--format", "json").stdout)
    invalid = [p for p in unlinked["problems"] if p["code"] == "LINK_MANIFEST_ENTRY_INVALID"]
    assert len(invalid) == 7
    assert {p["path"] for p in invalid} == {str(skills / MANIFEST)}
    assert not os.path.lexists(skills / "outside-skill")  # the link recorded under a plain name went...
    assert (outside / "victim" / "SKILL.md").is_file()  # ...never what it pointed at

    synced = cli(repo, env, "registry", "sync", "--format", "json")
    assert synced.returncode == 0, synced.stderr
    config = Path(env["CLAUDE_CONFIG_DIR"])
    assert not (config / "handoff-registry.yaml.bak").is_symlink()

    cli(repo, env, "rank", "--synthesis", "synthesis.yaml", "--format", "json")
    session = make_session(repo)
    options = ("--synthesis", "synthesis.yaml", "--session", str(session), "-f", "json")
    handed = cli(repo, env, "handoff", "good-alpha", *options)
    assert handed.returncode == 0, handed.stdout + handed.stderr
    assert json.loads(cli(repo, env, "handoff", "fifo", *options).stdout)["error"]["code"] == "TARGET_NOT_FOUND"

    assert snapshot(outside) == before


def test_fifos_where_the_tool_reads_its_inputs_block_nothing(world):
    repo, outside, env = world
    before = snapshot(outside)
    config = Path(env["CLAUDE_CONFIG_DIR"])
    (config / "handoff-registry.yaml").unlink()
    os.mkfifo(config / "handoff-registry.yaml")
    os.mkfifo(repo / "fifo-synthesis.yaml")
    session = make_session(repo)
    os.mkfifo(session / "available-workflows.yaml")
    os.mkfifo(session / ".available-workflows.state.json")
    found = json.loads(cli(repo, env, "discover", "--format", "json").stdout)
    assert set(GOOD) <= {w["skill"] for w in found["workflows"]}
    assert "NOT_A_REGULAR_FILE" in {p["code"] for p in found["problems"]}
    cli(repo, env, "registry", "show")
    assert cli(repo, env, "registry", "sync").returncode == 1
    assert cli(repo, env, "rank", "--synthesis", "fifo-synthesis.yaml").returncode != 0
    cli(repo, env, "rank", "--synthesis", "synthesis.yaml", "--session", str(session))
    failed = cli(repo, env, "handoff", "good-alpha", "--synthesis", "fifo-synthesis.yaml", "--session", str(session))
    assert failed.returncode != 0
    assert snapshot(outside) == before


def test_a_dot_claude_that_links_out_of_the_repository_is_never_written_through(world, tmp_path):
    _repo, outside, env = world
    other = tmp_path / "other-repo"
    other.mkdir()
    os.symlink(outside / "docs", other / ".claude")  # `.claude/skills` would land in the user's files
    before = snapshot(outside)
    for command in ("link", "unlink"):
        done = cli(other, env, "skills", command, "--format", "json")
        assert json.loads(done.stdout)["error"]["code"] == "LINK_FOLDER_OUTSIDE"
    cli(other, env, "discover", "--all")
    assert snapshot(outside) == before
