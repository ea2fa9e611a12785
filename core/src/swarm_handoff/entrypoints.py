"""Installed distributions' entry points, read once per process and named without parsing e-mail.

Plugins (group `swarm_handoff`) and skill packs (group `swarm_handoff.skills`) are both found by
reading every distribution's `entry_points.txt`. That scan is shared: it is repeated only when a
`sys.path` folder changed (a distribution was installed or removed, or a test put a new folder on
the path). Reports name each entry point's distribution and version from the first lines of its
METADATA, since `Distribution.metadata` parses the whole file (long description included) with
the `email` package, which costs more than the rest of a small discovery.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from swarm_handoff.filecache import observe

_scan: tuple[tuple[tuple[str, int, int], ...], Any] | None = None


def entry_points(group: str) -> list[Any]:
    """The group's entry points, sorted by name, from one scan shared by every group."""
    global _scan
    import importlib_metadata  # deferred: only commands that need plugins or packs pay for it

    key = tuple(observe(os.path.abspath(p)) for p in sys.path)
    if _scan is None or _scan[0] != key:
        _scan = (key, importlib_metadata.entry_points())
    return sorted(_scan[1].select(group=group), key=lambda e: e.name)


def forget() -> None:
    """Read the entry points again next time (after changing distributions without touching sys.path)."""
    global _scan
    _scan = None


def dist_of(entry_point: Any) -> tuple[str, str]:
    """Name and version of the distribution behind an entry point, for every report that names one."""
    dist = getattr(entry_point, "dist", None)
    if dist is None:
        return ("unknown", "unknown")
    header = _header(dist)
    name, version = header.get("name"), header.get("version")
    if not name or not version:  # an unusual metadata file: let importlib_metadata read it properly
        name = dist.metadata["Name"] or getattr(dist, "name", None) or "unknown"
        version = dist.version
    return (str(name), str(version))


def _header(dist: Any) -> dict[str, str]:
    """The `Key: value` lines before METADATA's first blank line, keys lower-cased."""
    try:
        text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
    except (OSError, ValueError):
        return {}
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            break
        key, colon, value = line.partition(":")
        if colon and not line[0].isspace():
            fields.setdefault(key.strip().lower(), value.strip())
    return fields
