"""The console script's replayed `discover`, in real processes: same answer as a fresh scan, nothing heavy imported.

Each run is a new interpreter started the way the console script starts (`main()` reading
sys.argv), with the default plugins and no skill packs, and a user cache of its own. After every
change to the tree, the replayed answer must equal what a run with every cache off prints.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

import pytest

SCRIPT = "import sys; sys.argv[0] = 'swarm-handoff'; from swarm_handoff.cli import main; main()"
HEAVY = {"typer", "click", "pluggy", "attr", "attrs", "ruamel", "importlib_metadata"}


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "SWARM_HANDOFF_LOAD_PLUGINS": "frontmatter,registry,formatters,qr",
        "SWARM_HANDOFF_LOAD_PACKS": "",
    }
    env.pop("CLAUDE_CONFIG_DIR", None)

    def run_(*args: str, fresh: bool = False, importtime: bool = False, **extra: str) -> tuple[str, str]:
        settle(tmp_path)
        flags = ["-X", "importtime"] if importtime else []
        environment = {**env, **extra, **({"SWARM_HANDOFF_NO_CACHE": "1"} if fresh else {})}
        done = subprocess.run(
            [sys.executable, *flags, "-c", SCRIPT, *args],
            cwd=tmp_path / "project",
            env=environment,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout, done.stderr

    (tmp_path / "project").mkdir()
    return run_


def settle(root):
    """Move what the test wrote in the last second two seconds back in time.

    The caches do not trust a file changed just before a run (it could change again within the same
    timestamp tick, unseen), and a test writes and runs within milliseconds. Shifting only fresh
    files keeps every change visible: the new mtime still differs from the one recorded before.
    """
    now = time.time_ns()
    for folder, dirs, files in os.walk(root):
        if os.path.basename(folder) == "cache":
            dirs.clear()
            continue
        for path in [folder, *(os.path.join(folder, f) for f in files)]:
            st = os.stat(path)
            if st.st_mtime_ns > now - 1_000_000_000:
                os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - 2_000_000_000))


def skill(root, name, description="Reviews evidence."):
    folder = root / "project" / ".claude" / "skills" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        textwrap.dedent(f"""\
        ---
        name: {name}
        description: {description}
        handoff:
          accepts_handoff: true
          handoff_categories: [research]
          handoff_description: {description}
        ---
        # {name}
        """)
    )
    return folder


def imported(stderr: str) -> set[str]:
    return {line.split("|")[-1].strip().split(".")[0] for line in stderr.splitlines() if "|" in line}


def test_a_repeated_discover_is_replayed_without_importing_anything_heavy(run, tmp_path):
    skill(tmp_path, "alpha")
    first, _ = run("discover", "--format", "json", importtime=True)
    again, trace = run("discover", "--format", "json", importtime=True)
    assert again == first
    assert '"alpha"' in first
    assert not imported(trace) & HEAVY
    assert "swarm_handoff" in imported(trace)


def test_after_every_change_the_answer_equals_a_fresh_scan(run, tmp_path):
    def check() -> str:
        run("discover", "--format", "json")  # stores (or replays) an answer
        replayed, _ = run("discover", "--format", "json")
        fresh, _ = run("discover", "--format", "json", fresh=True)
        assert replayed == fresh
        return replayed

    alpha = skill(tmp_path, "alpha")
    assert '"alpha"' in check()
    skill(tmp_path, "alpha", "Reviews evidence, now with sources.")  # edited in place
    assert "now with sources" in check()
    skill(tmp_path, "beta")  # a folder added
    assert '"beta"' in check()
    (alpha / "SKILL.md").unlink()  # a SKILL.md removed from a folder that stays
    assert '"alpha"' not in check()
    (tmp_path / "project" / ".claude" / "skills" / "alpha" / "SKILL.md").write_text("no frontmatter\n")
    assert "beta" in check()


def test_a_distribution_installed_on_the_path_is_seen_by_the_next_run(run, tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    path = {"PYTHONPATH": str(site), "SWARM_HANDOFF_LOAD_PACKS": "new-skill"}
    before, _ = run("discover", "--format", "json", **path)
    assert '"new-skill"' not in before
    package = site / "newpack"
    package.mkdir()
    (package / "SKILL.md").write_text(
        "---\nname: new-skill\ndescription: Arrived by install.\n"
        "handoff:\n  accepts_handoff: true\n  handoff_categories: [research]\n---\n"
    )
    (package / "__init__.py").write_text("import os\nSKILL_MD = os.path.join(os.path.dirname(__file__), 'SKILL.md')\n")
    info = site / "newpack-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: newpack\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[swarm_handoff.skills]\nnew-skill = newpack\n")
    after, _ = run("discover", "--format", "json", **path)
    assert '"new-skill"' in after
    assert after == run("discover", "--format", "json", fresh=True, **path)[0]
