"""The user-level folder ($CLAUDE_CONFIG_DIR, else ~/.claude): global skills, history and keys live under it.

Payload checks, the history and discovery all need it, so it sits below all of them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """Return the user-level folder: `$CLAUDE_CONFIG_DIR` when set, else `~/.claude` from `HOME`."""
    env = os.environ if env is None else env
    if env.get("CLAUDE_CONFIG_DIR"):
        return Path(env["CLAUDE_CONFIG_DIR"]).expanduser()
    home = env.get("HOME") or str(Path.home())
    return Path(home) / ".claude"
