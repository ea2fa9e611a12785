"""swarm-handoff: discover, rank and hand off work between agent skills.

Importing this package is cheap on purpose: it loads no plugin, reads no file and does not import
typer or ruamel.yaml. Plugins get `hookimpl` from here; everything else is imported from its module.
"""

from __future__ import annotations

import pluggy

from swarm_handoff._version import __version__

hookimpl = pluggy.HookimplMarker("swarm_handoff")

__all__ = ["__version__", "hookimpl"]
