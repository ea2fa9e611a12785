"""Test matrix: the core alone, each plugin and skill pack with the core, and everything together.

Every distribution is found from its own `pyproject.toml` (`plugins/*`, `skills-examples/*`,
`docs/examples/*`), so a new plugin is tested without editing this file. Python versions come from
the core's classifiers. Each of them runs the core's suite and every plugin's suite once: the whole
suite (`all`: everything installed together, every suite and the top-level `tests/`) on the oldest
and the newest Python, and `core` (no plugin installed) and `plugin` (each plugin, skill pack and
documented example on its own, with only the core and the default plugins) on the Pythons between.
Regular installs run on 3.10 and 3.12, editable ones on 3.11 and 3.13, so both kinds of install are
exercised. `stress` (tests/stress, many CLI processes at once) runs on one Python. `bench` is not in
the default run.

uv creates the environments when it is installed (`pip install "nox[uv]"`): the matrix is about
forty environments, and uv builds them several times faster than pip. It never downloads an
interpreter here: the Pythons must be installed (pyenv on the project's machines).

Locally, sessions whose Python is not installed are skipped and listed at the end of the run; on
CI (`CI` set, where all four are installed) a missing interpreter is an error. `build` (not in the
default run) builds every released distribution's wheel and sdist into `dist/`.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nox

ROOT = Path(__file__).parent
os.environ.setdefault("UV_PYTHON_DOWNLOADS", "never")

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_existing_virtualenvs = False
# CI has every interpreter, so a missing one there is a broken image; a laptop may have only one.
ON_CI = os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no"}
nox.options.error_on_missing_interpreters = ON_CI
nox.options.sessions = ["lint", "typecheck", "core", "plugin", "all", "stress", "e2e", "docs", "minimums"]

PYTHONS = nox.project.python_versions(nox.project.load_toml(ROOT / "core" / "pyproject.toml"))
EDITABLE = {"3.11", "3.13"}
# The whole suite on the oldest and the newest Python; the core and each plugin alone on those
# between. Running everything on every Python repeated each suite twice per version (`all` runs the
# core's and every plugin's suite again) and took most of CI's time limit.
WHOLE = [PYTHONS[0], PYTHONS[-1]]
BETWEEN = PYTHONS[1:-1]
# The two long suites (core, all) run on every core; the short plugin suites would only pay the
# workers' start-up.
PARALLEL = ["-n", "auto"]


def _expose_pyenv_pythons() -> None:
    """Make pyenv's shims answer `python3.10` ... `python3.13` at once (they serve one version).

    `pyenv exec` (how `python3 -m nox` starts under pyenv) exports PYENV_VERSION as the single
    active version, so the versions nox needs are appended to whatever is there.
    """
    if not shutil.which("pyenv"):
        return

    def run(*args: str) -> str:
        return subprocess.run(["pyenv", *args], capture_output=True, text=True).stdout

    installed = run("versions", "--bare").split()
    current = os.environ.get("PYENV_VERSION") or run("version-name").strip()
    chosen = [v for v in current.split(":") if v]
    for minor in PYTHONS:
        matches = [v for v in installed if v.startswith(minor + ".") and v.replace(".", "").isdigit()]
        if matches:
            chosen.append(max(matches, key=lambda v: tuple(int(x) for x in v.split("."))))
    os.environ["PYENV_VERSION"] = ":".join(dict.fromkeys(chosen))


def _report_missing_pythons() -> None:
    """Say which interpreters are absent, at the end of the run where the summary is read."""
    missing = [v for v in PYTHONS if shutil.which(f"python{v}") is None]
    if not missing or ON_CI:
        return
    names = ", ".join(f"python{v}" for v in missing)

    def say() -> None:
        print(
            f"nox: {names} not installed here: the sessions that need them were SKIPPED (marked 'skipped'"
            " above); CI runs them. Install them (e.g. with pyenv) to run the whole matrix.",
            file=sys.stderr,
        )

    atexit.register(say)


_expose_pyenv_pythons()
_report_missing_pythons()
CORE = "core"
PLUGINS = sorted(str(p.parent.relative_to(ROOT)) for p in ROOT.glob("plugins/*/pyproject.toml"))
PACKS = sorted(str(p.parent.relative_to(ROOT)) for p in ROOT.glob("skills-examples/*/pyproject.toml"))
EXAMPLES = sorted(str(p.parent.relative_to(ROOT)) for p in ROOT.glob("docs/examples/*/pyproject.toml"))
DEFAULT_PLUGINS = [
    p
    for p in PLUGINS
    if p.rsplit("/", 1)[-1]
    in {
        "swarm-handoff-frontmatter",
        "swarm-handoff-registry",
        "swarm-handoff-formatters",
        "swarm-handoff-qr",
        "swarm-handoff-link",
    }
]
# Each plugin or pack is tested with the core and the default plugins it may rely on at run time.
EXTENSIONS = PLUGINS + PACKS + EXAMPLES


# Wheels of the local distributions, each built once per run (by uv) and installed by every session
# that installs that distribution regularly: a regular install is the install of the folder's wheel,
# and the plugin sessions alone rebuilt the same seven wheels each, over a hundred builds a run.
_WHEELS: dict[str, Path] = {}


def _wheel(session: nox.Session, path: str) -> Path:
    """The wheel of the distribution in `path`, built the first time a session asks for it."""
    if path not in _WHEELS:
        out = tempfile.mkdtemp(prefix="swarm-handoff-wheel-")
        atexit.register(shutil.rmtree, out, ignore_errors=True)
        build = ["uv", "build", "--quiet", "--wheel", "--python", str(Path(session.bin) / "python")]
        session.run(*build, "--out-dir", out, str(ROOT / path), external=True)
        (_WHEELS[path],) = Path(out).glob("*.whl")
    return _WHEELS[path]


def _install(session: nox.Session, *paths: str, editable: bool | None = None, extra: str = "test") -> None:
    """Install local distributions (with their `test` extra) in one resolver run."""
    editable = session.python in EDITABLE if editable is None else editable
    extras = f"[{extra}]" if extra else ""
    args: list[str] = []
    for path in paths:
        if editable:
            args += ["-e", f"./{path}{extras}"]
        elif session.venv_backend == "uv":
            wheel = _wheel(session, path)
            args.append(f"{wheel.name.split('-', 1)[0]}{extras} @ {wheel.as_uri()}")
        else:
            args.append(f"./{path}{extras}")
    session.install(*args)


def _tests(path: str) -> list[str]:
    return [str(t) for t in sorted((ROOT / path).glob("tests")) if t.is_dir()]


@nox.session(python=BETWEEN)
def core(session: nox.Session) -> None:
    """The core alone: it must work with no plugin installed."""
    _install(session, CORE)
    session.install("pytest-xdist>=3")
    session.run("pytest", *PARALLEL, "core/tests", *session.posargs)


@nox.session(python=BETWEEN)
@nox.parametrize("path", EXTENSIONS, ids=[p.rsplit("/", 1)[-1] for p in EXTENSIONS])
def plugin(session: nox.Session, path: str) -> None:
    """One plugin, skill pack or documented example with the core and the default plugins."""
    others = [p for p in DEFAULT_PLUGINS if p != path]
    _install(session, CORE, *others, path)
    session.run("pytest", *_tests(path), *session.posargs)


@nox.session(python=WHOLE)
def all(session: nox.Session) -> None:
    """Everything installed together: every suite, the core's included, and the top-level tests."""
    _install(session, CORE, *EXTENSIONS)
    session.install(".", "--no-deps")  # the meta-distribution itself; its dependencies are the folders above
    session.install("pytest-xdist>=3", "nox>=2024.4")  # nox: tests/test_ci_matrix.py reads this file's matrix
    suites = ["core/tests", *(t for p in EXTENSIONS for t in _tests(p)), "tests"]
    session.run("pytest", *PARALLEL, "-m", "not e2e and not stress", *suites, *session.posargs)


