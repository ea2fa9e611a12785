"""Build the plugin host: load built-ins and entry points one by one, and collect named components.

Nothing here runs at import time. `get_host()` builds the host on first use and caches it;
`reset_host()` forgets it (tests, and the testing kit, call it). Each entry point is imported in its
own `try`, so one broken plugin is reported with its name, distribution, version and error, and
every other plugin and command keeps working. `SWARM_HANDOFF_STRICT_PLUGINS=1` turns any failure
into an error instead.
"""

from __future__ import annotations

import difflib
import importlib
import os
import re
import traceback
from collections.abc import Callable, Mapping
from typing import Any

import pluggy

from swarm_handoff import hookspecs
from swarm_handoff._version import __version__
from swarm_handoff.components import PROTOCOLS, Kind
from swarm_handoff.entrypoints import dist_of, entry_points
from swarm_handoff.errors import ErrorCode, Problem, Severity, SwarmError
from swarm_handoff.plugin_checks import PLUGIN_BAD_RESULT, quiet
from swarm_handoff.plugin_records import ComponentRef, LoadFailure, PluginInfo, PluginsReport, SkippedPlugin

ENTRY_POINT_GROUP = "swarm_handoff"
SKILLS_ENTRY_POINT_GROUP = "swarm_handoff.skills"
CORE_DISTRIBUTION = "swarm-handoff-core"

ENV_STRICT = "SWARM_HANDOFF_STRICT_PLUGINS"
ENV_DISABLE = "SWARM_HANDOFF_DISABLE_PLUGINS"
ENV_LOAD = "SWARM_HANDOFF_LOAD_PLUGINS"

# The core's own behaviour, loaded exactly like third-party plugins (llm's DEFAULT_PLUGINS idea).
DEFAULT_PLUGINS: tuple[tuple[str, str], ...] = (
    ("core-formatters", "swarm_handoff.builtin.formatters"),
    ("core-scorers", "swarm_handoff.builtin.scorers"),
    ("core-payloads", "swarm_handoff.builtin.payloads"),
    ("packs", "swarm_handoff.builtin.packs"),
)

# Which hook registers which kind, and the keyword names the hook receives.
_KIND_HOOKS: dict[Kind, tuple[str, str]] = {
    Kind.SOURCE: ("swarm_handoff_discovery_sources", "register"),
    Kind.SCORER: ("swarm_handoff_scorers", "register"),
    Kind.VALIDATOR: ("swarm_handoff_payload_validators", "register"),
    Kind.ADAPTER: ("swarm_handoff_payload_validators", "register_adapter"),
    Kind.FORMATTER: ("swarm_handoff_formatters", "register"),
    Kind.QR_GATE: ("swarm_handoff_qr_gates", "register"),
}
__all__ = [
    "ComponentRef",
    "LoadFailure",
    "PluginHost",
    "PluginInfo",
    "PluginsReport",
    "SkippedPlugin",
    "build_host",
    "get_host",
    "reset_host",
    "set_host",
]

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.>+-]*\Z")


def strict_requested(env: Mapping[str, str]) -> bool:
    """Say whether `SWARM_HANDOFF_STRICT_PLUGINS` asks for plugin failures to be errors."""
    return env.get(ENV_STRICT, "").strip().lower() in {"1", "true", "yes", "on"}


def env_list(value: str | None) -> frozenset[str] | None:
    """Parse a comma-separated allow or block list; None (unset) means no list at all."""
    if value is None:
        return None
    return frozenset(part.strip() for part in value.split(",") if part.strip())


def _short_error(exc: BaseException) -> str:
    last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    where = f" ({last[0].filename}:{last[0].lineno})" if last else ""
    return f"{type(exc).__name__}: {exc}{where}"


