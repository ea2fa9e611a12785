"""The plugin boundary: code outside the core reaches swarm-handoff only through `swarm_handoff.api`.

Every .py file of the distributions in `plugins/`, the packs in `skills-examples/` and the examples
in `docs/examples/` is parsed (never imported) and each import of `swarm_handoff` or one of its
submodules is checked. Allowed:

- `swarm_handoff.api` (`from swarm_handoff.api import X`, `import swarm_handoff.api`,
  `from swarm_handoff import api`);
- `swarm_handoff.testing`, only in test code: under a `tests/` folder, or in a distribution's own
  test-helper module (`testing.py`, `conftest.py`), which only its tests import.

`from swarm_handoff import hookimpl` is NOT allowed: the marker lives in `swarm_handoff.api` like
everything else, and the old spelling only warns (for third parties, for one release). A plugin's
own packages (`swarm_handoff_qr`, ...) are other top-level names and are never confused with the core.
`importlib.import_module("swarm_handoff.x")` with a literal name is checked too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE_THE_CORE = ("plugins", "skills-examples", "docs/examples")
SKIPPED_PARTS = {".venv", ".nox", "build", "dist", "__pycache__", "node_modules"}
API = "swarm_handoff.api"
TESTING = "swarm_handoff.testing"


def _is_test_code(path: Path) -> bool:
    return "tests" in path.parts or path.name in {"testing.py", "conftest.py"}


def _core(module: str) -> bool:
    return module == "swarm_handoff" or module.startswith("swarm_handoff.")


def _allowed(module: str, test_code: bool) -> bool:
    return module == API or (test_code and module == TESTING)


def violations(source: str, path: Path) -> list[str]:
    """Name every import in `source` that reaches past the API (`path` decides whether it is test code)."""
    test_code = _is_test_code(path)
    found: list[str] = []
    for node in ast.walk(ast.parse(source, filename=str(path))):
        reached: list[str] = []
        if isinstance(node, ast.Import):
            reached = [alias.name for alias in node.names if _core(alias.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and _core(node.module):
            if node.module == "swarm_handoff":  # `from swarm_handoff import api` names a module
                reached = [f"swarm_handoff.{alias.name}" for alias in node.names]
            else:
                reached = [node.module]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None)) in {"import_module", "__import__"}
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and _core(node.args[0].value)
        ):
            reached = [node.args[0].value]
        found += [f"{path}:{node.lineno}: imports {m}" for m in reached if not _allowed(m, test_code)]
    return found


def python_files(root: Path) -> list[Path]:
    """Every .py file of the code outside the core, build and virtual-environment folders left out."""
    return sorted(
        p
        for where in OUTSIDE_THE_CORE
        for p in (root / where).rglob("*.py")
        if not SKIPPED_PARTS.intersection(p.relative_to(root).parts)
        and not any(part.endswith(".egg-info") for part in p.parts)
    )


def check(root: Path) -> list[str]:
    """Every violation under `root` (a repository), as `path:line: imports module` lines."""
    return [v for p in python_files(root) for v in violations(p.read_text(encoding="utf-8"), p.relative_to(root))]


def test_plugins_packs_and_examples_import_only_the_api():
    files = python_files(ROOT)
    assert len(files) > 50  # the walk really found the plugins
    bad = check(ROOT)
    assert not bad, "import these names from swarm_handoff.api instead:\n" + "\n".join(bad)


BAD = [
    ("plugins/p/src/p/scan.py", "from swarm_handoff.records import SkillRecord\n"),
    ("plugins/p/src/p/scan.py", "import swarm_handoff.cache\n"),
    ("plugins/p/src/p/scan.py", "import swarm_handoff\n"),
    ("plugins/p/src/p/plugin.py", "from swarm_handoff import hookimpl\n"),
    ("plugins/p/src/p/scan.py", "from swarm_handoff import parallel\n"),
    ("plugins/p/src/p/scan.py", "def f():\n    from swarm_handoff.cache import no_gc\n"),
    (
        "plugins/p/src/p/scan.py",
        "import typing\nif typing.TYPE_CHECKING:\n    from swarm_handoff.explain import Location\n",
    ),
    ("plugins/p/src/p/scan.py", "import importlib\nimportlib.import_module('swarm_handoff.cache')\n"),
    ("plugins/p/src/p/scan.py", "from swarm_handoff.testing import SkillTree\n"),  # testing is for tests
    ("plugins/p/tests/test_p.py", "from swarm_handoff.records import Scope\n"),
    ("skills-examples/k/src/k/workflow.py", "from swarm_handoff.workflow import Workflow\n"),
    ("docs/examples/e/src/e/plugin.py", "from swarm_handoff.components import Register\n"),
]
GOOD = [
    ("plugins/p/src/p/plugin.py", "from swarm_handoff.api import Register, hookimpl\n"),
    ("plugins/p/src/p/plugin.py", "import swarm_handoff.api\nfrom swarm_handoff import api\n"),
    ("plugins/p/src/p/plugin.py", "from swarm_handoff_qr.policy import BlockingPolicy\nimport swarm_handoff_qr\n"),
    ("plugins/p/src/p/plugin.py", "from . import scan\nfrom .scan import scan_folder\n"),
    ("plugins/p/tests/test_p.py", "from swarm_handoff.testing import SkillTree\nfrom swarm_handoff import testing\n"),
    ("plugins/p/src/p/testing.py", "from swarm_handoff.testing import SkillTree\n"),
]


@pytest.mark.parametrize(("path", "source"), BAD)
def test_the_checker_catches_an_import_past_the_api(path, source):
    assert len(violations(source, Path(path))) == 1


@pytest.mark.parametrize(("path", "source"), GOOD)
def test_the_checker_allows_the_api_and_the_testing_kit_in_tests(path, source):
    assert violations(source, Path(path)) == []


def test_the_checker_fails_on_a_synthetic_bad_file_in_a_repository(tmp_path):
    good = tmp_path / "plugins" / "acme" / "src" / "acme" / "plugin.py"
    good.parent.mkdir(parents=True)
    good.write_text("from swarm_handoff.api import hookimpl\n")
    ignored = tmp_path / "plugins" / "acme" / ".venv" / "lib" / "x.py"
    ignored.parent.mkdir(parents=True)
    ignored.write_text("import swarm_handoff.cache\n")  # a virtual environment is not the plugin's code
    assert check(tmp_path) == []
    bad = tmp_path / "skills-examples" / "pack" / "src" / "pack" / "workflow.py"
    bad.parent.mkdir(parents=True)
    bad.write_text("from swarm_handoff.workflow.types import StepDef\n")
    assert check(tmp_path) == ["skills-examples/pack/src/pack/workflow.py:1: imports swarm_handoff.workflow.types"]
