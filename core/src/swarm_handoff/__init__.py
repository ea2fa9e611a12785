"""swarm-handoff: discover, rank and hand off work between agent skills.

Importing this package is cheap on purpose: it imports no third-party module, loads no plugin and
reads no file, so that the CLI can answer a repeated `discover` before importing anything heavy.
Plugins import everything, `hookimpl` included, from `swarm_handoff.api`; `swarm_handoff.hookimpl`
still works for one release, with a DeprecationWarning.
"""

from __future__ import annotations

from swarm_handoff._version import __version__

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: importing typing alone costs ~10 ms of start-up
if TYPE_CHECKING:
    from typing import Any

    import pluggy

    hookimpl: pluggy.HookimplMarker

__all__ = ["__version__", "hookimpl"]


def __getattr__(name: str) -> Any:
    """Keep `swarm_handoff.hookimpl` working for plugins written before `swarm_handoff.api`, with a warning."""
    if name == "hookimpl":
        import warnings

        from swarm_handoff.hookspecs import hookimpl

        # stacklevel 2 names the plugin's import line, the one its author has to change
        warnings.warn(
            "`swarm_handoff.hookimpl` is deprecated and will be removed in the next release; "
            "use `from swarm_handoff.api import hookimpl`",
            DeprecationWarning,
            stacklevel=2,
        )
        return hookimpl
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
