"""Let plugins add commands to the typer app, one plugin at a time, without taking a name twice.

Split from the host (`plugins.py`) so that the loader stays one room; this module never imports
typer: the app's command lists are reached duck-typed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from swarm_handoff.errors import ErrorCode
from swarm_handoff.isolation import quiet, short_error
from swarm_handoff.plugin_hooks import not_run

if TYPE_CHECKING:
    from swarm_handoff.plugins import PluginHost


def extend_cli(host: PluginHost, app: object) -> None:
    """Let each plugin add commands to `app`; a raising hook or a taken name is reported."""
    for impl in host.impls("swarm_handoff_cli"):
        if not_run(impl):  # reported when the plugin was added
            continue
        dist, version = host.meta(impl.plugin_name)
        before = {kind: list(entries) for kind, entries in _cli_entries(app).items()}
        taken = {_cli_name(entry) for entries in before.values() for entry in entries}
        try:
            with quiet():
                impl.function(**{arg: app if arg == "app" else None for arg in impl.argnames})
        except Exception as exc:
            for kind, entries in _cli_entries(app).items():
                entries[:] = before[kind]
            host.fail(
                impl.plugin_name,
                dist,
                version,
                ErrorCode.PLUGIN_HOOK_FAILED,
                f"swarm_handoff_cli: {short_error(exc)}",
                f"fix or uninstall {dist}",
            )
            continue
        for kind, entries in _cli_entries(app).items():
            for entry in entries[len(before[kind]) :]:
                name = _cli_name(entry)
                if name in taken:
                    entries.remove(entry)
                    host.fail(
                        impl.plugin_name,
                        dist,
                        version,
                        ErrorCode.PLUGIN_NAME_CONFLICT,
                        f"command {name!r} is already provided; the plugin's command was dropped",
                        f"rename the command in {dist}",
                    )
                taken.add(name)


def _cli_entries(app: object) -> dict[str, list[Any]]:
    """The typer app's command and group lists (duck-typed: this module never imports typer)."""
    return {kind: getattr(app, kind) for kind in ("registered_commands", "registered_groups") if hasattr(app, kind)}


def _cli_name(entry: Any) -> str:
    name = getattr(entry, "name", None)
    if name:
        return str(name)
    callback = getattr(entry, "callback", None) or getattr(getattr(entry, "typer_instance", None), "info", None)
    return str(getattr(callback, "__name__", "")).replace("_", "-")
