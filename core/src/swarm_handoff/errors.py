"""Error codes, problems and the structured error every command reports.

A `Problem` is a value that travels with results (a skipped skill, a plugin that failed to load);
a `SwarmError` is raised when a command cannot go on. Both carry a stable `code` so that scripts
and agents can branch on it, and both render through any formatter as the same record.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

import attrs

from swarm_handoff.safefs import DEFAULT_LOCK_TIMEOUT_S, LOCK_TIMEOUT_ENV, FolderBusy
from swarm_handoff.termsafe import bounded_message


class ErrorCode(str, enum.Enum):
    """Stable error codes; the value is what users see, so a value never changes once released."""

    # Plugin loading (core/plugins.py)
    PLUGIN_IMPORT_FAILED = "PLUGIN_IMPORT_FAILED"
    PLUGIN_HOOK_MISMATCH = "PLUGIN_HOOK_MISMATCH"
    PLUGIN_NAME_CONFLICT = "PLUGIN_NAME_CONFLICT"
    PLUGIN_HOOK_FAILED = "PLUGIN_HOOK_FAILED"
    PLUGINS_STRICT = "PLUGINS_STRICT"
    # Components asked for by name
    UNKNOWN_COMPONENT = "UNKNOWN_COMPONENT"
    COMPONENT_FAILED = "COMPONENT_FAILED"
    # Discovery (problems that travel with the results; issue 25)
    SKILLS_OWNER_UNTRUSTED = "SKILLS_OWNER_UNTRUSTED"  # another user's repository or skills folder
    SKILLS_DIR_TOO_MANY = "SKILLS_DIR_TOO_MANY"  # a skills folder past the walker's entry limit
    SOURCE_TIMEOUT = "SOURCE_TIMEOUT"  # a discovery source that did not answer in time
    # Command line
    USAGE = "USAGE"
    COMMAND_NOT_INSTALLED = "COMMAND_NOT_INSTALLED"  # a plugin's command, and that plugin did not load
    OUTPUT_TOO_DEEP = "OUTPUT_TOO_DEEP"
    CWD_UNAVAILABLE = "CWD_UNAVAILABLE"  # the folder the command was run from was removed
    FOLDER_BUSY = "FOLDER_BUSY"  # another process held a folder's lock past $SWARM_HANDOFF_LOCK_TIMEOUT
    INTERNAL_ERROR = "INTERNAL_ERROR"
    # Hand-off errors named by the hand-off seed (error response format)
    INVALID_PAYLOAD = "INVALID_PAYLOAD"
    TARGET_NOT_FOUND = "TARGET_NOT_FOUND"
    VALIDATION_FAILED = "VALIDATION_FAILED"
    HEALTH_CHECK_FAILED = "HEALTH_CHECK_FAILED"
    # Workflows (core/workflow/)
    WORKFLOW_INVALID = "WORKFLOW_INVALID"
    WORKFLOW_LOAD_FAILED = "WORKFLOW_LOAD_FAILED"
    WORKFLOW_NOT_FOUND = "WORKFLOW_NOT_FOUND"
    WORKFLOW_STEP_NOT_FOUND = "WORKFLOW_STEP_NOT_FOUND"
    WORKFLOW_PARAM_INVALID = "WORKFLOW_PARAM_INVALID"
    WORKFLOW_RUN_FAILED = "WORKFLOW_RUN_FAILED"
    RESOURCE_NOT_FOUND = "RESOURCE_NOT_FOUND"
    RESOURCE_OUTSIDE_SESSION = "RESOURCE_OUTSIDE_SESSION"
    RESOURCE_INVALID = "RESOURCE_INVALID"
    RELAY_INVALID = "RELAY_INVALID"

    def __str__(self) -> str:
        return self.value


class Severity(str, enum.Enum):
    """How much a problem matters: errors exclude a result, warnings only annotate it."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    def __str__(self) -> str:
        return self.value


def close_names(name: str, known: Iterable[str]) -> list[str]:
    """Up to three known names that look like `name`: what a user who mistyped one meant."""
    import difflib

    return difflib.get_close_matches(name, sorted(set(known)), n=3)


def did_you_mean(name: str, known: Iterable[str]) -> str | None:
    """The hint `did you mean: a, b?` for a name nothing matched, or None when nothing is close."""
    close = close_names(name, known)
    return f"did you mean: {', '.join(close)}?" if close else None


CWD_HINT = "cd to an existing folder and run it again, or name the project folder with an absolute --cwd"


def cwd_unavailable(cause: OSError | None = None) -> SwarmError:
    """The error for a working directory that no longer exists: the user's shell, not a bug."""
    why = f" ({cause.strerror})" if cause is not None and cause.strerror else ""
    return SwarmError(
        ErrorCode.CWD_UNAVAILABLE,
        f"the current working directory is no longer available{why}: it was removed or cannot be read",
        hint=CWD_HINT,
    )


def folder_busy(busy: FolderBusy) -> SwarmError:
    """FOLDER_BUSY for a `safefs.FolderBusy`: a folder another writer kept locked past the wait, never a bug."""
    return SwarmError(
        ErrorCode.FOLDER_BUSY,
        f"the folder {busy.folder} is {busy.why}; nothing was written there",
        details={"folder": busy.folder, "holder_pids": list(busy.holders), "waited_s": busy.waited},
        hint=folder_busy_hint(),
    )


