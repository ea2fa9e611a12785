"""A real SKILL.md whose frontmatter is not YAML (the corpus' `curation`) is one coded finding and hides nothing.

`curation` (maxdpi__claude-config) has an unquoted ': ' in its description: `lint` and
`discover --all -f json` must both say so with a code, the file, the line and a hint, while every
other skill of the corpus, its 13 neighbours included, is still found exactly once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# ../shared beside the checkout (CI lays it there), found by walking up from this file.
CORPUS = (
    next(
        (p / "shared" for p in Path(__file__).resolve().parents if (p / "shared" / "seeds").is_dir()),
        Path("shared-not-found"),
    )
    / "corpus"
)
CURATION = CORPUS / "origin" / "maxdpi__claude-config" / "curation" / "SKILL.md"


@pytest.fixture
def corpus() -> Path:
    if not CURATION.is_file():
        pytest.skip(
            "needs ../shared/corpus/ with maxdpi__claude-config/curation (the SKILL.md corpus), which is not in "
            'this repository: see docs/development.md, "Conformance tests"'
        )
    return CORPUS


def cli(tmp_path: Path, *args: str) -> tuple[int, str]:
    """`swarm-handoff ARGS` in a fresh interpreter, home and config in tmp, every corpus repository a root."""
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    roots = [{"path": str(repo)} for repo in sorted((CORPUS / "origin").iterdir()) if repo.is_dir()]
    (config / "swarm-handoff-roots.json").write_text(json.dumps({"version": 1, "roots": roots}), encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_"))}
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(config), XDG_CACHE_HOME=str(tmp_path / "cache"))
    env["SWARM_HANDOFF_NO_CACHE"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from swarm_handoff.cli.entry import main; main(sys.argv[1:])", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout


def assert_coded(problem: dict[str, object]) -> None:
    """The finding a user can act on: a stable code, the file, the line and column, a hint."""
    assert problem["code"] == "SKILL_UNQUOTED_COLON"
    assert Path(str(problem["path"])).resolve() == CURATION.resolve()
    assert (problem["line"], problem["column"]) == (3, 150)
    assert "quote" in str(problem["hint"])


def test_lint_reports_curation_with_code_file_line_and_hint(corpus: Path, tmp_path: Path) -> None:
    status, out = cli(tmp_path, "lint", str(CURATION.parent), "-f", "json")
    [report] = json.loads(out)["files"]
    [problem] = [p for p in report["problems"] if p["severity"] == "error"]
    assert_coded(problem)
    assert status != 0  # an error finding fails the lint


def test_discover_all_reports_curation_once_and_hides_no_other_skill(corpus: Path, tmp_path: Path) -> None:
    status, out = cli(tmp_path, "discover", "--all", "-f", "json")
    assert status == 0
    found = json.loads(out)
    records = [*found["workflows"], *found["ineligible"], *found["shadowed"]]
    listed = [Path(r["path"]).resolve() for r in records if r.get("path")]
    assert sorted(set(listed)) == sorted(listed)  # each file once
    assert {p.resolve() for p in corpus.rglob("SKILL.md")} <= set(listed)  # none hidden by the broken one
    [curation] = [r for r in records if Path(r["path"]).resolve() == CURATION.resolve()]
    assert curation["eligible"] is False
    [problem] = curation["problems"]
    assert_coded(problem)
