"""Read the YAML frontmatter of a SKILL.md: only its bytes, bounded, with a located problem for each failure.

A SKILL.md may be megabytes long, so the file is read in chunks until the closing delimiter and
never past `FRONTMATTER_MAX_BYTES`. Delimiters are whole lines holding `---` (a `---` inside a
value never ends the block). A UTF-8 BOM and CRLF line endings are read as if they were absent.
Every failure becomes a `Problem` with a stable code, the path, a line and column where YAML gives
them, and a hint; nothing here raises for bad input.
"""

from __future__ import annotations

import datetime
import errno
import os
import re
from collections.abc import Mapping
from typing import Any

import attrs

from swarm_handoff import fastyaml
from swarm_handoff.errors import Problem
from swarm_handoff.limits import YAML_TOO_MANY_NODES
from swarm_handoff.textfile import (
    NOT_A_REGULAR_FILE,
    NOT_UTF8,
    UNREADABLE,
    LoadError,
    bom_problem,
    file_kind,
    open_regular,
    would_block,
)
from swarm_handoff.yamlrules import YAML_DUPLICATE_KEY, YAML_SYNTAX

# Stable problem codes of SKILL.md files (values never change once released).
SKILL_MISSING = "SKILL_MISSING"
SKILL_NO_FRONTMATTER = "SKILL_NO_FRONTMATTER"
SKILL_UNCLOSED_FRONTMATTER = "SKILL_UNCLOSED_FRONTMATTER"
SKILL_FRONTMATTER_TOO_LARGE = "SKILL_FRONTMATTER_TOO_LARGE"
SKILL_TAB_INDENT = "SKILL_TAB_INDENT"
SKILL_UNQUOTED_COLON = "SKILL_UNQUOTED_COLON"
SKILL_NOT_MAPPING = "SKILL_NOT_MAPPING"
SKILL_BROKEN_SYMLINK = "SKILL_BROKEN_SYMLINK"
SKILL_SYMLINK_LOOP = "SKILL_SYMLINK_LOOP"
SKILL_NOT_A_FILE = "SKILL_NOT_A_FILE"
SKILL_FRONTMATTER_AFTER_COMMENT = "SKILL_FRONTMATTER_AFTER_COMMENT"
# Re-exported so that callers find every code of a SKILL.md in one module.
__all__ = [
    "NOT_UTF8",
    "UNREADABLE",
    "YAML_DUPLICATE_KEY",
    "YAML_SYNTAX",
    "YAML_TOO_MANY_NODES",
    "Frontmatter",
    "load_skill_md",
    "parse_frontmatter",
]

# Real frontmatter is 1-10 KiB; 256 KiB leaves room for long descriptions and stops runaway reads.
FRONTMATTER_MAX_BYTES = 256 * 1024
_CHUNK = 16 * 1024
_BOM = b"\xef\xbb\xbf"
# HTML comments before the opening '---' (generated spec-kit skills have a "do not edit" banner).
_LEADING_COMMENTS = re.compile(rb"(?:\s*<!--.*?-->)+\s*", re.S)
_OPEN = re.compile(rb"---[ \t]*\r?\n")
_CLOSE = re.compile(rb"^---[ \t]*\r?$", re.M)
_COLON_HINT = (
    'quote the whole value, e.g. description: "Use when: ..."; an unquoted ": " inside a value is '
    "the most common reason a skill disappears from discovery"
)


@attrs.frozen
class Frontmatter:
    """The frontmatter of one SKILL.md as plain data (or None) and the problems met reading it."""

    data: Mapping[str, Any] | None
    problems: tuple[Problem, ...] = ()

    @property
    def ok(self) -> bool:
        """True when a mapping was read, so metadata can be interpreted."""
        return self.data is not None


def _problem(code: str, message: str, path: str, hint: str, line: int | None = None) -> Problem:
    return Problem(code, message, path=path, line=line, hint=hint)


