"""Build the plugin host: load built-ins and entry points one by one, and collect named components.

Nothing here runs at import time. `get_host()` builds the host on first use and caches it;
`reset_host()` forgets it (tests, and the testing kit, call it). Each entry point is imported in its
own `try`, so one broken plugin is reported with its name, distribution, version and error, and
every other plugin and command keeps working. `SWARM_HANDOFF_STRICT_PLUGINS=1` turns any failure
into an error instead.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator, Mapping
from typing import Any

import pluggy

from swarm_handoff import __version__, hookspecs
from swarm_handoff.components import PROTOCOLS, Kind, ScopedSource
from swarm_handoff.entrypoints import entry_points
from swarm_handoff.errors import ErrorCode, Problem, Severity, SwarmError
from swarm_handoff.isolation import quiet, short_error
from swarm_handoff.loader import ENTRY_POINT_GROUP as ENTRY_POINT_GROUP
from swarm_handoff.loader import ENV_DISABLE as ENV_DISABLE
from swarm_handoff.loader import ENV_LOAD as ENV_LOAD
from swarm_handoff.loader import ENV_STRICT as ENV_STRICT
from swarm_handoff.loader import PLUGINS, failure, load_one, select
from swarm_handoff.loader import SKILLS_ENTRY_POINT_GROUP as SKILLS_ENTRY_POINT_GROUP
from swarm_handoff.loader import env_list as env_list
from swarm_handoff.loader import strict_requested as strict_requested
from swarm_handoff.operation_table import CORE_GROUPS, CORE_OPERATIONS
from swarm_handoff.plugin_checks import PLUGIN_BAD_RESULT
from swarm_handoff.plugin_cli import extend_cli
from swarm_handoff.plugin_collect import collect
from swarm_handoff.plugin_hooks import PLUGIN_HOOK_OPTION_UNSUPPORTED, option_problem, unhonoured
from swarm_handoff.plugin_operations import PluginOperations, collect_operations
from swarm_handoff.plugin_records import (
    ComponentRef,
    LoadFailure,
    PackSkill,
    PluginInfo,
    PluginsReport,
    SkippedPlugin,
)
from swarm_handoff.scopes import SCOPE_INVALID, ScopeSpec, declare, specs_of
from swarm_handoff.termsafe import quoted  # `\xNN` for a byte the command line could not decode

CORE_DISTRIBUTION = "swarm-handoff-core"

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
    Kind.TRANSPORT: ("swarm_handoff_transports", "register"),
}
__all__ = [
    "ComponentRef",
    "LoadFailure",
    "PackSkill",
    "PluginHost",
    "PluginInfo",
    "PluginsReport",
    "SkippedPlugin",
    "build_host",
    "get_host",
    "reset_host",
    "set_host",
]


class PluginHost:
    """The typed facade over pluggy: call sites ask for components, never touch `pm.hook`."""

    def __init__(self, *, strict: bool = False, env: Mapping[str, str] | None = None) -> None:
        self.pm = pluggy.PluginManager(hookspecs.PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self.strict = strict
        # The controls for plugins and packs alike (live `os.environ` unless a test gave its own).
        self.env: Mapping[str, str] = os.environ if env is None else env
        self.plugins: list[PluginInfo] = []
        self.failures: list[LoadFailure] = []
        self.skipped: list[SkippedPlugin] = []
        self._operations: PluginOperations | None = None
        self.pack_failures: list[LoadFailure] = []  # known once packs are reported (`report`, strict mode)
        self._scope_owners: dict[str, tuple[str, ScopeSpec]] = {}  # who declared each scope first
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
            self.fail(
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
            self.fail(
                name,
                distribution,
                version,
                ErrorCode.PLUGIN_HOOK_MISMATCH,
                str(exc),
                "make the hook's arguments a subset of the spec's (see docs/hooks.md)",
            )
            return False
        except ValueError as exc:  # the same object under another name
            self.fail(name, distribution, version, ErrorCode.PLUGIN_NAME_CONFLICT, str(exc), "")
            return False
        unknown = sorted(c.name for c in self.pm.get_hookcallers(plugin) or () if c.spec is None)
        if unknown:
            self.pm.unregister(plugin)
            known = sorted(n for n in dir(hookspecs) if n.startswith(hookspecs.PROJECT + "_"))
            hints = []
            for bad in unknown:
                import difflib  # deferred: only a misspelt name pays for it

                close = difflib.get_close_matches(bad, known, n=1)
                hints.append(f"{bad} -> {close[0]}" if close else f"{bad} -> (no such hook)")
            self.fail(
                name,
                distribution,
                version,
                ErrorCode.PLUGIN_HOOK_MISMATCH,
                f"unknown hook(s): {', '.join(unknown)}",
                "did you mean: " + "; ".join(hints),
            )
            return False
        for caller in self.pm.get_hookcallers(plugin) or ():
            for impl in caller.get_hookimpls():
                options = unhonoured(impl) if impl.plugin is plugin else ()
                if options:
                    message, hint = option_problem(caller.name, options)
                    self.fail(name, distribution, version, PLUGIN_HOOK_OPTION_UNSUPPORTED, message, hint)
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
        """Import each admitted `swarm_handoff` entry point on its own (the one loader, `loader.py`)."""
        self.env = env
        candidates, skipped = select(PLUGINS, env, entry_points(PLUGINS.name))
        for skip in skipped:
            if skip.reason.startswith("blocked"):
                self.pm.set_blocked(skip.name)
        self.skipped.extend(skipped)
        for candidate in candidates:
            plugin, exc = load_one(candidate)
            if exc is not None:
                self.failures.append(failure(PLUGINS, candidate, exc, code=ErrorCode.PLUGIN_IMPORT_FAILED.value))
                continue
            self.add_plugin(plugin, candidate.name, distribution=candidate.distribution, version=candidate.version)

    def fail(self, name: str, dist: str, version: str, code: ErrorCode | str, error: str, hint: str) -> None:
        """Record one plugin problem once (collections run again each time an app is built)."""
        failure = LoadFailure(name, dist, version, str(getattr(code, "value", code)), error, hint)
        if failure not in self.failures:  # the CLI hook runs again each time an app is built (tests)
            self.failures.append(failure)

    def meta(self, plugin: str) -> tuple[str, str]:
        """The distribution and version of a loaded plugin."""
        return self._meta.get(plugin, ("unknown", "unknown"))

    def impls(self, hook_name: str) -> Iterator[Any]:
        """The hook's implementations in plugin load order (built-ins first, then entry points by name)."""
        impls = getattr(self.pm.hook, hook_name).get_hookimpls()
        return iter(sorted(impls, key=lambda i: self._order.get(i.plugin_name, 1 << 30)))

    # -- components ----------------------------------------------------------------------------

    def components(self, kind: Kind) -> Mapping[str, ComponentRef]:
        """Return every component of `kind` by name, calling the registering hooks on first use."""
        if kind not in self._components:
            self._components[kind] = collect(self, kind, *_KIND_HOOKS[kind])
            if self.strict:
                self.raise_if_failed()
        return self._components[kind]

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
                f"no {kind.value} named {quoted(name)}",
                details={"kind": kind.value, "name": name, "available": available},
                hint=f"choose one of: {', '.join(available) or '(none installed)'}",
            )
        try:
            _BUILDING.append(self)
            with quiet():
                instance = ref.factory()
        except Exception as exc:
            raise SwarmError(
                ErrorCode.COMPONENT_FAILED,
                f"{kind.value} {name!r} from {ref.distribution} failed to build: {short_error(exc)}",
                details={"kind": kind.value, "name": name, "distribution": ref.distribution},
                hint=f"fix or uninstall {ref.distribution}",
            ) from exc
        finally:
            _BUILDING.pop()
        protocol = PROTOCOLS.get(kind)
        # A source that declares its scopes needs no bare `priority` (one ordering: the scopes').
        scoped = kind is Kind.SOURCE and isinstance(instance, ScopedSource)
        if protocol is not None and not isinstance(instance, protocol) and not scoped:
            raise SwarmError(
                ErrorCode.COMPONENT_FAILED,
                f"{kind.value} {name!r} from {ref.distribution} lacks the methods of {protocol.__name__}",
                details={"kind": kind.value, "name": name, "distribution": ref.distribution},
                hint="see docs/hooks.md for what each kind must provide",
            )
        if kind is Kind.SOURCE:
            self._declare_scopes(ref, instance)
        self._instances[key] = instance
        return instance

    def _declare_scopes(self, ref: ComponentRef, source: object) -> None:
        """Apply a source's scope declarations; a bad or conflicting one is a plugin problem, not a crash."""
        dist, version = self._meta.get(ref.plugin, (ref.distribution, "unknown"))
        try:
            specs = specs_of(source)
        except TypeError as exc:
            self.fail(ref.plugin, dist, version, SCOPE_INVALID, f"source {ref.name!r}: {exc}", "see docs/plugins.md")
            specs = None
        for refusal in declare(self._scope_owners, ref.name, specs or ()):
            self.fail(ref.plugin, dist, version, refusal.code, refusal.message, refusal.hint)
        if self.strict:
            self.raise_if_failed()

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
        self.fail(plugin, dist, version, PLUGIN_BAD_RESULT, f"{kind.value} {name!r} {what}", hint)
        if self.strict:
            self.raise_if_failed()
        message = f"{kind.value} {name!r} from plugin {plugin!r} ({dist} {version}) {what}; {outcome}"
        return Problem(PLUGIN_BAD_RESULT, message, hint=hint, severity=severity)

    def operations(self) -> PluginOperations:
        """The operations plugins declare (`swarm_handoff_operations`), collected once; conflicts reported."""
        if self._operations is None:
            self._operations = collect_operations(self, CORE_OPERATIONS, CORE_GROUPS)
            if self.strict:
                self.raise_if_failed()
        return self._operations

    def extend_cli(self, app: object) -> None:
        """Let each plugin add commands to `app`; a raising hook or a taken name is reported."""
        extend_cli(self, app)

    # -- reporting -----------------------------------------------------------------------------

    def collect_all(self) -> None:
        """Call every registering hook now, so that every conflict and failure is known."""
        for kind in _KIND_HOOKS:
            self.components(kind)

    def packs(self) -> tuple[list[PackSkill], list[SkippedPlugin]]:
        """Load the skill packs the same way as plugins and say what each provides; failures join `pack_failures`."""
        from swarm_handoff.pack_entries import report  # the pack loader: the host builds without it

        skills, failures, skipped = report(self.env, entry_points(SKILLS_ENTRY_POINT_GROUP))
        self.pack_failures = failures
        return skills, skipped

    def report(self) -> PluginsReport:
        """Describe every plugin and pack loaded, provided, skipped and failed."""
        self.collect_all()
        skills, skipped = self.packs()
        refs = tuple(ref for kind in _KIND_HOOKS for ref in self._components[kind].values())
        failures = (*self.failures, *self.pack_failures)
        return PluginsReport(__version__, tuple(self.plugins), refs, failures, (*self.skipped, *skipped), tuple(skills))

    def raise_if_failed(self) -> None:
        """In strict mode, turn the load failures into one error that names every failed plugin or pack."""
        failures = [*self.failures, *self.pack_failures]
        if not failures:
            return
        names = sorted({f.name for f in failures})
        raise SwarmError(
            ErrorCode.PLUGINS_STRICT,
            f"{len(failures)} plugin problem(s) with {ENV_STRICT}=1: {', '.join(names)}",
            details={"failures": [f.to_data() for f in failures]},
            hint=f"fix the plugins, or unset {ENV_STRICT} to skip them with a warning",
            recoverable=True,
        )


def build_host(env: Mapping[str, str] | None = None, *, builtins: bool = True) -> PluginHost:
    """Build a fresh host from the environment's allow/block/strict settings."""
    env = os.environ if env is None else env
    strict = strict_requested(env)
    host = PluginHost(strict=strict, env=env)
    if builtins:
        host.load_builtins()
    host.load_entry_points(env)
    if strict:
        host.collect_all()
        host.packs()  # a broken skill pack fails a strict run as a broken plugin does
        host.raise_if_failed()
    return host


_HOST: PluginHost | None = None
_BUILDING: list[PluginHost] = []  # the host whose `get` is building a component right now


def building_host() -> PluginHost | None:
    """The host building the current component: a factory binds to it (the `packs` source reads its controls)."""
    return _BUILDING[-1] if _BUILDING else None


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
