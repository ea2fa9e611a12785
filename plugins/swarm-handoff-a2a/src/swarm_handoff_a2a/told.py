"""What a sender on another host is told when the receiver refuses or accepts its payload.

A refusal or warning about the receiver itself (its session root, signing key, history) names the
receiver's files and user; the sender is told the code and when to send again, and the receiver's
operator reads the original, with its fix, on stderr (`tell_operator`). Any other text that would
name one of the receiver's folders names it by its role (`local_places`, `for_sender`).
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any

from a2a.types import Message, Part, Role

from swarm_handoff.api import SEND_AGAIN, ErrorCode, Problem, SwarmError, escape_controls, not_written, quoted, renamed
from swarm_handoff_a2a.extension import ERROR_MEDIA_TYPE, data_value

# Refusals and warnings about this receiver itself, not the payload: their texts name its files and
# its user (the session root, its signing key, its history). A sender on another host is told the
# code and when to send again; the receiver's operator reads the original, with its fix, on stderr.
# (The codes are the core's signing and history modules' own, which the api does not export.)
_OWN_STATE = {
    "SIGNING_KEY_UNSAFE": (
        "the receiver cannot use its own signing key to check the payload",
        "once it is mended",
    ),
    "SIGNING_KEY_UNAVAILABLE": (
        "the receiver cannot read its own signing key to check the payload",
        "once it is mended",
    ),
    "HISTORY_BUSY": (
        "the receiver's hand-off history stayed locked by another of its processes",
        "shortly",
    ),
    "HISTORY_UNAVAILABLE": (
        "the receiver's hand-off history could not record the hand-off",
        "once it is mended",
    ),
    "HISTORY_CORRUPT": (
        "the receiver's hand-off history is damaged",
        "once it is mended",
    ),
}


def tell_operator(what: str, said: object) -> None:
    """Say on the receiver's own stderr what its sender was not told (paths, users, fixes), each line escaped.

    Only a record's first line starts with `a2a:`; the rest (a traceback's) are indented, so text a
    refusal quotes cannot pass for a record of its own.
    """
    first, *rest = f"a2a: {what}: {said}".split("\n")
    lines = [escape_controls(first), *(f"  {escape_controls(line)}" for line in rest)]
    print("\n".join(lines), file=sys.stderr, flush=True)


Places = tuple[tuple[str, str], ...]  # (a local path, what a sender is told instead), longest first


def local_places(session_root: Path, config_dir: Path) -> Places:
    """The receiver's own folders (session root, config folder, home) as a sender is told them: by role, not path."""
    folders = [(session_root, "session root"), (config_dir, "config folder")]
    with contextlib.suppress(RuntimeError, KeyError):  # no home: none to hide
        folders.append((Path.home(), "home"))
    named: dict[str, str] = {}
    for folder, role in folders:
        for form in (folder, folder.expanduser(), folder.expanduser().resolve()):
            if form.is_absolute() and len(str(form)) > 1:  # a relative root's name is a word, not a place
                named.setdefault(str(form), f"<the receiver's {role}>")
    return tuple(sorted(named.items(), key=lambda item: -len(item[0])))


def for_sender(error: SwarmError, places: Places = ()) -> SwarmError:
    """A refusal as a sender on another host is told it: one about this receiver itself is a code and no path.

    `USAGE` comes only from the session root's check (`own_session_root`), the root changed since the
    start (its mode, owner, or a link in its place): as a root gone after the start, a recoverable
    `VALIDATION_FAILED`. A target off the card is refused alike whether the receiver has such a skill
    (undeclared, declining, a registry entry set aside, whose reason names local paths) or not. Any
    other refusal naming one of the receiver's `places` (a check deep in the core naming where its
    key would be) names it by its role. The original goes to the operator.
    """
    if error.code == ErrorCode.USAGE.value:
        shown = not_written("write the payload", "its session root is not a folder of its own")
    elif error.code in _OWN_STATE:
        what, when = _OWN_STATE[error.code]
        shown = SwarmError(
            error.code,
            f"{what}; nothing was written or recorded",
            hint=SEND_AGAIN.format(when=when),
            recoverable=True,
        )
    elif error.code == ErrorCode.TARGET_NOT_FOUND.value and error.details.get("reason") != "ambiguous":
        # Said the same of every name off the card: the local hints confirm a skill the card does not
        # list ("exists but does not accept", "adopt it") or name where a set-aside entry's skill was.
        # The closest names come from the targets the card lists.
        target = quoted(error.details.get("target_skill", ""))
        closest = [str(name) for name in error.details.get("closest") or ()]
        offer = f"did you mean: {', '.join(closest)}?" if closest else "hand off to a skill its card lists"
        shown = SwarmError(
            error.code,
            error.message,
            hint=f"{target} is not a hand-off target at this receiver: {offer}",
            recoverable=error.recoverable,
        )
    else:
        message, hint = renamed(error.message, places), renamed(error.hint, places)
        if (message, hint) == (error.message, error.hint):
            return error
        shown = SwarmError(error.code, message or "", hint=hint, recoverable=error.recoverable)
    tell_operator("refused a payload", error)
    return shown


def error_message(error: SwarmError, task_id: str, context_id: str, places: Places = ()) -> Message:
    """The REJECTED status message: the refusal as its sender is told it, as text and as data a client reads."""
    error = for_sender(error, places)
    data = {"code": error.code, "message": error.message, "hint": error.hint or ""}
    return Message(
        message_id=f"{task_id}-refused",
        role=Role.ROLE_AGENT,
        task_id=task_id,
        context_id=context_id,
        parts=[
            Part(text=f"{error.code}: {error.message}" + (f" (hint: {error.hint})" if error.hint else "")),
            Part(data=data_value(data), media_type=ERROR_MEDIA_TYPE),
        ],
    )


def warnings_for_sender(warnings: tuple[Problem, ...], places: Places) -> list[dict[str, Any]]:
    """An accepted payload's warnings as its sender is told them: one about this receiver itself goes to stderr."""
    shown = []
    for warning in warnings:
        if warning.code in _OWN_STATE:  # a damaged history set aside: the operator's news, naming its files
            tell_operator("warning", f"{warning.code}: {warning.message}")
        else:
            said = warning.to_data()
            shown.append(renamed(said, places))
    return shown
