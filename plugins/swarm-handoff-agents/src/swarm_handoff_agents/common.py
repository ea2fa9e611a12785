"""What the sources share: the off switch, the repository walk, listing one skills folder, bounded JSON."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from swarm_handoff.api import YAML_TOO_LARGE, LoadError, Problem, Scope, Severity, read_text, watch

ENV_SOURCES = "SWARM_HANDOFF_AGENTS_SOURCES"
SOURCE_NAMES = ("agents-skills", "claude-nested", "claude-plugins", "skill-roots")
MAX_JSON_BYTES = 1 << 20  # settings files are small; a bigger one is hostile or broken, never read whole
SKILLS_DIR_UNREADABLE = "SKILLS_DIR_UNREADABLE"
# A name part must be usable as a file name and on a terminal: no separators, no control characters.
SAFE_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")

Files = list[tuple[str, str, Scope]]


def enabled(name: str, env: Mapping[str, str]) -> bool:
    """Whether source `name` is switched on by $SWARM_HANDOFF_AGENTS_SOURCES (unset, '' or 'all': every one)."""
    value = env.get(ENV_SOURCES, "").strip().lower()
    if value in ("", "all", "on"):
        return True
    if value in ("off", "none", "0", "false"):
        return False
    return name in {part.strip() for part in value.split(",")}


def switch_key(env: Mapping[str, str]) -> str:
    """The part of every cache key the off switch contributes."""
    return f"{ENV_SOURCES}={env.get(ENV_SOURCES, '')}"


def ceilings(env: Mapping[str, str]) -> set[str]:
    """Folders above which the repository walk stops, as git's GIT_CEILING_DIRECTORIES says."""
    return {os.path.realpath(p) for p in env.get("GIT_CEILING_DIRECTORIES", "").split(os.pathsep) if p}


def walk_to_root(cwd: Path, env: Mapping[str, str]) -> tuple[list[Path], bool]:
    """The folders from `cwd` up to the repository root (a `.git` entry), and whether a root was found.

    Every `.git` looked at is watched, so a repository appearing or vanishing invalidates the answer.
    Without a repository only `cwd` is returned (the Agent Skills client guide scans the cwd then).
    """
    stop = ceilings(env)
    chain: list[Path] = []
    for folder in (cwd, *cwd.parents):
        if chain and os.path.realpath(folder) in stop:
            break
        chain.append(folder)
        if watch(folder / ".git") is not None:
            return chain, True
    return [cwd], False


def list_skills(folder: Path, scope: Scope, problems: list[Problem]) -> Files:
    """The `(SKILL.md, name, scope)` of every skill folder under `folder`; absent folders find nothing.

    The folder is watched before it is listed and each SKILL.md path before it is kept, so a skill
    added, removed or given its SKILL.md later invalidates a stored answer. Hidden folders are skipped.
    """
    if watch(folder) is None:
        return []
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        problems.append(
            Problem(
                SKILLS_DIR_UNREADABLE,
                f"cannot list skills folder: {exc.strerror or exc}",
                path=str(folder),
                hint="check the folder's permissions",
                severity=Severity.WARNING,
            )
        )
        return []
    files: Files = []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        path = os.path.join(entry.path, "SKILL.md")
        # A folder without SKILL.md is not a skill; watching the path notices when one appears.
        if is_dir and watch(path) is not None:
            files.append((path, entry.name, scope))
    return files


def read_json(path: Path, code: str, what: str, problems: list[Problem]) -> object | None:
    """Parse an untrusted JSON file, bounded in size; absent -> None silently, broken -> a problem and None.

    The bytes come through the core's `read_text`, as every other input file does: only a regular
    file is opened (a FIFO named settings.json would block discovery forever), a UTF-8 byte order
    mark is dropped, and UTF-16/UTF-32 or undecodable text is the core's NOT_UTF8, not a JSON error.
    """
    st = watch(path)
    if st is None:
        return None  # the common case: no file, and `json` never imported on the discover path
    if st.st_size > MAX_JSON_BYTES:
        problems.append(_unread(code, f"{what} is {st.st_size} bytes, more than the {MAX_JSON_BYTES} read", path))
        return None
    try:
        text = read_text(path, limit=MAX_JSON_BYTES)
    except LoadError as exc:
        found = exc.problem
        # Over the cap only if it grew since the stat: the size problem above, not the core's YAML code.
        own = code if found.code == YAML_TOO_LARGE else found.code
        problems.append(_unread(own, f"cannot read {what}: {found.message}", path, found.line, found.hint))
        return None
    import json

    try:
        value: object = json.loads(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        problems.append(_unread(code, f"cannot read {what}: {exc}", path))
        return None
    return value


def _unread(code: str, message: str, path: Path, line: int | None = None, hint: str | None = None) -> Problem:
    """A warning, never an error: a broken settings file costs its own source, not the rest of discovery."""
    hint = f"{hint}; " if hint else ""
    return Problem(
        code,
        message,
        path=str(path),
        line=line,
        hint=f"{hint}fix or remove {path.name}; the rest of discovery goes on without it",
        severity=Severity.WARNING,
    )
