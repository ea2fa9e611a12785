"""The checks and helpers around a hand-off: names and folders it may use, the loop question.

Split from `lifecycle.py` so the lifecycle reads as its steps; `lifecycle` re-exports what callers
import from it.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from swarm_handoff.errors import ErrorCode, Problem, Severity, SwarmError, UsageError, close_names
from swarm_handoff.inputs import given, ref, switched_on
from swarm_handoff.payload.v2 import invocation_for
from swarm_handoff.records import SkillRecord
from swarm_handoff.termsafe import quoted

# A name that becomes part of a file name: no separator, no `.`/`..`, no leading dot or dash.
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")
UNSAFE_NAME = "UNSAFE_NAME"  # a skill's name cannot be part of a file name
SESSION_WRITABLE_BY_OTHERS = "SESSION_WRITABLE_BY_OTHERS"  # warning: others may plant or swap files there


def substitute(record: SkillRecord, payload_path: Path) -> str:
    """The command that hands the payload over, `{payload_path}` replaced by the shell-quoted path."""
    template = invocation_for(record)
    quoted = shlex.quote(str(payload_path))
    if "{payload_path}" not in template:  # a trigger without the placeholder still gets the path
        return f"{template} {quoted}"
    return template.replace("{payload_path}", quoted)


def loop_message(target: str, chain: tuple[str, ...] | list[str]) -> str:
    """The loop warning shown before handing off to a skill that is already in the chain."""
    return (
        f"warning: {target} is already in this session's hand-off chain; handing off again may go round in "
        f"a circle.\n  chain: {' -> '.join([*chain, target])}\n  Hand off anyway?"
    )


def not_found(
    target: str,
    found: list[str],
    ineligible: list[SkillRecord],
    undeclared: bool = False,
) -> SwarmError:
    """TARGET_NOT_FOUND with the closest names, so a typo costs one more try, not a search."""
    close = close_names(target, found)
    skipped = next((r for r in ineligible if r.name == target), None)
    details: dict[str, Any] = {"target_skill": target, "closest": close}
    if undeclared:
        details["override"] = "allow_undeclared"
        hint = (
            f"{target} declares no hand-off metadata: hand off anyway with {switched_on('allow_undeclared')} "
            f"(recorded in the payload and the history), or make it a target (swarm-handoff adopt {target})"
        )
    elif skipped is not None and skipped.scope == "registry" and skipped.problems:
        # a registry entry set aside (stale, another environment's pack): say why, it is not a typo
        details["reason"] = skipped.problems[-1].message
        hint = f"{target} is not a hand-off target here: {details['reason']} ({skipped.problems[-1].hint})"
    elif skipped is not None:
        hint = f"{target} exists but does not accept hand-offs (its SKILL.md has no eligible handoff: block)"
    elif close:
        hint = f"did you mean: {', '.join(close)}?"
    else:
        hint = "run `swarm-handoff discover` to list the skills that accept a hand-off"
    return SwarmError(
        ErrorCode.TARGET_NOT_FOUND,
        f"no skill named {quoted(target)} accepts a hand-off here",
        details=details,
        hint=hint,
        recoverable=True,
    )


def by_frontmatter_name(workflows: Sequence[SkillRecord], name: str) -> tuple[SkillRecord | None, str | None]:
    """The one target whose frontmatter `name:` is `name` (its folder named otherwise), with a note saying so.

    Agents often know a skill by the name its SKILL.md declares; `why` takes that name, so `handoff`
    does too. Two folders declaring the same name are refused: handing work to a guess is worse
    than asking which one.
    """
    matches = [r for r in workflows if r.declared_name == name and r.name != name]
    if not matches:
        return None, None
    if len(matches) > 1:
        folders = ", ".join(quoted(r.name) for r in matches)
        raise SwarmError(
            ErrorCode.TARGET_NOT_FOUND,
            f"no skill folder is named {quoted(name)}, and {quoted(name)} is the frontmatter name of {folders}",
            details={"target_skill": name, "closest": [r.name for r in matches], "reason": "ambiguous"},
            hint="hand off to one of those folder names",
            recoverable=True,
        )
    folder = matches[0].name
    return matches[0], f"{quoted(name)} is the frontmatter name of folder {quoted(folder)}; handed off to {folder}"


def remote_host(record: SkillRecord) -> str | None:
    """The machine a registry target lives on when it is a remote workflow (`host:` another machine), else None.

    Only a record that stands as a registry entry counts: a local skill of the same name wins.
    """
    host = record.meta.get("remote_host")
    return host if record.scope == "registry" and isinstance(host, str) and host else None


def remote_note(record: SkillRecord, host: str) -> str:
    """What the user does with a payload for a remote target: it is written here, its skill is there."""
    where = record.meta.get("remote_skill_path")
    skill = f" ({where})" if isinstance(where, str) else ""
    return f"{record.name} is a remote workflow on {host}{skill}: carry the payload there and run its invocation"


def gone_target(record: SkillRecord) -> SwarmError | None:
    """A registry target whose skill_path no longer exists: TARGET_NOT_FOUND, never a hand-off to nothing."""
    meta_file = record.meta.get("registry_file")
    if record.scope != "registry" or not record.path or record.path == meta_file or os.path.exists(record.path):
        return None
    reason = f"its registry entry points at {record.path}, which is gone"
    return SwarmError(
        ErrorCode.TARGET_NOT_FOUND,
        f"no skill named {quoted(record.name)} accepts a hand-off here: {reason}",
        details={"target_skill": record.name, "closest": [], "reason": reason},
        hint="`swarm-handoff registry sync` marks the entry stale and `registry prune` removes it",
        recoverable=True,
    )


def check_name(value: str, option: str) -> None:
    """Refuse an option value that would become part of a file name but could leave its folder."""
    if not SAFE_NAME.match(value):
        raise UsageError(
            f"{option} {quoted(value)} cannot be part of a file name",
            hint="use letters, digits, '.', '_' and '-', starting with a letter or digit (at most 128)",
            option=option,
            value=value,
        )


def check_session(session: str | os.PathLike[str], option: str = "session") -> None:
    """Refuse a `--session` that names no folder of its own: an empty value or the root of the disk.

    `option` is the input's neutral name; the refusal names it as each interface spells it (`inputs.py`).
    """
    text = os.fspath(session)
    hint = f"pass the session folder the swarm wrote ({given(option, 'DIR')})"
    spelt = ref(option)
    if not text.strip():
        raise UsageError(f"{spelt} is empty", hint=hint, option=spelt)
    resolved = Path(text).expanduser().resolve()
    if resolved == Path(resolved.anchor):
        raise UsageError(
            f"{spelt} {quoted(text)} is the root folder {resolved}; payloads are never written there",
            hint=hint,
            option=spelt,
            value=text,
        )


def session_warnings(session: Path) -> tuple[Problem, ...]:
    """Warn when people other than the user can write into the session (and so swap or plant files)."""
    try:
        mode = session.stat().st_mode
    except OSError:
        return ()
    who = [name for bit, name in ((stat.S_IWGRP, "its group"), (stat.S_IWOTH, "everyone")) if mode & bit]
    if not who:
        return ()
    return (
        Problem(
            SESSION_WRITABLE_BY_OTHERS,
            f"the session folder {session} can be written by {' and '.join(who)} (mode {stat.S_IMODE(mode):o}); "
            "others could replace or plant files the target will read",
            path=str(session),
            hint=f"chmod go-w {session}, or use a session folder of your own",
            severity=Severity.WARNING,
        ),
    )