def folder_busy_hint() -> str:
    """What to do about a folder lock held past the wait: one wording for FOLDER_BUSY and a hand-off's SESSION_BUSY."""
    return (
        f"let that process finish (or stop it if it hangs), then retry; ${LOCK_TIMEOUT_ENV} sets the wait in "
        f"seconds ({DEFAULT_LOCK_TIMEOUT_S:g} by default)"
    )


def situation_error(exc: BaseException) -> SwarmError | None:
    """The coded error for an exception that is the user's situation, not a bug (a busy folder, a removed cwd).

    One place for every front end (the CLI's `internal_error`, the MCP server's tool calls), so an
    exception surfacing from any command, core or plugin, gets the same code wherever it is run.
    """
    if isinstance(exc, FolderBusy):  # any command's folder lock (sync, link, adopt, session gc...)
        return folder_busy(exc)
    if isinstance(exc, OSError) and cwd_gone():
        # A relative path resolved (`Path.resolve`, `os.path.abspath`) in a folder that was removed:
        # the user's shell, wherever in the core or a plugin it surfaced.
        return cwd_unavailable(exc)
    return None


def working_directory() -> str:
    """`os.getcwd()`, raising CWD_UNAVAILABLE instead of a bare FileNotFoundError when the folder was removed."""
    try:
        return os.getcwd()
    except OSError as exc:  # removed (ENOENT), or a parent lost its search permission (EACCES)
        raise cwd_unavailable(exc) from exc


def cwd_gone() -> bool:
    """Whether the working directory cannot be named: then a stray OSError is that, not a bug."""
    try:
        os.getcwd()
    except OSError:
        return True
    return False


def _code_value(code: str | ErrorCode) -> str:
    return code.value if isinstance(code, ErrorCode) else str(code)


@attrs.frozen
class Problem:
    """One thing wrong with one input, kept with the results instead of being logged and lost."""

    code: str = attrs.field(converter=_code_value)
    message: str = attrs.field(converter=bounded_message)  # escaped and bounded, whatever built it
    path: str | None = None
    line: int | None = None
    column: int | None = None
    hint: str | None = None
    severity: Severity = Severity.ERROR

    def location(self) -> str:
        """Render `path:line:col` the way editors and compilers do, so the spot is clickable."""
        if self.path is None:
            return ""
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return where

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form, omitting absent location parts so documents stay small."""
        data: dict[str, Any] = {
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
        }
        for key in ("path", "line", "column", "hint"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        return data


class LoadError(Exception):
    """A document that could not be loaded; carries the located `Problem`."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


class SwarmError(Exception):
    """A failure the user caused (bad input, unknown name): exit status 1 with a structured error."""

    exit_code: ClassVar[int] = 1

    def __init__(
        self,
        code: str | ErrorCode,
        message: str,
        *,
        details: Mapping[str, Any] | None = None,
        hint: str | None = None,
        recoverable: bool = True,
        payload_preserved: str | None = None,
        problems: tuple[Problem, ...] = (),
    ) -> None:
        message = bounded_message(message)  # escaped and bounded, whatever built it (termsafe.py)
        super().__init__(message)
        self.code = _code_value(code)
        self.message = message
        self.details = dict(details or {})
        self.hint = hint
        self.recoverable = recoverable
        self.payload_preserved = payload_preserved
        self.problems = problems

    def __str__(self) -> str:
        text = f"{self.code}: {self.message}"
        if self.hint:
            text += f" (hint: {self.hint})"
        return text

    def to_document(self) -> ErrorDocument:
        """Turn the exception into the record the formatters render."""
        return ErrorDocument(
            code=self.code,
            message=self.message,
            details=dict(self.details),
            hint=self.hint,
            recoverable=self.recoverable,
            payload_preserved=self.payload_preserved,
            problems=self.problems,
        )


class UsageError(SwarmError):
    """A command line that cannot be understood: exit status 2, like click's own usage errors."""

    exit_code: ClassVar[int] = 2

    def __init__(self, message: str, *, hint: str | None = None, **details: Any) -> None:
        super().__init__(ErrorCode.USAGE, message, details=details, hint=hint)


@attrs.frozen
class ErrorDocument:
    """The seed's error response (`error: {code, message, details, recoverable, payload_preserved}`)."""

    kind: ClassVar[str] = "error"
    code: str
    message: str
    details: dict[str, Any] = attrs.field(factory=dict)
    hint: str | None = None
    recoverable: bool = True
    payload_preserved: str | None = None
    problems: tuple[Problem, ...] = ()

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form under a single `error` key, as the seed's format has it."""
        error: dict[str, Any] = {
            "code": self.code,
            "message": self.message,
            "details": self.details,
            "recoverable": self.recoverable,
            "payload_preserved": self.payload_preserved,
        }
        if self.hint is not None:
            error["hint"] = self.hint
        if self.problems:
            error["problems"] = [p.to_data() for p in self.problems]
        return {"error": error}
