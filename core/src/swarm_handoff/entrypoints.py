"""Installed distributions' entry points, read once and named without parsing e-mail.

Plugins (group `swarm_handoff`) and skill packs (group `swarm_handoff.skills`) are both found by
reading every distribution's `entry_points.txt`, which first costs importing `importlib_metadata`
and then a scan of every distribution on `sys.path`. Both are skipped while nothing changed:

* within a process the scan is shared by every group, and repeated only when a `sys.path`
  folder changed (a distribution was installed or removed, a test put a folder on the path);
* across processes the two groups' entry points are kept in the memo `entry-points` (a
  `FileMemo` in parts, one file per interpreter environment: the part is the whole `sys.path`),
  valid while a fresh observation of every folder on it, and of each listed distribution's
  metadata folder and `entry_points.txt`, is the one recorded. A command reads only its own
  environment's file (a few KiB), however many virtualenvs, worktrees and test runs left theirs;
  at most `MAX_ENVIRONMENTS` files are kept, those used last. A cached entry point loads exactly
  like importlib_metadata's (module, then attributes).

What a cached entry point is, and how each is named (`dist_of`), is `entrypoint_records.py`'s,
below the loader, which selects among the entry points this scan finds.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from swarm_handoff import __version__, filecache
from swarm_handoff.entrypoint_records import CachedDistribution, CachedEntryPoint, dist_of
from swarm_handoff.filecache import observe
from swarm_handoff.filememo import FileMemo, Observation

GROUPS = ("swarm_handoff", "swarm_handoff.skills")  # the groups kept in the user cache
MEMO_NAME = "entry-points"
# Interpreter environments (distinct `sys.path`s) whose scans are kept, one file each, used last kept first.
MAX_ENVIRONMENTS = 64
_scan: tuple[tuple[Observation, ...], dict[str, list[Any]]] | None = None


def entry_points(group: str) -> list[Any]:
    """The group's entry points, sorted by name, from one scan shared by every group and run."""
    global _scan
    key = tuple(observe(p) for p in filecache.path_folders())  # taken before anything is read
    if _scan is None or _scan[0] != key:
        _scan = (key, _load_all(key))
    found = _scan[1].get(group)
    if found is None:  # a group the cache does not keep
        import importlib_metadata

        found = list(importlib_metadata.entry_points(group=group))
        _scan[1][group] = found
    return sorted(found, key=lambda e: e.name)


def forget() -> None:
    """Read the entry points again next time (after changing distributions without touching sys.path)."""
    global _scan
    _scan = None


def _load_all(key: tuple[Observation, ...]) -> dict[str, list[Any]]:
    """The cached groups from the memo when still valid, else from a fresh scan (then kept)."""
    memo_key = "\0".join(sys.path)
    memo = FileMemo(MEMO_NAME, __version__, part=memo_key, max_parts=MAX_ENVIRONMENTS)  # this environment's file
    stored = memo.recall(memo_key)
    if isinstance(stored, list):
        try:
            groups = _groups(stored)
        except (TypeError, ValueError, KeyError):  # a damaged entry: scan instead (and overwrite it)
            pass
        else:
            memo.save()  # files it as used, at most once an hour: environments not used lately go first
            return groups
    import importlib_metadata  # deferred: only a changed installation pays for it

    scanned = importlib_metadata.entry_points()
    groups = {g: list(scanned.select(group=g)) for g in GROUPS}
    rows, inputs = [], list(key)
    for group, eps in groups.items():
        for ep in eps:
            dist_path = getattr(getattr(ep, "dist", None), "_path", None)
            if dist_path is None:  # not a folder on disk (a zip, an egg): nothing to validate, do not store
                return groups
            dist_path = os.fspath(dist_path)
            rows.append((group, ep.name, ep.value, *dist_of(ep), dist_path))
            inputs += [observe(dist_path), observe(os.path.join(dist_path, "entry_points.txt"))]
    memo.keep(memo_key, rows, inputs)
    memo.save()
    return _groups(rows)  # the distributions are named now, once, as a cached scan names them


def _groups(rows: Any) -> dict[str, list[Any]]:
    """Entry points by group from stored rows (group, name, value, distribution, version, dist-info)."""
    groups: dict[str, list[Any]] = {g: [] for g in GROUPS}
    for group, name, value, dist_name, version, dist_path in rows:
        if not all(isinstance(field, str) for field in (name, value, dist_name, version, dist_path)):
            raise TypeError("a damaged entry-point row")
        dist = CachedDistribution(dist_name, version, dist_path)
        groups[group].append(CachedEntryPoint(group, name, value, dist))
    return groups
