"""The installed tool, as a user gets it from `pip install`: plugins load, packs register."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORE_VERSION = re.search(r'__version__ = "(.+)"', (ROOT / "core/src/swarm_handoff/__init__.py").read_text())


def test_the_executable_reports_its_version(e2e_env):
    result = e2e_env.run("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"swarm-handoff {CORE_VERSION.group(1)}"


def test_every_default_plugin_loads_from_a_regular_install(e2e_env):
    data = e2e_env.json("plugins", env={"SWARM_HANDOFF_STRICT_PLUGINS": "1"})
    names = {p["name"]: p["distribution"] for p in data["plugins"]}
    assert names["formatters"] == "swarm-handoff-formatters"
    assert {"frontmatter", "registry", "qr", "link", "core-formatters"} <= set(names)
    assert data["failures"] == []


def test_a_broken_plugin_is_reported_and_every_command_still_works(e2e_env, tmp_path):
    e2e_env.install_throwaway(
        tmp_path / "broken",
        "broken-plugin",
        "swarm_handoff",
        'broken = "broken_plugin"',
        "raise ImportError('missing dependency')\n",
    )
    try:
        data = e2e_env.json("plugins")
        [failure] = [f for f in data["failures"] if f["name"] == "broken"]
        assert failure["distribution"] == "broken-plugin"
        assert "missing dependency" in failure["error"]
        strict = e2e_env.run("plugins", env={"SWARM_HANDOFF_STRICT_PLUGINS": "1"})
        assert strict.returncode == 1
        assert "broken" in strict.stderr
    finally:
        e2e_env.pip("uninstall", "--yes", "--quiet", "broken-plugin")


def test_a_repeated_discover_reads_no_unchanged_skill_again(e2e_env):
    """The installed script, not editable code: a repeat rests on the stored answer, not on parsing YAML again."""
    e2e_env.launcher = [str(e2e_env.bin / "python"), "-X", "importtime"]
    try:
        first = e2e_env.run("discover", "--format", "json")
        # A file changed within 50 ms before a run is not trusted (an earlier test may have just
        # run pip here), so the answer is stored by the first run whose inputs had settled.
        e2e_env.run("discover", "--format", "json")
        again = e2e_env.run("discover", "--format", "json")
    finally:
        e2e_env.launcher = []
    assert first.returncode == again.returncode == 0
    assert again.stdout == first.stdout
    assert "evidence-review" in again.stdout

    def imported(trace: str) -> set[str]:
        return {line.split("|")[-1].strip().split(".")[0] for line in trace.splitlines() if "|" in line}

    assert "typer" in imported(again.stderr)  # the typer app is the one door
    assert not imported(again.stderr) & {"ruamel", "importlib_metadata"}  # the result and entry-point caches
