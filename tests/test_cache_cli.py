"""The caches as the console script meets them, in real processes: never an answer a fresh scan would not give.

Each run is a new interpreter started the way the console script starts (`main()` reading
sys.argv), with the default plugins, no skill packs and a user cache of its own. The typer app is
the one door (there are no replayed answers or help pages any more); what is cached is the result
store, the parse memo and the entry-point scan, and after every change a cached run must print
what a run with every cache off prints.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

SCRIPT = "import sys; sys.argv[0] = 'swarm-handoff'; from swarm_handoff.cli.entry import main; main()"
PLUGIN = '''\
from swarm_handoff.api import hookimpl


@hookimpl
def swarm_handoff_cli(app):
    @app.command("{command}")
    def command() -> None:
        """{help}"""
'''


@pytest.fixture
def run(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_", "COLUMNS"))}
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        PYTHONPATH=os.pathsep.join([str(tmp_path / "site"), *filter(None, [os.environ.get("PYTHONPATH")])]),
        SWARM_HANDOFF_LOAD_PLUGINS="frontmatter,registry,formatters,qr,greet",
        SWARM_HANDOFF_LOAD_PACKS="",
    )
    (tmp_path / "site").mkdir()
    (tmp_path / "project").mkdir()

    def run_(*args: str, fresh: bool = False, settle_first: bool = True, **extra: str) -> tuple[int, str, str]:
        if settle_first:
            settle(tmp_path)
        environment = {**env, **extra, **({"SWARM_HANDOFF_NO_CACHE": "1"} if fresh else {})}
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT, *args],
            cwd=tmp_path / "project",
            env=environment,
            capture_output=True,
            text=True,
            check=False,
        )
        return done.returncode, done.stdout, done.stderr

    return run_


def settle(root: Path) -> None:
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


def skill(root: Path, name: str, description: str = "Reviews evidence.", accepts_from: str = "") -> Path:
    folder = root / "project" / ".claude" / "skills" / name
    folder.mkdir(parents=True, exist_ok=True)
    who = f"\n  accepts_from: [{accepts_from}]\n  schema_version: '3.0'" if accepts_from else ""
    (folder / "SKILL.md").write_text(
        textwrap.dedent(f"""\
        ---
        name: {name}
        description: {description}
        categories: [research]
        handoff:
          accepts_handoff: true
          handoff_categories: [research]
          handoff_description: {description}""")
        + who
        + "\n---\n# body\n"
    )
    return folder / "SKILL.md"


def test_after_every_change_discover_equals_a_fresh_scan(run, tmp_path):
    def check() -> str:
        run("discover", "--format", "json")  # stores (or reuses) the answer
        cached = run("discover", "--format", "json")
        fresh = run("discover", "--format", "json", fresh=True)
        assert cached == fresh
        return cached[1]

    alpha = skill(tmp_path, "alpha")
    assert '"alpha"' in check()
    skill(tmp_path, "alpha", "Reviews evidence, now with sources.")  # edited in place
    assert "now with sources" in check()
    skill(tmp_path, "beta")  # a folder added
    assert '"beta"' in check()
    alpha.unlink()  # a SKILL.md removed from a folder that stays
    assert '"alpha"' not in check()
    alpha.write_text("no frontmatter\n")
    assert "beta" in check()


def put_back(path: Path, text: str) -> None:
    """Rewrite `path` with `text` of the same length and put its modification time back, as `cp -p` does."""
    before = path.stat()
    assert len(text.encode()) == before.st_size
    path.write_text(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (path.stat().st_mtime_ns, path.stat().st_size) == (before.st_mtime_ns, before.st_size)


def test_a_same_length_edit_with_the_mtime_put_back_is_seen_by_discover(run, tmp_path):
    """Issue 25.5: (mtime, size) alone never sees this edit; the status-change time does."""
    path = skill(tmp_path, "alpha", "Reviews evidence.")
    run("discover", "--format", "json")
    assert "Reviews evidence." in run("discover", "--format", "json")[1]  # from the result store
    put_back(path, path.read_text().replace("Reviews evidence.", "Reviews evidencE."))
    status, out, _ = run("discover", "--format", "json", settle_first=False)
    assert status == 0
    assert "Reviews evidencE." in out
    assert "Reviews evidence." not in out
    assert (status, out) == run("discover", "--format", "json", fresh=True, settle_first=False)[:2]


def test_a_same_length_edit_with_the_mtime_put_back_is_seen_by_handoff(run, tmp_path):
    """Issue 25.5: a target whose file now refuses the source is refused, not authorised from a stale record."""
    path = skill(tmp_path, "reviewer", accepts_from="planner")
    synthesis = tmp_path / "project" / "synthesis.yaml"
    synthesis.write_text("original_prompt: Review the plan.\nproblem_type: research\n")
    session = tmp_path / "project" / "session"
    session.mkdir()
    args = ("handoff", "reviewer", "--synthesis", str(synthesis), "--source", "planner", "--format", "json")
    run("discover", "--format", "json")  # the answer is stored, the target accepting the planner
    status, out, err = run(*args, "--session", str(session))
    assert status == 0, out + err
    put_back(path, path.read_text().replace("[planner]", "[plannex]"))
    other = tmp_path / "project" / "session2"
    other.mkdir()
    status, out, err = run(*args, "--session", str(other), settle_first=False)
    assert status != 0, out
    assert "planner" in json.loads(out)["error"]["message"]


def test_a_distribution_installed_on_the_path_is_seen_by_the_next_run(run, tmp_path):
    site = tmp_path / "site"
    packs = {"SWARM_HANDOFF_LOAD_PACKS": "new-skill"}
    assert '"new-skill"' not in run("discover", "--format", "json", **packs)[1]
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
    after = run("discover", "--format", "json", **packs)
    assert '"new-skill"' in after[1]
    assert after == run("discover", "--format", "json", fresh=True, **packs)


def install(
    site: Path, command: str = "greet", help_text: str = "Greet whoever runs it.", module: str = "greet_plugin"
):
    """Install a plugin distribution `greet` into `site` the way pip lays one out."""
    (site / f"{module}.py").write_text(PLUGIN.format(command=command, help=help_text))
    info = site / "greet-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: greet\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[swarm_handoff]\ngreet = {module}\n")


def test_the_root_help_follows_plugins_installed_changed_and_removed(run, tmp_path):
    """The cached entry-point scan: a plugin's command appears, changes and goes with the installation."""

    def page() -> str:
        cached = run("--help")
        assert cached == run("--help", fresh=True)
        return cached[1]

    site = tmp_path / "site"
    assert "greet" not in page()
    install(site)
    install(site, command="salute", help_text="Salute whoever runs it.", module="salute_plugin")
    (site / "greet-1.0.dist-info" / "entry_points.txt").write_text("[swarm_handoff]\ngreet = greet_plugin\n")
    assert "Greet whoever runs it." in page()
    # Only entry_points.txt rewritten in place: no folder changes, the entry point now names another module.
    (site / "greet-1.0.dist-info" / "entry_points.txt").write_text("[swarm_handoff]\ngreet = salute_plugin\n")
    text = page()
    assert "Salute whoever runs it." in text
    assert "Greet whoever" not in text
    (site / "salute_plugin.py").unlink()
    (site / "greet_plugin.py").unlink()
    shutil.rmtree(site / "greet-1.0.dist-info")
    assert "greet" not in page()


def test_a_broken_plugin_is_reported_on_every_run(run, tmp_path):
    install(tmp_path / "site")
    (tmp_path / "site" / "greet_plugin.py").write_text("raise ImportError('not today')\n")
    for _ in range(2):  # the second run rests on the cached scan and answer: the failure is still said
        status, _, err = run("discover", "--format", "json")
        assert status == 0
        assert "not today" in err


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_reader_that_went_away_ends_discover_quietly(run, tmp_path, fmt):
    """`discover | head`: the reader closed the pipe, so exit 1 with nothing more said (as `main` promises)."""
    skill(tmp_path, "alpha")
    settle(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_"))}
    env.update(HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    with subprocess.Popen(
        [sys.executable, "-c", SCRIPT, "discover", "--format", fmt],
        cwd=tmp_path / "project",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    ) as proc:
        assert proc.stdout is not None
        assert proc.stderr is not None
        proc.stdout.close()  # before the interpreter has even started: every write meets a closed pipe
        err = proc.stderr.read().decode()
    assert proc.returncode == 1
    assert err.splitlines() == [line for line in err.splitlines() if line.startswith("note: ")]
