"""The console script's cached help pages, in real processes: the same bytes as the app, rebuilt when plugins change.

Each run is a new interpreter started the way the console script starts (`main()` reading
sys.argv), with a user cache of its own and a folder on PYTHONPATH into which the tests install
and remove a plugin that adds a command (the `swarm_handoff_cli` hook), as pip would: in place,
next to whatever is already there. After every change the page printed must equal what a run
with every cache off prints, and a repeated page must be printed without importing the plugin stack.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import pytest

SCRIPT = "import sys; sys.argv[0] = 'swarm-handoff'; from swarm_handoff.cli import main; main()"
HEAVY = {"typer", "click", "pluggy", "attr", "attrs", "ruamel", "importlib_metadata"}
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
        SWARM_HANDOFF_LOAD_PLUGINS="frontmatter,greet",
        SWARM_HANDOFF_LOAD_PACKS="",
    )
    (tmp_path / "site").mkdir()
    (tmp_path / "project").mkdir()

    def run_(*args: str, fresh: bool = False, columns: int = 0) -> tuple[tuple[int, bytes, bytes], set[str]]:
        """One run: (status, stdout, stderr) as bytes, and the top-level modules it imported.

        With `columns`, stdout and stderr are a pseudo-terminal that wide (both then arrive as stdout).
        """
        settle(tmp_path)
        extra = {"SWARM_HANDOFF_NO_CACHE": "1"} if fresh else {}
        command = [sys.executable, "-X", "importtime", "-c", SCRIPT, *args]
        if columns:
            done = on_terminal(command, tmp_path / "project", {**env, **extra}, columns)
        else:
            done = subprocess.run(command, cwd=tmp_path / "project", env={**env, **extra}, capture_output=True)
        lines = (done.stdout if columns else done.stderr).splitlines(keepends=True)
        if columns:  # one stream: the trace lines come out of it, the rest is the output
            done.stdout = b"".join(line for line in lines if not line.startswith(b"import time:"))
        trace = [line for line in lines if line.startswith(b"import time:")]
        stderr = b"".join(line for line in lines if not line.startswith(b"import time:"))
        modules = {line.split(b"|")[-1].strip().split(b".")[0].decode() for line in trace}
        return (done.returncode, done.stdout, stderr), modules

    return run_


def on_terminal(command, cwd, env, columns):
    """Run `command` with a pseudo-terminal of `columns` columns as its stdin, stdout and stderr."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    proc = subprocess.Popen(command, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed its side
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return subprocess.CompletedProcess(command, proc.wait(), out, b"")


def settle(root):
    """Move what the test wrote in the last second two seconds back in time (see tests/test_answers_cli.py).

    A cache does not trust a file changed just before a run; shifting only fresh files keeps every
    change visible, since the new mtime still differs from the one recorded before.
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


def install(site, command="greet", help_text="Greet whoever runs it.", module="greet_plugin"):
    """Install a plugin distribution `greet` into `site` the way pip lays one out."""
    (site / f"{module}.py").write_text(PLUGIN.format(command=command, help=help_text))
    info = site / "greet-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: greet\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[swarm_handoff]\ngreet = {module}\n")


def check(run, *args, columns=0):
    """Store (or reuse) the page, then print it again from the cache: both equal a run with no cache."""
    fresh, _ = run(*args, fresh=True, columns=columns)
    first, _ = run(*args, columns=columns)
    again, modules = run(*args, columns=columns)
    assert first == fresh
    assert again == fresh
    assert not modules & HEAVY, sorted(modules & HEAVY)  # printed from the cache
    return fresh


@pytest.mark.parametrize("args", [(), ("--help",), ("-h",), ("discover", "--help")], ids=" ".join)
def test_a_repeated_page_is_the_apps_bytes_without_the_plugin_stack(run, args):
    status, out, err = check(run, *args)
    assert b"Usage: swarm-handoff" in out + err
    assert status == (0 if args else status)  # alone: click >= 8.2 exits 2 after the help


def test_installing_or_removing_a_cli_plugin_rebuilds_the_page(run, tmp_path):
    site = tmp_path / "site"
    assert b"greet" not in check(run, "--help")[1]
    install(site)
    assert b"Greet whoever runs it." in check(run, "--help")[1]
    (site / "greet_plugin.py").unlink()
    shutil.rmtree(site / "greet-1.0.dist-info")
    assert b"greet" not in check(run, "--help")[1]


def test_a_changed_entry_point_or_plugin_code_rebuilds_the_page(run, tmp_path):
    site = tmp_path / "site"
    install(site)
    install(site, command="salute", help_text="Salute whoever runs it.", module="salute_plugin")
    (site / "greet-1.0.dist-info" / "entry_points.txt").write_text("[swarm_handoff]\ngreet = greet_plugin\n")
    assert b"Greet whoever runs it." in check(run, "--help")[1]
    # The code of a plugin outside site-packages (an editable install) edited in place.
    (site / "greet_plugin.py").write_text(PLUGIN.format(command="greet", help="Greet whoever runs it, loudly."))
    assert b"Greet whoever runs it, loudly." in check(run, "--help")[1]
    # Only entry_points.txt rewritten in place: no folder changes, the entry point now names another module.
    (site / "greet-1.0.dist-info" / "entry_points.txt").write_text("[swarm_handoff]\ngreet = salute_plugin\n")
    page = check(run, "--help")[1]
    assert b"Salute whoever runs it." in page
    assert b"Greet whoever" not in page


def test_a_broken_plugin_is_retried_every_run(run, tmp_path):
    site = tmp_path / "site"
    install(site)
    (site / "greet_plugin.py").write_text("raise ImportError('not today')\n")
    run("--help")
    _, modules = run("--help")
    assert "typer" in modules  # not stored: the plugin may load next time
    pages = tmp_path / "cache" / "swarm-handoff" / "help"
    assert not pages.exists() or not os.listdir(pages)


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pseudo-terminal")
def test_on_a_terminal_the_page_is_the_same_bytes_at_that_width(run):
    narrow = check(run, "--help", columns=60)[1]
    wide = check(run, "--help", columns=100)[1]
    assert narrow != wide
    assert b"\r\n" in narrow  # the terminal's own line endings: it really was one
    assert max(len(line) for line in narrow.splitlines() if b"docs/cli.md" not in line) <= 60