@nox.session(python=PYTHONS[-1])
def stress(session: nox.Session) -> None:
    """Many real CLI processes at once into one session and one history (tests/stress): nothing is lost."""
    _install(session, CORE, *DEFAULT_PLUGINS, *PACKS)
    session.run("pytest", "-m", "stress", "tests/stress", *session.posargs)


@nox.session(python="3.11")
def e2e(session: nox.Session) -> None:
    """Real venvs with plain `pip install`s from the repo, driving the `swarm-handoff` executable."""
    session.install("pytest>=7.4")
    session.run("pytest", "tests/e2e", *session.posargs)


@nox.session(python=PYTHONS[-1])
def lint(session: nox.Session) -> None:
    """ruff: lint rules and formatting, over every package."""
    session.install("ruff>=0.6")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(python=PYTHONS[0])
def typecheck(session: nox.Session) -> None:
    """mypy --strict over the source of every package, at the oldest supported Python."""
    _install(session, CORE, *EXTENSIONS, editable=False)
    session.install("mypy>=1.10")
    sources = [str(p) for p in sorted(ROOT.glob("*/src")) + sorted(ROOT.glob("*/*/src"))]
    session.run("mypy", "--strict", *sources)


@nox.session(python=PYTHONS[-1])
def docs(session: nox.Session) -> None:
    """Build the documentation site, failing on any warning (broken links, missing pages)."""
    session.install("mkdocs>=1.5")
    session.run("mkdocs", "build", "--strict", "--site-dir", str(ROOT / "site"))


