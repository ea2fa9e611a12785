"""The registry file as `registry sync` and `prune` read and write it: bounded, round-trip, backed up.

The file is read no larger than every reader of it accepts and loaded with ruamel.yaml's
round-trip mode (comments, key order and quoting survive an edit); a new text over that size is
refused before anything is touched; the previous file is kept as `handoff-registry.yaml.bak`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from swarm_handoff.api import (
    DOCUMENT_MAX_BYTES,
    LoadError,
    SwarmError,
    atomic_write,
    check_events,
    check_nesting,
    portable_yaml,
    read_regular,
)

REGISTRY_SYNC_FAILED = "REGISTRY_SYNC_FAILED"
REGISTRY_TOO_LARGE = "REGISTRY_TOO_LARGE"
# What every reader of the registry accepts (the core's document limit, `textfile.MAX_BYTES`, which
# discovery's reader applies): sync reads with it and never writes more, so it never writes a
# registry that discovery, `registry show` or the next sync would refuse.
REGISTRY_MAX_BYTES = DOCUMENT_MAX_BYTES
BACKUP_SUFFIX = ".bak"


def read_registry(path: Path) -> bytes | None:
    """The registry's bytes, None when there is none; anything else unreadable stops the sync."""
    try:
        return read_regular(path, limit=REGISTRY_MAX_BYTES)
    except LoadError as exc:
        if not os.path.lexists(path):
            return None
        raise _unreadable(path, exc.problem.message) from None


def _unreadable(path: Path, why: object) -> SwarmError:
    """REGISTRY_SYNC_FAILED for a registry that cannot be read; the file is left as it is."""
    return SwarmError(
        REGISTRY_SYNC_FAILED,
        f"cannot read {path}: {why}",
        hint="fix the file (or move it away) and sync again; it was not changed",
    )


def write_registry(path: Path, previous: bytes | None, text: str) -> Path | None:
    """Keep the previous file as `.bak`, then write `text`; a registry over the read limit is refused first."""
    data = text.encode("utf-8")
    refuse_oversized(path, data)
    backup = keep_backup(path, previous) if previous is not None else None
    atomic_write(path, data)
    return backup


def refuse_oversized(path: Path, data: bytes) -> None:
    """Refuse, before the backup or the write, a registry its own readers would refuse."""
    if len(data) > REGISTRY_MAX_BYTES:
        raise SwarmError(
            REGISTRY_TOO_LARGE,
            f"{path}: the new registry would be {len(data)} bytes, over the {REGISTRY_MAX_BYTES} bytes "
            "every reader of it accepts; nothing was written",
            details={"path": str(path), "size_bytes": len(data), "limit_bytes": REGISTRY_MAX_BYTES},
            hint="run `swarm-handoff registry prune` to drop stale entries, or remove entries (long "
            "descriptions) you no longer need, then sync again",
        )


def keep_backup(path: Path, previous: bytes) -> Path:
    """Keep the previous bytes as `.bak`, as private as the registry was, never through a link."""
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    # A new file renamed into place: a symbolic link planted at the backup's name is replaced,
    # never written through (copying onto it would overwrite whatever it points at).
    atomic_write(backup, previous)
    try:
        mode = os.stat(path).st_mode & 0o777
        fd = os.open(backup, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return backup
    try:
        os.fchmod(fd, mode)
    except (OSError, AttributeError):  # pragma: no cover - fchmod is POSIX
        pass
    finally:
        os.close(fd)
    return backup


def load_registry(path: Path) -> tuple[Any, Any, bytes | None]:
    """The round-trip loader, the document (None when there is no file) and the file's bytes."""
    from ruamel.yaml.error import YAMLError

    yaml = portable_yaml("rt")  # strings YAML 1.1 readers would misread are quoted
    yaml.preserve_quotes = True
    yaml.indent(mapping=2, sequence=4, offset=2)  # the registry format's own layout
    yaml.width = 4096  # never fold a long skill_path onto a second line
    document: Any = None
    previous = read_registry(path)
    if previous is not None:
        try:
            text = previous.decode("utf-8")
            check_nesting(text, path=str(path))
            check_events(text, path=str(path))  # depth, tags and number limits before the recursive loader
            document = yaml.load(text)
        except LoadError as exc:
            raise SwarmError(
                REGISTRY_SYNC_FAILED,
                f"cannot read {path}: {exc.problem.message}",
                hint="fix the file (or move it away) and sync again; it was not changed",
                problems=(exc.problem,),
            ) from None
        except (YAMLError, ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            raise _unreadable(path, exc) from None
    return yaml, document, previous
