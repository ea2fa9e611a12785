"""What `registry sync` checks around its write: the new text as discovery reads it, then the file on disk.

The seed's step 5 ("validate with YAML parser"): the text is parsed with the safe loader discovery
uses and checked with discovery's own reading of the entries (`registry.entries_of`) before
anything is replaced; after the write the file is read back and compared with that text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from swarm_handoff import api
from swarm_handoff.api import LoadError, Problem, SwarmError, atomic_write, read_regular
from swarm_handoff_registry.registry import REGISTRY_INVALID, entries_of
from swarm_handoff_registry.registry_file import REGISTRY_MAX_BYTES, REGISTRY_SYNC_FAILED, REGISTRY_TOO_LARGE


def _written_wrong(path: Path, why: str) -> SwarmError:
    """REGISTRY_SYNC_FAILED for a text sync made that does not read back; a writer's bug, never the user's."""
    return SwarmError(
        REGISTRY_SYNC_FAILED,
        f"the registry sync was about to write to {path} does not read back: {why}",
        hint="the previous file was left (or put back) in place; report this with the registry file attached",
    )


def _check(data: Any, path: Path, synced: list[str]) -> tuple[Problem, ...]:
    """Validate a parsed registry as discovery reads it: every synced workflow there, entries' problems reported."""
    _entries, problems = entries_of(data, path)
    if any(p.code == REGISTRY_INVALID for p in problems):
        raise _written_wrong(path, problems[0].message)
    listed = data.get("workflows") if isinstance(data, dict) else None
    present = {e.get("name") for e in listed or () if isinstance(e, dict)}
    missing = sorted(set(synced) - present)  # written, not there: a writer's bug, never the user's
    if missing:
        raise _written_wrong(path, f"no usable entry for {', '.join(missing)}")
    return tuple(problems)


def validate_text(text: str, path: Path, synced: list[str]) -> tuple[Problem, ...]:
    """Parse the text about to be written with the safe loader discovery uses, and check it as discovery would.

    Returns the problems of entries the user wrote by hand (kept as written, never a failure).
    """
    try:
        data = api.parse_yaml(text, path=str(path))  # through the module: tests stand in a refusing parser
    except LoadError as exc:
        if exc.problem.code in _READER_LIMITS:  # the registry outgrew what readers accept: the user's to trim
            raise _over_limit(path, exc.problem) from None
        raise _written_wrong(path, exc.problem.message) from None
    return _check(data, path, synced)


# The reader's refusals that mean "too big", not "written wrong": values (aliases expanded), nesting, bytes.
_READER_LIMITS = frozenset({"YAML_TOO_MANY_NODES", "YAML_TOO_DEEP", "YAML_TOO_LARGE"})


def _over_limit(path: Path, problem: Problem) -> SwarmError:
    """REGISTRY_TOO_LARGE for a registry that would pass one of its readers' limits; nothing is written."""
    return SwarmError(
        REGISTRY_TOO_LARGE,
        f"{path}: the new registry would be refused by every reader of it ({problem.message}); nothing was written",
        details={"path": str(path), "limit": problem.code},
        hint="run `swarm-handoff registry prune` to drop stale entries, or remove entries (long tag lists, "
        "deep custom keys) you no longer need, then sync again",
    )


def confirm_written(path: Path, written: bytes, previous: bytes | None) -> None:
    """Read the written file back from disk; when it is not byte for byte what was validated, put the previous back.

    Equal bytes parse as the text `validate_text` checked, so they are compared, not parsed a second time.
    """
    try:
        same = read_regular(path, limit=REGISTRY_MAX_BYTES) == written
        why = "the file on disk is not what was written"
    except LoadError as exc:
        same, why = False, exc.problem.message
    if same:
        return
    if previous is not None:
        atomic_write(path, previous)
    else:
        path.unlink(missing_ok=True)
    raise _written_wrong(path, why)
