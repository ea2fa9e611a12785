"""The testing kit's plugin host: isolated hosts, throwaway plugins, sources and distributions, the CLI on them."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import pytest

from swarm_handoff import plugins as _plugins
from swarm_handoff.cli.app import build_app
from swarm_handoff.cli.completion import completer
from swarm_handoff.hookspecs import hookimpl
from swarm_handoff.packs import ENV_DISABLE_PACKS, ENV_LOAD_PACKS
from swarm_handoff.records import SourceResult
from swarm_handoff.workflow.registry import reset_registry

if TYPE_CHECKING:
    from swarm_handoff.records import SkillRecord
    from swarm_handoff.scopes import ScopeSpec


@pytest.fixture
def make_swarm_host(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., _plugins.PluginHost]]:
    """Return `make(load=(...), packs=(...), strict=False)`: a host seeing only the named entry points.

    `load` names plugins (group `swarm_handoff`), `packs` names skill packs (group
    `swarm_handoff.skills`); whatever else is installed stays invisible to the test.
    """

    def make(
        load: Sequence[str] = (), *, packs: Sequence[str] = (), strict: bool = False, disable: Sequence[str] = ()
    ) -> _plugins.PluginHost:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SWARM_HANDOFF_")}
        env[_plugins.ENV_LOAD] = ",".join(load)
        env[ENV_LOAD_PACKS] = ",".join(packs)
        if disable:
            env[_plugins.ENV_DISABLE] = ",".join(disable)
        if strict:
            env[_plugins.ENV_STRICT] = "1"
        for key in (_plugins.ENV_LOAD, _plugins.ENV_DISABLE, _plugins.ENV_STRICT, ENV_LOAD_PACKS, ENV_DISABLE_PACKS):
            if key in env:
                monkeypatch.setenv(key, env[key])
            else:
                monkeypatch.delenv(key, raising=False)
        reset_registry()
        host = _plugins.build_host(os.environ)  # live: a pack a test installs later is admitted (`_allow_packs`)
        _plugins.set_host(host)
        return host

    yield make
    _plugins.reset_host()
    reset_registry()


@pytest.fixture
def swarm_host(make_swarm_host: Callable[..., _plugins.PluginHost]) -> _plugins.PluginHost:
    """A host with the core's built-ins only: installed plugins never leak into the test."""
    return make_swarm_host(())


@pytest.fixture
def register_plugin(swarm_host: _plugins.PluginHost) -> Iterator[Callable[..., bool]]:
    """Return `register(plugin, name=None) -> bool`; every plugin added is removed after the test."""
    added: list[str] = []

    def register(
        plugin: object, name: str | None = None, *, distribution: str = "test-plugin", version: str = "0"
    ) -> bool:
        plugin_name = name or f"test-plugin-{len(added)}"
        ok = swarm_host.add_plugin(plugin, plugin_name, distribution=distribution, version=version)
        if ok:
            added.append(plugin_name)
        return ok

    try:
        yield register
    finally:
        for plugin_name in added:
            swarm_host.remove_plugin(plugin_name)


@pytest.fixture
def register_source(register_plugin: Callable[..., bool]) -> Callable[..., None]:
    """Return `register_source(name, records, *, scopes=(), priority=1)`: a throwaway source answering `records`.

    `records` is a sequence of `SkillRecord`, or a callable returning one (called on every
    discovery: a record of a scope the source declares can only be made once it is declared).
    With `scopes` (`ScopeSpec`s) the source declares them, as a plugin's source does; without,
    it runs at `priority`. Removed after the test, with the plugin that registered it.
    """

    def register(
        name: str,
        records: Sequence[SkillRecord] | Callable[[], Sequence[SkillRecord]],
        *,
        scopes: Sequence[ScopeSpec] = (),
        priority: float = 1,
    ) -> None:
        def discover(self: object, context: object) -> SourceResult:
            found = tuple(records() if callable(records) else records)
            return SourceResult(records=found, scanned=len(found))

        # A source declares its scopes or, a legacy one, its priority: never both (one ordering).
        order: dict[str, object] = {"scopes": tuple(scopes)} if scopes else {"priority": priority}
        source = type("Source", (), {"discover": discover, **order})

        class Plugin:
            @hookimpl
            def swarm_handoff_discovery_sources(self, register: Callable[..., None]) -> None:
                register(name, source)

        register_plugin(Plugin(), name)

    return register


