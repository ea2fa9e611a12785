"""Collect the components of one kind: call each plugin's registering hook with its own `register`.

Split from the host (`plugins.py`): the host calls each implementation itself, in plugin load
order, so that every component names the plugin that offered it and a name taken first (a
built-in's) is kept, the later one reported as a conflict; a name this project's own distributions
register (`RESERVED`: each name for its own distribution) is kept for it even when another
distribution loaded first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from swarm_handoff.components import Kind
from swarm_handoff.errors import ErrorCode
from swarm_handoff.loader import ENV_DISABLE
from swarm_handoff.plugin_hooks import call_hook, not_run
from swarm_handoff.plugin_records import ComponentRef

if TYPE_CHECKING:
    from swarm_handoff.plugins import PluginHost

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.>+-]*\Z")
# The distributions of this project: a name one of them registers is never taken by another
# distribution, whatever the load order (entry points load by name, so "aaa" came before "frontmatter").
FIRST_PARTY = frozenset(
    {
        "swarm-handoff-core",
        "swarm-handoff-agents",
        "swarm-handoff-authoring",
        "swarm-handoff-bm25",
        "swarm-handoff-formatters",
        "swarm-handoff-frontmatter",
        "swarm-handoff-link",
        "swarm-handoff-mcp",
        "swarm-handoff-qr",
        "swarm-handoff-registry",
        "swarm-handoff-router",
    }
)


# Each name a swarm-handoff distribution registers, and which one: the name is kept for that
# distribution alone (its normalised name, exactly). A package merely named like another of ours
# (`swarm_handoff.QR` normalises to swarm-handoff-qr) does not get `frontmatter`.
# plugins/swarm-handoff-frontmatter/tests/test_name_conflict.py checks this table against what each
# distribution registers.
RESERVED: Mapping[str, str] = {
    **dict.fromkeys(("agents-skills", "claude-nested", "claude-plugins", "skill-roots"), "swarm-handoff-agents"),
    "bm25": "swarm-handoff-bm25",
    "xml": "swarm-handoff-formatters",
    "frontmatter": "swarm-handoff-frontmatter",
    "default": "swarm-handoff-qr",
    "registry": "swarm-handoff-registry",
    "router": "swarm-handoff-router",
    **dict.fromkeys(
        (
            "json",
            "yaml",
            "text",
            "swarm-v2",
            "registry-v3",
            "packs",
            "2.0->3.0",
            "3.0->2.0",
            "v2-schema",
            "v2-rules",
            "v3-schema",
            "v3-rules",
        ),
        "swarm-handoff-core",
    ),
}


def normalised(distribution: str) -> str:
    """A distribution name as packaging normalises it (`Swarm_Handoff.QR` -> `swarm-handoff-qr`)."""
    return re.sub(r"[-_.]+", "-", distribution).lower()


def first_party(distribution: str) -> bool:
    """Whether `distribution` is named as one of this project's own (names compared as packaging normalises them)."""
    return normalised(distribution) in FIRST_PARTY


def owns(distribution: str, name: str) -> bool:
    """Whether `name` is reserved for `distribution` (see RESERVED)."""
    return RESERVED.get(name) == normalised(distribution)


def collect(host: PluginHost, kind: Kind, hook_name: str, keyword: str) -> dict[str, ComponentRef]:
    """Call each plugin's registering hook for `kind` with a `register` of its own, in load order."""
    found: dict[str, ComponentRef] = {}
    for impl in host.impls(hook_name):
        dist, version = host.meta(impl.plugin_name)
        if keyword not in impl.argnames or not_run(impl):  # a wrapper was reported when added
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
            if name in found and owns(_dist, name) and not owns(found[name].distribution, name):
                taken = found[name]  # another distribution came first: the name's own one keeps it
                other_version = host.meta(taken.plugin)[1]
                host.fail(
                    taken.plugin,
                    taken.distribution,
                    other_version,
                    ErrorCode.PLUGIN_NAME_CONFLICT,
                    f"{kind.value} {name!r} is registered by both {_dist} (plugin {_plugin!r}) and "
                    f"{taken.distribution} (plugin {taken.plugin!r}); keeping {_dist}'s: a name a "
                    "swarm-handoff distribution registers is never replaced",
                    f"rename the {kind.value} in {taken.distribution}, or block it with {ENV_DISABLE}={taken.plugin}",
                )
                found[name] = ComponentRef(kind, name, _plugin, _dist, summary, factory)
                return
            if name in found:
                first = found[name]
                host.fail(
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

        call_hook(host, impl, hook_name, {arg: (register if arg == keyword else _ignore) for arg in impl.argnames})
    return found


def _ignore(*_args: Any, **_kwargs: Any) -> None:
    """Stand in for the `register` callables a plugin asked for but that this collection ignores."""
