"""Issue 25: a plugin that writes to file descriptor 1 must not corrupt `--format json`.

`quiet()` sent a plugin's Python-level prints to stderr, but `os.write(1, ...)`, a C extension or a
child process writes to the descriptor itself. Run as a real process, since only then is fd 1 the
terminal's stdout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PLUGIN = """
import os
import subprocess
import sys

from swarm_handoff.api import hookimpl
from swarm_handoff.records import SourceResult


class Noisy:
    priority = 50

    def discover(self, context):
        print("PRINTED by a plugin")
        os.write(1, b"RAW bytes written to fd 1\\n")
        subprocess.run([sys.executable, "-c", "print('CHILD of a plugin')"], check=False)
        return SourceResult(records=(), scanned=0)


@hookimpl
def swarm_handoff_discovery_sources(register):
    register("noisy-fd", Noisy)
"""


def run_cli(tmp_path: Path, site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_"))}
    paths = [str(site), env.get("PYTHONPATH", "")]
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        CLAUDE_CONFIG_DIR=str(tmp_path / "config"),
        PYTHONPATH=os.pathsep.join(p for p in paths if p),
    )
    program = "import sys; from swarm_handoff.cli.entry import main; main(sys.argv[1:])"
    return subprocess.run(
        [sys.executable, "-c", program, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,  # a safety net for a hung child, not a limit under test
        check=False,
    )


def test_a_plugin_writing_to_fd_1_does_not_corrupt_format_json(tmp_path, fake_distributions):
    plugin = {"swarm_handoff": {"noisy-fd": "noisy_fd_plugin"}}
    site = fake_distributions.install("noisy-fd-plugin", entry_points=plugin, modules={"noisy_fd_plugin": PLUGIN})
    done = run_cli(tmp_path, site, "discover", "--format", "json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)  # nothing but the document on stdout
    assert "skills" in document or document
    for noise in ("PRINTED by a plugin", "RAW bytes written to fd 1", "CHILD of a plugin"):
        assert noise not in done.stdout
        assert noise in done.stderr  # not lost: said where diagnostics go
