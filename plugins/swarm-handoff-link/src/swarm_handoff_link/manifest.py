"""The `skills link` manifest and the file checks behind its rule: only touch what is still ours.

The manifest (`.swarm-handoff-links.json` in the skills folder) records, per skill name, what
`link` created there: a link and its target, or a copy and the SHA-256 of each of its files.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from swarm_handoff.api import LoadError, Problem, Severity, SwarmError, atomic_write, read_regular, read_text
from swarm_handoff.api import locked as locked  # re-exported: the one folder lock every writer takes

MANIFEST_NAME = ".swarm-handoff-links.json"
MANIFEST_VERSION = 1
LINK_MANIFEST_INVALID = "LINK_MANIFEST_INVALID"
LINK_MANIFEST_ENTRY_INVALID = "LINK_MANIFEST_ENTRY_INVALID"  # one entry set aside; the others proceed
# The names `link` creates: a folder name, never a path (no separator, no leading dot, so no `..`).
SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\Z")
MAX_NAME = 255  # a file name's length limit on common file systems
MANIFEST_MAX_BYTES = 16 * 1024 * 1024
# A copy is hashed file by file to prove it unchanged: bounds so a planted tree cannot stall unlink.
MAX_COPY_FILES = 10_000
MAX_COPY_FILE_BYTES = 256 * 1024 * 1024
_IGNORED = ("__pycache__",)


class Manifest(dict[str, dict[str, Any]]):
    """The usable entries by name, plus the entries set aside as invalid and a problem for each.

    Invalid entries are never acted on, and are written back as they were, so a manifest that a
    cloned repository (or a bad edit) filled with `../../x` or `/home/you` names can neither make
    the tool touch those paths nor lose what is in the file.
    """

    def __init__(
        self,
        entries: Mapping[str, dict[str, Any]] | None = None,
        *,
        invalid: Mapping[str, Any] | None = None,
        problems: tuple[Problem, ...] = (),
    ) -> None:
        super().__init__(entries or {})
        self.invalid: dict[str, Any] = dict(invalid or {})
        self.problems = problems


def name_problem(name: object) -> str | None:
    """Why `name` cannot be a folder `link` made directly in the skills folder, or None when it can."""
    if not isinstance(name, str) or not name:
        return "is empty or not text"
    if os.path.isabs(name) or name.startswith(("/", "\\")):
        return "is an absolute path"
    if name in (".", ".."):
        return "is not a folder name"
    if any(sep in name for sep in ("/", "\\", "\0")):
        return "contains a path separator or a NUL"
    if len(name) > MAX_NAME or not SAFE_NAME.match(name):
        return f"is not a name link creates (letters, digits, '.', '_', '-'; at most {MAX_NAME})"
    return None


def _entry_problem(entry: object) -> str | None:
    if not isinstance(entry, dict):
        return "is not a record"
    if entry.get("kind") == "link":
        return None if isinstance(entry.get("target"), str) and entry["target"] else "is a link without a target"
    if entry.get("kind") == "copy":
        files = entry.get("files")
        if isinstance(files, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
            return None
        return "is a copy without its file hashes"
    return "is neither a link nor a copy"


def read_manifest(folder: Path) -> Manifest:
    """The entries recorded in `folder`'s manifest; a manifest that cannot be read stops the command.

    Each entry is checked before anything uses it: its name must be a plain folder name (no
    absolute path, no `..`, no separator), its record a link or a copy. A bad entry becomes a
    LINK_MANIFEST_ENTRY_INVALID problem naming the file and the entry, and the others proceed.
    """
    path = folder / MANIFEST_NAME
    try:
        # The tool's own file: a link there is not followed, a FIFO is not opened (it would block).
        data = json.loads(read_text(path, limit=MANIFEST_MAX_BYTES, follow=False))
    except LoadError as exc:
        if not os.path.lexists(path):
            return Manifest()
        raise _manifest_error(path, f"cannot be read: {exc.problem.message}") from None
    except (ValueError, RecursionError) as exc:
        raise _manifest_error(path, f"cannot be read: {exc}") from None
    entries = data.get("entries") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        raise _manifest_error(path, "is not a swarm-handoff links manifest")
    good: dict[str, dict[str, Any]] = {}
    invalid: dict[str, Any] = {}
    problems: list[Problem] = []
    for name, entry in entries.items():
        why = name_problem(name)
        what = f"entry {name!r}"
        if why is None:
            why = _entry_problem(entry)
            what = f"the record of {name!r}"
        if why is None:
            good[name] = entry
            continue
        invalid[name] = entry
        problems.append(
            Problem(
                LINK_MANIFEST_ENTRY_INVALID,
                f"{what} in the links manifest {why}; ignored (swarm-handoff never acts on it)",
                path=str(path),
                hint=f"remove that entry from {MANIFEST_NAME}; `skills link` never records such an entry",
                severity=Severity.WARNING,
            )
        )
    return Manifest(good, invalid=invalid, problems=tuple(problems))


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
    path = folder / MANIFEST_NAME
    kept = dict(getattr(entries, "invalid", {}))  # set aside, not ours to drop: written back as found
    if not entries and not kept:
        if os.path.lexists(path):
            path.unlink()
        return
    records: dict[str, Any] = {**kept, **{k: dict(v) for k, v in entries.items()}}
    document = {"version": MANIFEST_VERSION, "entries": {k: records[k] for k in sorted(records)}}
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
    """Hash every file of a copy on disk (nothing ignored: a file the user added is a change).

    None when it is not a plain tree of regular files (a link, FIFO or device anywhere, or more
    than the bounds): such a folder is not provably what `link` made, so it is kept.
    """
    found: dict[str, str] = {}
    pending = [(folder, "")]
    while pending:
        current, prefix = pending.pop()
        try:
            mode = os.lstat(current).st_mode
            if not stat.S_ISDIR(mode):
                return None
            children = list(os.scandir(current))
        except OSError:
            return None
        for child in children:
            rel = prefix + child.name
            if child.is_symlink():
                return None
            if child.is_dir(follow_symlinks=False):
                pending.append((Path(child.path), rel + "/"))
                continue
            if len(found) >= MAX_COPY_FILES:
                return None
            try:
                data = read_regular(child.path, limit=MAX_COPY_FILE_BYTES, follow=False)
            except LoadError:
                return None
            found[rel] = hashlib.sha256(data).hexdigest()
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
