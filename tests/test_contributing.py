"""A contributor's first hour: the test command CI runs is the README's, and skips say what they need."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED_USERS = [
    "core/tests/test_payload_v3.py",
    "core/tests/test_payload_adapters.py",
    "core/tests/test_payload_schema_conformance.py",
    "plugins/swarm-handoff-frontmatter/tests/test_corpus.py",
    "core/tests/test_lint_corpus.py",
]


def _readme_test_command() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (command,) = [m for m in re.findall(r"```console\n(.*?)\n```", readme, re.S) if "nox" in m]
    return command


def test_ci_runs_exactly_the_readme_test_command():
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert _readme_test_command() in lines
    assert "set -euo pipefail" in lines


def test_the_test_command_installs_nothing_into_the_users_python():
    command = _readme_test_command()
    assert command.startswith("python3 -m venv .nox-venv && ")
    assert "python3 -m pip" not in command  # only the venv's pip installs
    assert ".nox-venv/" in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()


def test_every_shared_skip_says_what_is_missing_and_where_it_comes_from():
    guide = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    assert "## Conformance tests and `../shared`" in guide
    for path in SHARED_USERS:
        source = (ROOT / path).read_text(encoding="utf-8")
        skips = re.findall(r"pytest\.skip\((.*?)\)\n", source, re.S)
        assert skips, path
        for skip in skips:
            assert "../shared/" in skip, path
            assert "not in this repository" in skip, path
            assert "docs/development.md" in skip, path
        assert path in guide, f"docs/development.md does not name {path}"
