"""What the sources share: the off switch, safe name parts and bounded JSON (the walk is the core's `walk_skills`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from swarm_handoff.api import YAML_TOO_LARGE, LoadError, Problem, Severity, read_text, watch

ENV_SOURCES = "SWARM_HANDOFF_AGENTS_SOURCES"
SOURCE_NAMES = ("agents-skills", "claude-nested", "claude-plugins", "skill-roots")
MAX_JSON_BYTES = 1 << 20  # settings files are small; a bigger one is hostile or broken, never read whole
# A name part must be usable as a file name and on a terminal: no separators, no control characters.
SAFE_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")


def enabled(name: str, env: Mapping[str, str]) -> bool:
    """Whether source `name` is switched on by $SWARM_HANDOFF_AGENTS_SOURCES (unset, '' or 'all': every one)."""
    value = env.get(ENV_SOURCES, "").strip().lower()
    if value in ("", "all", "on"):
        return True
    if value in ("off", "none", "0", "false"):
        return False
    return name in {part.strip() for part in value.split(",")}


def switch_key(env: Mapping[str, str]) -> str:
    """The part of every cache key the off switch and the trust settings (which folders are read) contribute."""
    trust = "|".join(f"{key}={env.get(key, '')}" for key in ("SWARM_HANDOFF_TRUSTED_FOLDERS", "SUDO_UID"))
    return f"{ENV_SOURCES}={env.get(ENV_SOURCES, '')}|{trust}"


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
