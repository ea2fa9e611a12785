"""An installed entry point and its distribution as values, and the names reports give them.

The cached entry-point scan (`entrypoints.py`) hands back `CachedEntryPoint`s that load exactly
like importlib_metadata's (module, then attributes). Reports name each entry point's distribution
and version from the first lines of its METADATA (`dist_of`), since `Distribution.metadata` parses
the whole file (long description included) with the `email` package, which costs more than the rest
of a small discovery. The loader names what it selects with it, without the scan or its cache.
"""

from __future__ import annotations

import re
from typing import Any

_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?\Z")


class CachedDistribution:
    """The distribution of a cached entry point: its name, version and metadata folder."""

    __slots__ = ("_path", "name", "version")

    def __init__(self, name: str, version: str, path: str) -> None:
        self.name = name
        self.version = version
        self._path = path  # the attribute importlib_metadata's PathDistribution has


class CachedEntryPoint:
    """An entry point from the user cache; `load()` does what importlib_metadata's does."""

    __slots__ = ("dist", "group", "name", "value")

    def __init__(self, group: str, name: str, value: str, dist: CachedDistribution) -> None:
        self.group = group
        self.name = name
        self.value = value
        self.dist = dist

    @property
    def module(self) -> str:
        """The module to import."""
        match = _VALUE.match(self.value)
        return match.group("module") if match else self.value

    @property
    def attr(self) -> str | None:
        """The attribute path inside the module, if any."""
        match = _VALUE.match(self.value)
        return match.group("attr") if match else None

    def load(self) -> Any:
        """Import the module and follow the attribute path."""
        import importlib

        obj: Any = importlib.import_module(self.module)
        for part in filter(None, (self.attr or "").split(".")):
            obj = getattr(obj, part)
        return obj


def dist_of(entry_point: Any) -> tuple[str, str]:
    """Name and version of the distribution behind an entry point, for every report that names one."""
    dist = getattr(entry_point, "dist", None)
    if dist is None:
        return ("unknown", "unknown")
    if isinstance(dist, CachedDistribution):
        return (dist.name, dist.version)
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
