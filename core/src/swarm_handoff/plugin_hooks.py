"""Call plugins' hooks the way the host does: quietly, once each, a failing one blamed and skipped.

A hook implementation is code someone else wrote. `call_hook` runs one under `quiet()` (its prints
kept off stdout) and reports a raise as PLUGIN_HOOK_FAILED against the plugin's distribution, so
every other plugin still registers. The host calls each registering hook itself, in load order,
so pluggy's ordering and wrapper options mean nothing here: `unhonoured` names them, `not_run`
says which implementations are left out, `option_problem` words the report. Checking what a hook
or component hands back is `plugin_checks.py`'s, above the records it checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from swarm_handoff.errors import ErrorCode
from swarm_handoff.isolation import quiet, short_error

if TYPE_CHECKING:
    from swarm_handoff.plugins import PluginHost


def call_hook(host: PluginHost, impl: Any, hook_name: str, kwargs: Mapping[str, Any]) -> bool:
    """Call one plugin's hook quietly; one that raises is reported (PLUGIN_HOOK_FAILED) so the rest still load."""
    try:
        with quiet():
            impl.function(**kwargs)
    except Exception as exc:
        dist, version = host.meta(impl.plugin_name)
        host.fail(
            impl.plugin_name,
            dist,
            version,
            ErrorCode.PLUGIN_HOOK_FAILED,
            f"{hook_name}: {short_error(exc)}",
            f"fix or uninstall {dist}",
        )
        return False
    return True


# pluggy options the host does not honour: it calls each plugin's registering hook itself, once,
# with a `register` of the plugin's own (so that each component names the plugin that offered it),
# in load order (so that a third party never takes a built-in's name first).
PLUGIN_HOOK_OPTION_UNSUPPORTED = "PLUGIN_HOOK_OPTION_UNSUPPORTED"
_UNHONOURED = ("wrapper", "hookwrapper", "historic", "tryfirst", "trylast")
_NOT_RUN = frozenset({"wrapper", "hookwrapper", "historic"})  # a wrapper called directly registers nothing


def unhonoured(impl: Any) -> tuple[str, ...]:
    """The options of a hook implementation that the host does not honour, in a stable order."""
    opts = getattr(impl, "opts", None) or {}
    return tuple(option for option in _UNHONOURED if opts.get(option))


def not_run(impl: Any) -> bool:
    """Say whether the host leaves this implementation out: a wrapper cannot register anything."""
    return not _NOT_RUN.isdisjoint(unhonoured(impl))


def option_problem(hook: str, options: tuple[str, ...]) -> tuple[str, str]:
    """The message and hint for an implementation marked with options the host does not honour."""
    marks = ", ".join(f"{option}=True" for option in options)
    if _NOT_RUN.isdisjoint(options):
        outcome = (
            "the host calls hooks in plugin load order (built-ins, then entry points by name): the option is ignored"
        )
    else:
        outcome = (
            "the host calls each plugin's hook once, directly, so a wrapper would register nothing: it is not called"
        )
    hint = f"remove {marks} from the @hookimpl of {hook} (see docs/plugins.md#hook-options)"
    return f"{hook} is marked {marks}; {outcome}", hint
