"""Every ```console, ```bash and ```python block of the README and docs/*.md runs as written.

Each page runs in a fresh copy of the repository (with `.venv` linked to the environment running
the tests, so `. .venv/bin/activate` and `.venv/bin/...` work) and a fresh HOME, config and cache.

- console/bash: the `$ ` lines are the commands (a trailing `\\` continues one); a block with no
  `$ ` line is all commands. The block runs in bash with `set -euo pipefail` from the copy's root.
- python: the blocks of one page run in order in one namespace (a page builds its example up); a
  block that defines `test_*` functions is also a test file of its own, and one pytest runs the
  page's test files.
- A block quoted from a file (`<!-- file: PATH -->`, `<!-- excerpt: PATH -->`) is that file, which
  its own suite runs (see test_tutorial_skill_pack.py).
- `<!-- docs-test: cwd PATH -->` on the line before a block runs it from PATH (repository-relative),
  for a page that says "from the pack's folder" or "from a session folder".
- `<!-- docs-test: collect REASON -->` runs a block whose pytest runs whole suites with
  `PYTEST_ADDOPTS=--collect-only`: the command, paths and imports are checked; the matrix runs the suites.
- A block that cannot run as is carries `<!-- docs-test: skip REASON -->` on the line before it;
  the reasons are listed by `test_skipped_blocks_are_few_and_say_why`. A reason that names
  `tests/e2e` or `.ci/run` says where the block runs instead.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(
    r"(?:<!-- (?P<marker>[^\n]*?) -->\n)?```(?P<lang>console|bash|python)\n(?P<body>.*?)^```", re.S | re.M
)
IGNORED = shutil.ignore_patterns(
    ".git", ".venv", ".nox", ".nox-venv", "dist", "site", "build", "__pycache__", "*.egg-info"
)
MAX_SKIPPED_SHARE = 0.25


class Block:
    """One code block: where it is, its language, its text and what its marker says."""

    def __init__(self, page: Path, match: re.Match[str], text: str) -> None:
        self.page = page
        self.line = text.count("\n", 0, match.start("lang")) + 1
        self.lang = match["lang"]
        self.body = match["body"]
        marker = match["marker"] or ""
        self.quoted = marker.startswith(("file:", "excerpt:"))
        self.skip = marker.removeprefix("docs-test: skip").strip() if marker.startswith("docs-test: skip") else None
        self.cwd = marker.removeprefix("docs-test: cwd").strip() if marker.startswith("docs-test: cwd") else "."
        self.collect_only = marker.startswith("docs-test: collect")

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    def commands(self) -> str:
        """The shell script: the `$ ` lines (with continuations), or every line when none has `$ `."""
        lines = self.body.splitlines()
        if not any(line.startswith("$ ") for line in lines):
            return self.body
        out: list[str] = []
        continuing = False
        for line in lines:
            if line.startswith("$ ") or continuing:
                out.append(line[2:] if line.startswith("$ ") and not continuing else line)
                continuing = line.endswith("\\")
        return "\n".join(out) + "\n"


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    return [Block(page, m, text) for m in BLOCK.finditer(text)]


ALL = [b for page in PAGES for b in blocks(page)]
RUNNABLE = [b for b in ALL if b.skip is None and not b.quoted]


@pytest.fixture
def sandbox(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the repository and an environment whose HOME, config and cache are fresh."""
    copy = tmp_path / "repo"
    shutil.copytree(ROOT, copy, ignore=IGNORED, symlinks=True)
    (copy / ".venv").symlink_to(sys.prefix, target_is_directory=True)
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "tmp").mkdir()  # `session new` folders land here, not in the machine's temporary folder
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_", "PYTEST_"))}
    env.pop("VIRTUAL_ENV", None)
    env.update(
        HOME=str(home),
        XDG_CACHE_HOME=str(home / ".cache"),
        TMPDIR=str(tmp_path / "tmp"),
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
        PYTHONDONTWRITEBYTECODE="1",
        PIP_REQUIRE_VIRTUALENV="1",  # a block that reaches for pip never touches a Python outside a venv
        PIP_NO_INDEX="1",
    )
    return copy, env


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=600)


def _shell(block: Block, cwd: Path, env: dict[str, str]) -> None:
    if block.collect_only:
        env = {**env, "PYTEST_ADDOPTS": "--collect-only -q"}
    result = _run(["bash", "-c", "set -euo pipefail\n" + block.commands()], cwd / block.cwd, env)
    assert result.returncode == 0, f"{block.id} failed (exit {result.returncode}):\n{result.stdout}\n{result.stderr}"


# Runs a page's python blocks in order in one namespace; prints which block failed, and how.
RUNNER = textwrap.dedent(
    """
    import json, os, sys, traceback
    namespace = {"__name__": "__docs__"}
    for number, (cwd, source) in enumerate(json.load(open(sys.argv[1]))):
        os.chdir(os.path.join(sys.argv[2], cwd))
        try:
            exec(compile(source, f"block{number}", "exec"), namespace)
        except BaseException:
            print(json.dumps({"block": number, "error": traceback.format_exc()}))
            sys.exit(1)
    """
)