def stat_problem(path: str, exc: OSError) -> Problem:
    """Name what is wrong with a path that cannot be opened: loop, dangling link, folder, permissions."""
    if exc.errno == errno.ELOOP:
        return _problem(SKILL_SYMLINK_LOOP, "symbolic link loop", path, "point the link at a real file")
    if isinstance(exc, IsADirectoryError):
        return not_a_file(path, "a folder, not a regular file")
    if exc.errno == errno.ENXIO:  # what opening a socket gives
        return not_a_file(path, "a socket, not a regular file")
    if isinstance(exc, FileNotFoundError) and os.path.islink(path):
        target = os.readlink(path)
        return _problem(
            SKILL_BROKEN_SYMLINK, f"symbolic link to missing {target}", path, "fix or remove the dangling link"
        )
    if isinstance(exc, FileNotFoundError):
        return _problem(SKILL_MISSING, "no SKILL.md", path, "add a SKILL.md to the skill folder")
    return _problem(UNREADABLE, f"cannot read: {exc.strerror or exc}", path, "check the file's permissions")


def read_frontmatter_bytes(
    path: str, limit: int = FRONTMATTER_MAX_BYTES, *, expect: tuple[int, int] | None = None
) -> bytes:
    """Return the bytes between the delimiters, reading no further than the closing one (or `limit`).

    Only a regular file is read (`textfile.open_regular`): a FIFO named SKILL.md would block the
    read forever, a device would never end it.
    """
    try:
        fd = open_regular(path, describe=stat_problem, expect=expect)
    except LoadError as exc:
        if exc.problem.code == NOT_A_REGULAR_FILE:
            raise LoadError(not_a_file(path, exc.problem.message)) from None
        raise
    try:
        with os.fdopen(fd, "rb") as handle:
            buf = handle.read(_CHUNK)
            if buf is None:  # O_NONBLOCK: a file that would make us wait (EAGAIN) gives nothing
                raise LoadError(would_block(path))
            return _scan(buf, handle, path, limit)
    except BlockingIOError:
        raise LoadError(would_block(path)) from None
    except OSError as exc:
        raise LoadError(stat_problem(path, exc)) from None


def not_a_file(path: str, what: str) -> Problem:
    """SKILL_NOT_A_FILE for a SKILL.md that is `what` (a folder, a FIFO...): never opened, never read."""
    return _problem(SKILL_NOT_A_FILE, f"SKILL.md is {what}", path, "SKILL.md must be a regular file")


def irregular_file(path: str, mode: int) -> Problem:
    """SKILL_NOT_A_FILE for a SKILL.md whose `st_mode` is not a regular file, worded as the core words it."""
    return not_a_file(path, f"{file_kind(mode)}, not a regular file")


def _no_opening(buf: bytes, start: int, path: str) -> LoadError:
    """Why a file does not open with '---': another encoding, comments first, or no frontmatter."""
    other = bom_problem(buf, path)
    if other is not None:
        return LoadError(other)
    comments = _LEADING_COMMENTS.match(buf, start)
    if comments is not None and comments.end() > start and _OPEN.match(buf, comments.end()):
        line = buf[: comments.end()].count(b"\n") + 1
        return LoadError(
            _problem(
                SKILL_FRONTMATTER_AFTER_COMMENT,
                f"the frontmatter starts on line {line}, after an HTML comment; it must start on line 1",
                path,
                "move the comment below the closing '---' (into the body): agents read frontmatter "
                "only when '---' is the very first line",
                line=1,
            )
        )
    return LoadError(
        _problem(
            SKILL_NO_FRONTMATTER,
            "no YAML frontmatter: the first line is not '---'",
            path,
            "start the file with a line '---', the metadata, then a line '---'",
            line=1,
        )
    )


def _scan(buf: bytes, handle: Any, path: str, limit: int) -> bytes:
    start = 3 if buf.startswith(_BOM) else 0
    opening = _OPEN.match(buf, start)
    if opening is None:
        raise _no_opening(buf, start, path)
    body_start = opening.end()
    while True:
        match = _CLOSE.search(buf, body_start)
        # A match at the very end of a chunk may be the start of a longer line: read on to be sure.
        if match is not None and match.end() < len(buf):
            return buf[body_start : match.start()]
        if len(buf) > limit:
            raise LoadError(
                _problem(
                    SKILL_FRONTMATTER_TOO_LARGE,
                    f"no closing '---' within the first {limit} bytes",
                    path,
                    "close the frontmatter with a line '---'; keep metadata short and move prose to the body",
                )
            )
        more = handle.read(_CHUNK)
        if more is None:  # a non-blocking read that would have waited
            raise LoadError(would_block(path))
        if not more:
            if match is not None:
                return buf[body_start : match.start()]
            raise LoadError(
                _problem(
                    SKILL_UNCLOSED_FRONTMATTER,
                    "the frontmatter has no closing '---' line",
                    path,
                    "add a line holding only '---' after the metadata",
                    line=1,
                )
            )
        buf += more


