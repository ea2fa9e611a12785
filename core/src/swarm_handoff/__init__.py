"""swarm-handoff: discover, rank and hand off work between agent skills.

Importing this package is cheap on purpose: it imports no third-party module, loads no plugin and
reads no file, so that `swarm-handoff --version` answers before anything heavy is imported.
Plugins import everything, `hookimpl` included, from `swarm_handoff.api`.
"""

from __future__ import annotations

from swarm_handoff._version import __version__

__all__ = ["__version__"]