def _python(page: list[Block], cwd: Path, env: dict[str, str]) -> None:
    sources = cwd / "docs-blocks.json"
    sources.write_text(json.dumps([(b.cwd, b.body) for b in page]))
    result = _run([sys.executable, "-c", RUNNER, str(sources), str(cwd)], cwd, env)
    if result.returncode != 0:
        failed = json.loads(result.stdout.splitlines()[-1]) if result.stdout.strip() else {"block": 0, "error": ""}
        block = page[failed["block"]]
        pytest.fail(f"{block.id} failed:\n{failed['error']}\n{result.stderr}")
    # Each block with tests is a test file of its own (named after its line), and one pytest runs
    # a page's files: a pytest per block cost a start-up each, 23 of them for docs/hooks.md.
    tested = {f"test_docs_block_{b.line}.py": b for b in page if re.search(r"^def test_", b.body, re.M)}
    for name, block in tested.items():
        (cwd / name).write_text(block.body)
    if tested:
        run = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tested], cwd, env)
        failing = set(re.findall(r"^(?:FAILED|ERROR) (test_docs_block_\d+\.py)", run.stdout, re.M))
        names = ", ".join(block.id for name, block in tested.items() if name in failing) or "a block"
        assert run.returncode == 0, f"{names}: its tests fail:\n{run.stdout}\n{run.stderr}"


USING_IT = [b for b in ALL if b.page.name == "README.md" and "swarm-handoff handoff" in b.body]
# The README's "Using it" has a test of its own, below.
SHELL_BLOCKS = [b for b in RUNNABLE if b.lang != "python" and b not in USING_IT]
PYTHON_PAGES = sorted({b.page for b in RUNNABLE if b.lang == "python"})


@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=lambda b: b.id)
def test_every_shell_block_runs(block: Block, sandbox: tuple[Path, dict[str, str]]) -> None:
    _shell(block, *sandbox)


@pytest.mark.slow
@pytest.mark.parametrize("page", PYTHON_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_python_block_runs(page: Path, sandbox: tuple[Path, dict[str, str]]) -> None:
    _python([b for b in RUNNABLE if b.page == page and b.lang == "python"], *sandbox)


def test_readme_using_it_runs_as_written(sandbox: tuple[Path, dict[str, str]]) -> None:
    """The README's "Using it" block, from the repository root, leaves a verified payload in a fresh session."""
    (using,) = USING_IT
    assert using.skip is None
    copy, env = sandbox
    _shell(using, copy, env)
    (session,) = Path(env["TMPDIR"]).glob("swarm-session-*")  # `session new` made it there
    assert (session / "handoff-payload.yaml").is_file()
    assert not (copy / "examples" / "session" / "handoff-payload.yaml").exists()  # the example stays as it was


# A sitecustomize that moves every Python process's clock forward by $CLOCK_SHIFT_SECONDS: the test's
# "an hour later", without a hook in the product. `datetime.datetime` is replaced by a subclass whose
# `now()` is shifted (modules look the class up when they call it), and `time.time` likewise.
CLOCK_SHIFT = textwrap.dedent(
    """
    import datetime as _dt
    import os as _os
    import time as _time

    _SHIFT = float(_os.environ.get("CLOCK_SHIFT_SECONDS", "0"))


    class _Later(_dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return super().now(tz) + _dt.timedelta(seconds=_SHIFT)

        @classmethod
        def utcnow(cls):
            return super().utcnow() + _dt.timedelta(seconds=_SHIFT)


    _dt.datetime = _Later
    _real_time = _time.time
    _time.time = lambda: _real_time() + _SHIFT
    """
)


def test_readme_using_it_runs_again_hours_later(sandbox: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    """Run "Using it", then run it again with the clock two hours on: each verify checks a payload its run wrote.

    Issue 26: the block used to verify `handoff-payload.yaml` by name, which a second run does not
    write (it writes `handoff-payload-2.yaml`), so an hour later it verified an expired payload.
    """
    (using,) = USING_IT
    copy, env = sandbox
    _shell(using, copy, env)
    shim = tmp_path / "clock"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(CLOCK_SHIFT)
    later = {**env, "PYTHONPATH": str(shim), "CLOCK_SHIFT_SECONDS": str(2 * 3600)}
    probe = "import datetime as d, time; print(d.datetime.now(d.timezone.utc).timestamp(), time.time())"
    shifted = _run([sys.executable, "-c", probe], copy, later).stdout.split()
    now = time.time()
    assert all(float(value) - now > 7000 for value in shifted), shifted  # the shim does move the clock
    _shell(using, copy, later)


def test_skipped_blocks_are_few_and_say_why() -> None:
    skipped = [b for b in ALL if b.skip is not None]
    elsewhere = [b for b in skipped if "tests/e2e" in b.skip or ".ci/run" in b.skip]
    quoted = [b for b in ALL if b.quoted]
    report = "\n".join(f"  {b.id}: {b.skip}" for b in skipped)
    print(
        f"{len(ALL)} blocks: {len(RUNNABLE)} run here, {len(quoted)} are quoted files their suites run, "
        f"{len(elsewhere)} run by tests/e2e or CI, {len(skipped) - len(elsewhere)} not run:\n{report}"
    )
    assert all(b.skip for b in skipped), f"a skip marker must give a reason:\n{report}"
    assert len(skipped) - len(elsewhere) <= MAX_SKIPPED_SHARE * len(ALL), f"too many blocks skipped:\n{report}"
