"""The `skills link` manifest and the file checks behind its rule: only touch what is still ours.

The manifest (`.swarm-handoff-links.json` in the skills folder) records, per skill name, what
`link` created there: a link and its target, or a copy and the SHA-256 of each of its files.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from swarm_handoff.errors import Problem, SwarmError

MANIFEST_NAME = ".swarm-handoff-links.json"
MANIFEST_VERSION = 1
LINK_MANIFEST_INVALID = "LINK_MANIFEST_INVALID"
_IGNORED = ("__pycache__",)


def read_manifest(folder: Path) -> dict[str, dict[str, Any]]:
    """The entries recorded in `folder`'s manifest; a manifest that cannot be read stops the command."""
    path = folder / MANIFEST_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise _manifest_error(path, f"cannot be read: {exc}") from None
    entries = data.get("entries") if isinstance(data, dict) else None
    if not isinstance(entries, dict) or not all(isinstance(e, dict) for e in entries.values()):
        raise _manifest_error(path, "is not a swarm-handoff links manifest")
    return entries


@contextlib.contextmanager
def locked(folder: Path) -> Iterator[None]:
    """Hold `folder` exclusively while its manifest is read, changed and written.

    Two `skills link` (or `unlink`) runs at once would otherwise each write a manifest that lacks
    the other's entries, and a folder that link created would no longer be recorded as its own.
    The lock is an advisory `flock` on the folder itself, so it leaves no file behind and is
    released when the process ends, however it ends. Where `fcntl` does not exist (Windows),
    runs are not serialised. A folder that does not exist has no manifest to protect.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except FileNotFoundError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # waits for the other run to finish
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _manifest_error(path: Path, why: str) -> SwarmError:
    problem = Problem(LINK_MANIFEST_INVALID, f"the links manifest {why}", path=str(path))
    # Guessing would risk removing a user's folder, so nothing is touched until it is fixed.
    return SwarmError(
        LINK_MANIFEST_INVALID,
        f"{path} {why}",
        hint="restore it, or delete it (swarm-handoff then treats every folder there as the user's)",
        problems=(problem,),
    )


def write_manifest(folder: Path, entries: Mapping[str, Mapping[str, Any]]) -> None:
    """Record `entries` atomically; an empty record removes the manifest, leaving no trace."""
    from swarm_handoff.cache import atomic_write

    path = folder / MANIFEST_NAME
    if not entries:
        if path.exists():
            path.unlink()
        return
    document = {"version": MANIFEST_VERSION, "entries": {k: dict(entries[k]) for k in sorted(entries)}}
    atomic_write(path, (json.dumps(document, indent=2, sort_keys=True) + "\n").encode("utf-8"))


# -- what a folder holds --------------------------------------------------------------------------


def walk_files(root: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Yield (relative posix path, entry) for every file under a path or Traversable, sorted."""
    for child in sorted(root.iterdir(), key=lambda c: c.name):
        if child.name in _IGNORED or child.name.endswith(".pyc"):
            continue
        rel = f"{prefix}{child.name}"
        if child.is_dir():
            yield from walk_files(child, rel + "/")
        elif child.is_file():
            yield rel, child


def file_hashes(files: Mapping[str, bytes]) -> dict[str, str]:
    """SHA-256 per relative path: what a copy must still hold to count as unchanged."""
    return {rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()}


def _disk_hashes(folder: Path) -> dict[str, str] | None:
    """Hash every file of a copy on disk (nothing ignored: a file the user added is a change)."""
    if folder.is_symlink() or not folder.is_dir():
        return None
    found: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() or not (path.is_file() or path.is_dir()):
            return None
        if path.is_file():
            found[path.relative_to(folder).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def still_created(dest: Path, entry: Mapping[str, Any]) -> bool:
    """Is `dest` still exactly what swarm-handoff created (same link target, or unedited copy)?"""
    try:
        if entry.get("kind") == "link":
            return dest.is_symlink() and os.readlink(dest) == entry.get("target")
        if entry.get("kind") == "copy":
            return _disk_hashes(dest) == entry.get("files")
    except OSError:  # unreadable now: not provably ours, so treat it as changed and keep it
        pass
    return False