@attrs.define
class CliResult:
    """What one CLI run produced: exit code, stdout, stderr, and stdout parsed as JSON on demand."""

    exit_code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        """Parse stdout as the single JSON document a `--format json` command prints."""
        return json.loads(self.stdout)


@pytest.fixture
def swarm_cli() -> Callable[..., CliResult]:
    """Return `run(*args, env=None, input=None) -> CliResult`, running the CLI in-process.

    The CLI uses the current host: combine with `swarm_host` or `make_swarm_host` to choose it.
    """

    def run(*args: str, env: Mapping[str, str] | None = None, input: str | None = None) -> CliResult:
        import contextlib
        import io

        from typer.testing import CliRunner

        try:  # click < 8.2 mixes stderr into stdout unless told not to; 8.2 removed the flag
            runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
        except TypeError:
            runner = CliRunner()
        # Building the app loads the plugins (their commands join it): what they print then is the run's too.
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            app = build_app(complete=completer)
        result = runner.invoke(app, list(args), env=dict(env or {}), input=input, catch_exceptions=False)
        return CliResult(result.exit_code, out.getvalue() + result.stdout, err.getvalue() + result.stderr)

    return run


@attrs.define
class FakeDistributions:
    """Installs throwaway distributions (modules plus entry points) on `sys.path` for one test."""

    root: Path
    monkeypatch: pytest.MonkeyPatch
    modules: list[str] = attrs.field(factory=list)

    def install(
        self,
        name: str,
        *,
        version: str = "1.0",
        entry_points: Mapping[str, Mapping[str, str]] | None = None,
        modules: Mapping[str, str] | None = None,
        files: Mapping[str, str] | None = None,
    ) -> Path:
        """Write a distribution named `name` that importlib.metadata finds like a pip-installed one."""
        import importlib
        import textwrap

        site = self.root / f"site-{len(self.modules)}-{name}"
        site.mkdir(parents=True)
        for module, source in (modules or {}).items():
            target = site / (module.replace(".", "/") + ".py")
            target.parent.mkdir(parents=True, exist_ok=True)
            for parent in target.relative_to(site).parents:
                if str(parent) != ".":
                    (site / parent / "__init__.py").touch()
            target.write_text(textwrap.dedent(source), encoding="utf-8")
            self.modules.append(module)
        for relative, text in (files or {}).items():
            path = site / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        info = site / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        lines = []
        for group, eps in (entry_points or {}).items():
            lines.append(f"[{group}]")
            lines.extend(f"{ep_name} = {value}" for ep_name, value in eps.items())
        (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
        self.monkeypatch.syspath_prepend(str(site))
        importlib.invalidate_caches()
        self._allow_packs((entry_points or {}).get(_plugins.SKILLS_ENTRY_POINT_GROUP, {}))
        return site

    def _allow_packs(self, names: Mapping[str, str]) -> None:
        """A test sees the skill packs it installs, even under an allow-list that hides the rest."""
        # The packs' allow list is SWARM_HANDOFF_LOAD_PACKS, or else SWARM_HANDOFF_LOAD_PLUGINS (`loader.PACKS`).
        allow_var = ENV_LOAD_PACKS if ENV_LOAD_PACKS in os.environ else _plugins.ENV_LOAD
        allowed = _plugins.env_list(os.environ.get(allow_var))
        if names and allowed is not None:
            self.monkeypatch.setenv(allow_var, ",".join(sorted(allowed | set(names))))

    def cleanup(self) -> None:
        """Forget the modules the fake distributions brought, so later tests import afresh."""
        import sys

        for module in self.modules:
            for loaded in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
                del sys.modules[loaded]


@pytest.fixture
def fake_distributions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDistributions]:
    """Install throwaway distributions with entry points (plugins, skill packs) for one test."""
    fakes = FakeDistributions(tmp_path / "fake-site-packages", monkeypatch)
    try:
        yield fakes
    finally:
        fakes.cleanup()