class PluginHost:
    """The typed facade over pluggy: call sites ask for components, never touch `pm.hook`."""

    def __init__(self, *, strict: bool = False) -> None:
        self.pm = pluggy.PluginManager(hookspecs.PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self.strict = strict
        self.plugins: list[PluginInfo] = []
        self.failures: list[LoadFailure] = []
        self.skipped: list[SkippedPlugin] = []
        self._order: dict[str, int] = {}
        self._meta: dict[str, tuple[str, str]] = {}
        self._components: dict[Kind, dict[str, ComponentRef]] = {}
        self._instances: dict[tuple[Kind, str], Any] = {}

    # -- loading -----------------------------------------------------------------------------

    def add_plugin(
        self,
        plugin: object,
        name: str,
        *,
        distribution: str = "unknown",
        version: str = "unknown",
        builtin: bool = False,
    ) -> bool:
        """Register one imported plugin, reporting (not raising) a hook mismatch or name clash."""
        if self.pm.has_plugin(name):
            other = self._meta.get(name, ("unknown", "unknown"))
            self._fail(
                name,
                distribution,
                version,
                ErrorCode.PLUGIN_NAME_CONFLICT,
                f"plugin name {name!r} is also registered by {other[0]} {other[1]}",
                "uninstall one of the two distributions, or rename one entry point",
            )
            return False
        try:
            self.pm.register(plugin, name=name)
        except pluggy.PluginValidationError as exc:
            self._fail(
                name,
                distribution,
                version,
                ErrorCode.PLUGIN_HOOK_MISMATCH,
                str(exc),
                "make the hook's arguments a subset of the spec's (see docs/hooks.md)",
            )
            return False
        except ValueError as exc:  # the same object under another name
            self._fail(name, distribution, version, ErrorCode.PLUGIN_NAME_CONFLICT, str(exc), "")
            return False
        unknown = sorted(c.name for c in self.pm.get_hookcallers(plugin) or () if c.spec is None)
        if unknown:
            self.pm.unregister(plugin)
            known = sorted(n for n in dir(hookspecs) if n.startswith(hookspecs.PROJECT + "_"))
            hints = []
            for bad in unknown:
                close = difflib.get_close_matches(bad, known, n=1)
                hints.append(f"{bad} -> {close[0]}" if close else f"{bad} -> (no such hook)")
            self._fail(
                name,
                distribution,
                version,
                ErrorCode.PLUGIN_HOOK_MISMATCH,
                f"unknown hook(s): {', '.join(unknown)}",
                "did you mean: " + "; ".join(hints),
            )
            return False
        hooks = tuple(sorted(c.name for c in self.pm.get_hookcallers(plugin) or ()))
        module = getattr(plugin, "__name__", type(plugin).__name__)
        self.plugins.append(PluginInfo(name, distribution, version, module, builtin, hooks))
        self._order[name] = len(self._order)
        self._meta[name] = (distribution, version)
        self._components.clear()
        self._instances.clear()
        return True

    def remove_plugin(self, name: str) -> None:
        """Unregister a plugin added earlier (the testing kit's throwaway plugins use this)."""
        plugin = self.pm.get_plugin(name)
        if plugin is not None:
            self.pm.unregister(plugin)
        self.plugins = [p for p in self.plugins if p.name != name]
        self._components.clear()
        self._instances.clear()

    def load_builtins(self) -> None:
        """Load the core's own plugins the same way as external ones."""
        for name, module_name in DEFAULT_PLUGINS:
            module = importlib.import_module(module_name)
            self.add_plugin(module, name, distribution=CORE_DISTRIBUTION, version=__version__, builtin=True)

    def load_entry_points(self, env: Mapping[str, str]) -> None:
        """Import each `swarm_handoff` entry point on its own, honouring the allow and block lists."""
        allow = env_list(env.get(ENV_LOAD))
        block = env_list(env.get(ENV_DISABLE)) or frozenset()
        seen: set[tuple[str, str]] = set()
        for ep in entry_points(ENTRY_POINT_GROUP):
            distribution, version = dist_of(ep)
            if (ep.name, ep.value) in seen:  # the same distribution twice on sys.path
                continue
            seen.add((ep.name, ep.value))
            if ep.name in block:
                self.pm.set_blocked(ep.name)
                self.skipped.append(SkippedPlugin(ep.name, distribution, version, f"blocked by {ENV_DISABLE}"))
                continue
            if allow is not None and ep.name not in allow:
                self.skipped.append(SkippedPlugin(ep.name, distribution, version, f"not in {ENV_LOAD}"))
                continue
            try:
                with quiet():  # a plugin that prints at import must not corrupt a JSON document
                    plugin = ep.load()
            except (Exception, SystemExit) as exc:
                self._fail(
                    ep.name,
                    distribution,
                    version,
                    ErrorCode.PLUGIN_IMPORT_FAILED,
                    _short_error(exc),
                    f"fix or uninstall {distribution}, or set {ENV_DISABLE}={ep.name}",
                )
                continue
            self.add_plugin(plugin, ep.name, distribution=distribution, version=version)

    def _fail(self, name: str, dist: str, version: str, code: ErrorCode | str, error: str, hint: str) -> None:
        failure = LoadFailure(name, dist, version, str(getattr(code, "value", code)), error, hint)
        if failure not in self.failures:  # the CLI hook runs again each time an app is built (tests)
            self.failures.append(failure)

    # -- components ----------------------------------------------------------------------------

    def components(self, kind: Kind) -> Mapping[str, ComponentRef]:
        """Return every component of `kind` by name, calling the registering hooks on first use."""
        if kind not in self._components:
            self._components[kind] = self._collect(kind)
            if self.strict:
                self.raise_if_failed()
        return self._components[kind]

    def _collect(self, kind: Kind) -> dict[str, ComponentRef]:
        hook_name, keyword = _KIND_HOOKS[kind]
        found: dict[str, ComponentRef] = {}
        impls = getattr(self.pm.hook, hook_name).get_hookimpls()
        for impl in sorted(impls, key=lambda i: self._order.get(i.plugin_name, 1 << 30)):
            dist, version = self._meta.get(impl.plugin_name, ("unknown", "unknown"))
            if keyword not in impl.argnames:
                continue

            def register(
                name: str,
                factory: Callable[[], Any],
                *,
                summary: str = "",
                _plugin: str = impl.plugin_name,
                _dist: str = dist,
                _ver: str = version,
            ) -> None:
                if not isinstance(name, str) or not _NAME_RE.match(name) or not callable(factory):
                    raise TypeError(
                        f"register() needs a name like 'my-scorer' and a callable factory, got {name!r}, {factory!r}"
                    )
                if name in found:
                    first = found[name]
                    self._fail(
                        _plugin,
                        _dist,
                        _ver,
                        ErrorCode.PLUGIN_NAME_CONFLICT,
                        f"{kind.value} {name!r} is registered by both {first.distribution} "
                        f"(plugin {first.plugin!r}) and {_dist} (plugin {_plugin!r}); "
                        f"keeping {first.distribution}'s",
                        f"uninstall one of them, or block one with {ENV_DISABLE}",
                    )
                    return
                found[name] = ComponentRef(kind, name, _plugin, _dist, summary, factory)

            kwargs = {arg: (register if arg == keyword else _ignore) for arg in impl.argnames}
            try:
                with quiet():
                    impl.function(**kwargs)
            except Exception as exc:
                self._fail(
                    impl.plugin_name,
                    dist,
                    version,
                    ErrorCode.PLUGIN_HOOK_FAILED,
                    f"{hook_name}: {_short_error(exc)}",
                    f"fix or uninstall {dist}",
                )
        return found

    def get(self, kind: Kind, name: str) -> Any:
        """Build (once) and return the component `name` of `kind`, or raise a structured error."""
        key = (kind, name)
        if key in self._instances:
            return self._instances[key]
        refs = self.components(kind)
        ref = refs.get(name)
        if ref is None:
            available = sorted(refs)
            raise SwarmError(
                ErrorCode.UNKNOWN_COMPONENT,
                f"no {kind.value} named {name!r}",
                details={"kind": kind.value, "name": name, "available": available},
                hint=f"choose one of: {', '.join(available) or '(none installed)'}",
            )
        try:
            with quiet():
                instance = ref.factory()
        except Exception as exc:
            raise SwarmError(
                ErrorCode.COMPONENT_FAILED,
                f"{kind.value} {name!r} from {ref.distribution} failed to build: {_short_error(exc)}",
                details={"kind": kind.value, "name": name, "distribution": ref.distribution},
                hint=f"fix or uninstall {ref.distribution}",
            ) from exc
        protocol = PROTOCOLS.get(kind)
        if protocol is not None and not isinstance(instance, protocol):
            raise SwarmError(
                ErrorCode.COMPONENT_FAILED,
                f"{kind.value} {name!r} from {ref.distribution} lacks the methods of {protocol.__name__}",
                details={"kind": kind.value, "name": name, "distribution": ref.distribution},
                hint="see docs/hooks.md for what each kind must provide",
            )
        self._instances[key] = instance
        return instance

    def blame(
        self, kind: Kind, name: str, what: str, *, outcome: str, severity: Severity = Severity.WARNING
    ) -> Problem:
        """Blame component `name` for a value its protocol forbids: recorded, and fatal in strict mode.

        The failure joins `failures` (so `plugins` lists it and strict mode raises PLUGINS_STRICT);
        the returned problem names the plugin and distribution for the command's own document.
        """
        ref = self.components(kind).get(name)
        plugin = ref.plugin if ref is not None else name
        dist, version = self._meta.get(plugin, (ref.distribution if ref is not None else "unknown", "unknown"))
        hint = (
            f"fix or uninstall {dist}, or block it with {ENV_DISABLE}={plugin}; "
            f"docs/hooks.md says what a {kind.value} returns"
        )
        self._fail(plugin, dist, version, PLUGIN_BAD_RESULT, f"{kind.value} {name!r} {what}", hint)
        if self.strict:
            self.raise_if_failed()
        message = f"{kind.value} {name!r} from plugin {plugin!r} ({dist} {version}) {what}; {outcome}"
        return Problem(PLUGIN_BAD_RESULT, message, hint=hint, severity=severity)

    def extend_cli(self, app: object) -> None:
        """Let each plugin add commands to `app`; a raising hook or a taken name is reported."""
        for impl in sorted(
            self.pm.hook.swarm_handoff_cli.get_hookimpls(), key=lambda i: self._order.get(i.plugin_name, 1 << 30)
        ):
            dist, version = self._meta.get(impl.plugin_name, ("unknown", "unknown"))
            before = {kind: list(entries) for kind, entries in _cli_entries(app).items()}
            taken = {_cli_name(entry) for entries in before.values() for entry in entries}
            try:
                with quiet():
                    impl.function(**{arg: app if arg == "app" else None for arg in impl.argnames})
            except Exception as exc:
                self._restore_cli(app, before)
                self._fail(
                    impl.plugin_name,
                    dist,
                    version,
                    ErrorCode.PLUGIN_HOOK_FAILED,
                    f"swarm_handoff_cli: {_short_error(exc)}",
                    f"fix or uninstall {dist}",
                )
                continue
            for kind, entries in _cli_entries(app).items():
                for entry in entries[len(before[kind]) :]:
                    name = _cli_name(entry)
                    if name in taken:
                        entries.remove(entry)
                        self._fail(
                            impl.plugin_name,
                            dist,
                            version,
                            ErrorCode.PLUGIN_NAME_CONFLICT,
                            f"command {name!r} is already provided; the plugin's command was dropped",
                            f"rename the command in {dist}",
                        )
                    taken.add(name)

    @staticmethod
    def _restore_cli(app: object, before: dict[str, list[Any]]) -> None:
        for kind, entries in _cli_entries(app).items():
            entries[:] = before[kind]

    # -- reporting -----------------------------------------------------------------------------

    def collect_all(self) -> None:
        """Call every registering hook now, so that every conflict and failure is known."""
        for kind in _KIND_HOOKS:
            self.components(kind)

    def report(self) -> PluginsReport:
        """Describe everything loaded, provided, skipped and failed."""
        self.collect_all()
        refs = tuple(ref for kind in _KIND_HOOKS for ref in self._components[kind].values())
        return PluginsReport(__version__, tuple(self.plugins), refs, tuple(self.failures), tuple(self.skipped))

    def raise_if_failed(self) -> None:
        """In strict mode, turn the load failures into one error that names every failed plugin."""
        if not self.failures:
            return
        names = sorted({f.name for f in self.failures})
        raise SwarmError(
            ErrorCode.PLUGINS_STRICT,
            f"{len(self.failures)} plugin problem(s) with {ENV_STRICT}=1: {', '.join(names)}",
            details={"failures": [f.to_data() for f in self.failures]},
            hint=f"fix the plugins, or unset {ENV_STRICT} to skip them with a warning",
            recoverable=True,
        )


def _cli_entries(app: object) -> dict[str, list[Any]]:
    """The typer app's command and group lists (duck-typed: this module never imports typer)."""
    return {kind: getattr(app, kind) for kind in ("registered_commands", "registered_groups") if hasattr(app, kind)}


def _cli_name(entry: Any) -> str:
    name = getattr(entry, "name", None)
    if name:
        return str(name)
    callback = getattr(entry, "callback", None) or getattr(getattr(entry, "typer_instance", None), "info", None)
    return str(getattr(callback, "__name__", "")).replace("_", "-")


def _ignore(*_args: Any, **_kwargs: Any) -> None:
    """Stand in for the `register` callables a plugin asked for but that this collection ignores."""


def build_host(env: Mapping[str, str] | None = None, *, builtins: bool = True) -> PluginHost:
    """Build a fresh host from the environment's allow/block/strict settings."""
    env = os.environ if env is None else env
    strict = strict_requested(env)
    host = PluginHost(strict=strict)
    if builtins:
        host.load_builtins()
    host.load_entry_points(env)
    if strict:
        host.collect_all()
        host.raise_if_failed()
    return host


_HOST: PluginHost | None = None


def get_host() -> PluginHost:
    """Return the process-wide host, building it on first use."""
    global _HOST
    if _HOST is None:
        _HOST = build_host()
    return _HOST


def set_host(host: PluginHost | None) -> None:
    """Install `host` as the process-wide one (the testing kit isolates tests with it)."""
    global _HOST
    _HOST = host


def reset_host() -> None:
    """Forget the cached host so the next `get_host()` reads the environment again."""
    set_host(None)
