"""swarm-handoff: discover, rank and hand off work between agent skills.

Importing this package is cheap on purpose: it imports no third-party module, loads no plugin and
reads no file, so that `swarm-handoff --version` answers before anything heavy is imported.
Plugins import everything, `hookimpl` included, from `swarm_handoff.api`.
"""

from __future__ import annotations

__version__ = "0.1.0"  # the one place it is written (hatch reads it for every build)

__all__ = ["__version__"]