@nox.session(python=PYTHONS[0])
def minimums(session: nox.Session) -> None:
    """The core and default plugins at the lowest dependency versions they declare."""
    if session.venv_backend != "uv":
        session.skip("needs uv for --resolution=lowest-direct")
    args = ["--resolution=lowest-direct"]
    for path in [CORE, *DEFAULT_PLUGINS]:
        args.append(f"./{path}[test]")
    session.install(*args)
    # One process, as before: spread over two workers at these versions, two tests failed (left for an issue).
    session.run("pytest", "core/tests", *(t for p in DEFAULT_PLUGINS for t in _tests(p)), *session.posargs)


@nox.session(python=PYTHONS[1], default=False)
def bench(session: nox.Session) -> None:
    """Benchmarks, side by side with their baselines; results go to bench/results/."""
    session.env["UV_COMPILE_BYTECODE"] = "1"  # .pyc files at install time, as pip gives users
    # bench/bench_a2a.py: hand-offs over A2A; bench_mcp_discover.py: `discover` over MCP beside the CLI's;
    # bench_router_speed.py and bench_mcp_route.py: `route`, which the router plugin brings, beside
    # plain BM25 (`rank --scorer bm25`), which the bm25 plugin brings
    wanted = ("/swarm-handoff-a2a", "/swarm-handoff-mcp", "/swarm-handoff-router", "/swarm-handoff-bm25")
    extra_plugins = [p for p in PLUGINS if p.endswith(wanted)]
    _install(session, CORE, *DEFAULT_PLUGINS, *PACKS, *extra_plugins, editable=False, extra="")
    session.install("ruamel.yaml.clib")  # the C parser, as the `fast` extra gives users
    session.install("skills-ref")
    for script in sorted((ROOT / "bench").glob("bench_*.py")):
        session.run("python", str(script), *session.posargs)


# What `build` releases: the core, the plugins, the example packs and the meta-distribution. The
# documented examples (docs/examples/*) are tutorials, tested but never published.
RELEASED = [CORE, *PLUGINS, *PACKS, "."]


@nox.session(python=PYTHONS[-1], default=False)
def build(session: nox.Session) -> None:
    """Wheels and sdists of every released distribution into dist/, checked with `twine check`."""
    uv = session.venv_backend == "uv"
    session.install("build[uv]>=1.2" if uv else "build>=1.2", "twine>=6.1")
    out = ROOT / "dist"
    shutil.rmtree(out, ignore_errors=True)  # only this release's files, so --find-links sees one version
    installer = ["--installer", "uv"] if uv else []
    for path in RELEASED:
        session.run("python", "-m", "build", *installer, "--outdir", str(out), str(ROOT / path))
    session.run("twine", "check", "--strict", *sorted(str(p) for p in out.iterdir()))
