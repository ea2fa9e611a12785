"""swarm-handoff: discover, rank and hand off work between agent skills.

Importing this package is cheap on purpose: it imports no third-party module, loads no plugin and
reads no file, so that the CLI can answer a repeated `discover` before importing anything heavy.
Plugins get `hookimpl` from here (created on first use); everything else comes from its module.
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
    """Create `hookimpl` when a plugin first asks for it, so that importing the package costs no pluggy."""
    if name == "hookimpl":
        import pluggy

        marker = pluggy.HookimplMarker("swarm_handoff")
        globals()["hookimpl"] = marker
        return marker
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