def parse_frontmatter(raw: bytes, path: str) -> Frontmatter:
    """Decode and parse frontmatter bytes; YAML errors are located in the whole file (line 1 is '---')."""
    raw = raw.replace(b"\r\n", b"\n")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 2
        problem = _problem(NOT_UTF8, f"not UTF-8 text (byte {exc.start})", path, "save the file as UTF-8", line=line)
        return Frontmatter(None, (problem,))
    try:
        data = fastyaml.load(text, path=path, line_offset=1)
    except LoadError as exc:
        return Frontmatter(None, (_classify(exc.problem, text),))
    if data is None:
        data = {}
    if not isinstance(data, dict):
        problem = _problem(
            SKILL_NOT_MAPPING,
            f"the frontmatter is a {type(data).__name__}, not a mapping of keys to values",
            path,
            "write the metadata as 'key: value' lines",
            line=2,
        )
        return Frontmatter(None, (problem,))
    return Frontmatter(data)  # fastyaml gives plain data already (text keys, timestamps as text)


def _classify(problem: Problem, text: str) -> Problem:
    """Give the two most common YAML mistakes in skills their own codes and a precise hint."""
    if problem.code != YAML_SYNTAX:
        return problem
    lines = text.split("\n")
    last = (problem.line or 1) - 1  # file line of the error, 1-based; the text starts on file line 2
    for index in range(min(last, len(lines))):
        indent = lines[index][: len(lines[index]) - len(lines[index].lstrip(" \t"))]
        if "\t" in indent:
            return attrs.evolve(
                problem,
                code=SKILL_TAB_INDENT,
                message="a tab in the indentation (YAML indents with spaces only)",
                line=index + 2,
                column=indent.index("\t") + 1,
                hint="replace the tabs at the start of the line with spaces",
            )
    error_line = lines[last - 1] if 0 < last <= len(lines) else ""
    value = error_line.split(":", 1)[1].strip() if ":" in error_line else ""
    if value[:1] in ("[", "{") and "mapping values" not in problem.message:
        return attrs.evolve(
            problem, hint="a value starting with '[' or '{' is read as a list or mapping; quote the whole value"
        )
    if "mapping values are not allowed" in problem.message:
        message = f"unquoted ': ' in a value ({problem.message})"
        return attrs.evolve(problem, code=SKILL_UNQUOTED_COLON, message=message, hint=_COLON_HINT)
    return problem


def plain(value: Any) -> Any:
    """Turn loaded YAML into JSON-ready data (dates to ISO text), so cached and fresh reads agree."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    return str(value)


def load_skill_resource(resource: Any, limit: int = FRONTMATTER_MAX_BYTES) -> Frontmatter:
    """Read a SKILL.md given as a path or an `importlib.resources` Traversable (package data of a pack)."""
    if isinstance(resource, (str, os.PathLike)):
        return load_skill_md(os.fspath(resource), limit)
    label = str(resource)
    try:
        with resource.open("rb") as handle:
            raw = _scan(handle.read(_CHUNK), handle, label, limit)
    except LoadError as exc:
        return Frontmatter(None, (exc.problem,))
    except OSError as exc:
        return Frontmatter(None, (stat_problem(label, exc),))
    return parse_frontmatter(raw, label)


def load_skill_md(
    path: str, limit: int = FRONTMATTER_MAX_BYTES, *, expect: tuple[int, int] | None = None
) -> Frontmatter:
    """Read and parse one SKILL.md's frontmatter; every failure is a problem, never an exception.

    `expect`: the (device, inode) the walker judged; another file found at `path` is not read.
    """
    try:
        raw = read_frontmatter_bytes(path, limit, expect=expect)
    except LoadError as exc:
        return Frontmatter(None, (exc.problem,))
    return parse_frontmatter(raw, path)


def describe(problem: Problem) -> str:
    """One line for a problem: `path:line:col: CODE: message`, as compilers print them."""
    where = problem.location()
    return f"{where + ': ' if where else ''}{problem.code}: {problem.message}"
