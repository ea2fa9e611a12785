"""Project-wide rules that keep the plugin system honest (datasette-style meta-tests).

- every hook spec is documented (a section per hook in docs/hooks.md naming each argument) and
  exercised by at least one test;
- every distribution in the repository has a README, tests, and (for plugins) an entry point;
- every public function and method has a docstring;
- with everything installed, all plugins load with no failure even in strict mode.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from swarm_handoff import hookspecs, plugins

ROOT = Path(__file__).resolve().parents[1]
HOOKS = sorted(name for name in dir(hookspecs) if name.startswith("swarm_handoff_"))
DISTRIBUTIONS = sorted(p.parent for p in ROOT.glob("*/pyproject.toml")) + sorted(
    p.parent
    for pattern in ("plugins/*", "skills-examples/*", "docs/examples/*")
    for p in ROOT.glob(f"{pattern}/pyproject.toml")
)
SOURCES = sorted(p for d in DISTRIBUTIONS for p in (d / "src").rglob("*.py"))
TESTS = sorted(p for p in ROOT.rglob("test_*.py") if not {".nox", ".venv", ".nox-venv"} & set(p.parts))


def _section(text: str, hook: str) -> str:
    match = re.search(rf"^## `{hook}\(.*?(?=^## |\Z)", text, re.M | re.S)
    return match.group(0) if match else ""


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_has_a_documented_section_naming_its_arguments(hook):
    section = _section((ROOT / "docs" / "hooks.md").read_text(encoding="utf-8"), hook)
    assert section, f"docs/hooks.md has no '## `{hook}(...)`' section"
    for arg in getattr(hookspecs, hook).__code__.co_varnames[: getattr(hookspecs, hook).__code__.co_argcount]:
        assert re.search(rf"`{arg}[`(]", section), f"docs/hooks.md does not describe {hook}'s argument {arg}"


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_is_exercised_by_a_test(hook):
    users = [t for t in TESTS if t.name != "test_meta.py" and hook in t.read_text(encoding="utf-8")]
    assert users, f"no test implements or calls {hook}"


@pytest.mark.parametrize("dist", DISTRIBUTIONS, ids=lambda p: str(p.relative_to(ROOT)) or "root")
def test_every_distribution_has_readme_and_tests(dist):
    assert (dist / "README.md").is_file()
    if dist != ROOT:
        assert list((dist / "tests").glob("test_*.py")), f"{dist} has no tests"
    if dist.parent.name == "plugins" or dist.parent.name == "examples":
        text = (dist / "pyproject.toml").read_text(encoding="utf-8")
        assert "[project.entry-points.swarm_handoff]" in text


@pytest.mark.parametrize("dist", DISTRIBUTIONS, ids=lambda p: str(p.relative_to(ROOT)) or ".")
def test_every_distribution_ships_the_license_it_declares(dist):
    """MIT asks for its text in every copy: each distribution's folder holds it, so its wheel and sdist do."""
    assert 'license = "MIT"' in (dist / "pyproject.toml").read_text(encoding="utf-8")
    license_text = (dist / "LICENSE").read_text(encoding="utf-8")
    assert license_text == (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License\n")


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_public_functions_have_a_docstring(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defs = ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef
    public = [n for n in tree.body if isinstance(n, defs) and not n.name.startswith("_")]
    for cls in [n for n in public if isinstance(n, ast.ClassDef)]:
        public += [n for n in cls.body if isinstance(n, defs) and not n.name.startswith("_")]
    missing = [f"{n.name} (line {n.lineno})" for n in public if ast.get_docstring(n) is None]
    assert not missing, f"{path.name}: no docstring on {', '.join(missing)}"


def test_every_installed_plugin_loads_even_in_strict_mode(monkeypatch):
    monkeypatch.delenv(plugins.ENV_LOAD, raising=False)
    monkeypatch.delenv(plugins.ENV_DISABLE, raising=False)
    host = plugins.build_host({plugins.ENV_STRICT: "1"})
    assert host.failures == []
    assert {"core-formatters", "formatters", "qr"} <= {p.name for p in host.plugins}
