"""Load YAML and JSON that people wrote, safely: size cap, alias-bomb guard, located errors.

The limits every input parser of the tool shares are the constants below (documented in
docs/errors.md, "Input limits"): size, values, nesting depth (block and flow, aliases included),
number length and the explicit tags allowed. Single documents are checked on the parser's events
(no recursion) before the recursive constructor runs, and again on the loaded data.

ruamel.yaml is imported on first use. Single documents are parsed with the pure-Python loader,
the reference: libyaml (the C loader of the `fast` extra) rejects some valid YAML, such as `[a?]`
in a flow sequence. Discovery's bulk parsing (`fastyaml`) uses the C parser for speed and falls
back to the pure one when it fails, so both give the same verdicts. Each thread
gets its own `YAML` instance, because one instance shared across threads corrupts parses.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from swarm_handoff import jsonio
from swarm_handoff.errors import Problem, SwarmError
from swarm_handoff.jsonio import check_size as check_size
from swarm_handoff.jsonio import too_deep as too_deep
from swarm_handoff.limits import KEY_NOT_TEXT as KEY_NOT_TEXT
from swarm_handoff.limits import MAX_DEPTH as MAX_DEPTH
from swarm_handoff.limits import MAX_INT_BITS as MAX_INT_BITS
from swarm_handoff.limits import MAX_NODES as MAX_NODES
from swarm_handoff.limits import MAX_NUMBER_CHARS as MAX_NUMBER_CHARS
from swarm_handoff.limits import NUMBER_TOO_LONG as NUMBER_TOO_LONG
from swarm_handoff.limits import YAML_TOO_DEEP as YAML_TOO_DEEP
from swarm_handoff.limits import YAML_TOO_MANY_NODES as YAML_TOO_MANY_NODES

# The file-reading half lives in `textfile`; its names stay importable from here (older imports).
from swarm_handoff.textfile import MAX_BYTES as MAX_BYTES
from swarm_handoff.textfile import NOT_A_REGULAR_FILE as NOT_A_REGULAR_FILE
from swarm_handoff.textfile import NOT_UTF8 as NOT_UTF8
from swarm_handoff.textfile import OTHER_BOMS as OTHER_BOMS
from swarm_handoff.textfile import RESAVE_HINT as RESAVE_HINT
from swarm_handoff.textfile import UNREADABLE as UNREADABLE
from swarm_handoff.textfile import YAML_TOO_LARGE as YAML_TOO_LARGE
from swarm_handoff.textfile import LoadError as LoadError
from swarm_handoff.textfile import bom_problem as bom_problem
from swarm_handoff.textfile import file_kind as file_kind
from swarm_handoff.textfile import open_regular as open_regular
from swarm_handoff.textfile import read_regular as read_regular
from swarm_handoff.textfile import read_text as read_text
from swarm_handoff.yamlevents import feed_events, forget_documents, forget_version, parser_name
from swarm_handoff.yamlrules import (
    SAFE_TAGS,
    YAML_DUPLICATE_KEY,
    YAML_SYNTAX,
    check_nesting,
    is_long_number,
    long_number,
    unsafe_tag,
)

_local = threading.local()


def _yaml() -> Any:
    yaml = getattr(_local, "yaml", None)
    if yaml is None:
        from ruamel.yaml import YAML

        # The pure parser for single documents (synthesis, payloads, history): the C one (libyaml)
        # rejects some valid YAML, and a file must mean the same with or without the `fast` extra.
        yaml = YAML(typ="safe", pure=True)
        _local.yaml = yaml

    return forget_version(yaml)  # a `%YAML 1.1` of an earlier file must not stick


def loader_kind() -> str:
    """Say which YAML parser discovery uses here ("C" or "pure"), for benchmarks and bug reports."""
    return parser_name()


def check_events(text: str, *, path: str | None = None, line_offset: int = 0) -> None:
    """Walk the parser's events (no recursion) to refuse deep nesting, unsafe tags and huge numbers.

    libyaml parses when installed (a tenth of the pure parser's time); it refuses some valid YAML,
    so a syntax error there is checked again with the pure parser, the reference.
    """
    from ruamel.yaml.error import MarkedYAMLError

    try:
        feed_events(text, _EventCheck(path, line_offset).feed)
    except MarkedYAMLError:
        feed_events(text, _EventCheck(path, line_offset).feed, pure=True)


class _EventCheck:
    """The limits of `check_events`, one event at a time (a dict lookup per event, no isinstance chain)."""

    def __init__(self, path: str | None, line_offset: int) -> None:
        from ruamel.yaml import events

        self.path, self.offset, self.depth = path, line_offset, 0
        self.kinds = _event_kinds(events)

    def feed(self, event: Any) -> None:
        kind = self.kinds.get(event.__class__)
        if kind is None or kind == "alias":  # an alias has no tag; its target was checked
            return
        if kind == "end":
            self.depth -= 1
            return
        tag = event.tag
        if tag not in SAFE_TAGS:
            mark = event.start_mark
            raise unsafe_tag(str(tag), self.path, mark.line + 1 + self.offset, mark.column + 1)
        if kind == "start":
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise too_deep(self.path, event.start_mark.line + 1 + self.offset)
        elif (
            kind == "scalar"
            and len(event.value) > MAX_NUMBER_CHARS
            and event.style in (None, "")
            and is_long_number(event.value)
        ):
            mark = event.start_mark
            raise long_number(event.value, self.path, mark.line + 1 + self.offset, mark.column + 1)


_KIND_CACHE: dict[type, str] = {}


def _event_kinds(events: Any) -> dict[type, str]:
    if not _KIND_CACHE:
        names = {"ScalarEvent": "scalar", "AliasEvent": "alias", "MappingStartEvent": "start"}  # fmt: skip
        names.update(SequenceStartEvent="start", MappingEndEvent="end", SequenceEndEvent="end")
        for name, kind in names.items():
            _KIND_CACHE[getattr(events, name)] = kind
    return _KIND_CACHE


def parse_yaml(text: str, *, path: str | None = None, line_offset: int = 0) -> Any:
    """Parse one YAML document, turning every loader error into a located `LoadError`."""
    from ruamel.yaml.constructor import DuplicateKeyError
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    check_nesting(text, path=path)
    try:
        check_events(text, path=path, line_offset=line_offset)
        yaml = _yaml()
        try:
            data = yaml.load(text)
        finally:
            forget_documents(yaml)  # the reused instance keeps one per load otherwise
    except DuplicateKeyError as exc:
        raise LoadError(
            _marked(exc, YAML_DUPLICATE_KEY, path, line_offset, "remove or rename the repeated key")
        ) from None
    except MarkedYAMLError as exc:
        raise LoadError(
            _marked(
                exc, YAML_SYNTAX, path, line_offset, "quote values that contain ': ' or start with a special character"
            )
        ) from None
    except (YAMLError, RecursionError, ValueError) as exc:
        raise LoadError(Problem(YAML_SYNTAX, f"invalid YAML: {exc}", path=path)) from None
    except TypeError as exc:  # ruamel.yaml's constructor on a mapping used as a key (`? - a: 1`)
        raise LoadError(
            Problem(KEY_NOT_TEXT, f"a key is a mapping or holds one ({exc})", path=path, hint="write keys as text")
        ) from None
    check_size(data, path=path)
    return data


def _marked(exc: Any, code: str, path: str | None, offset: int, hint: str) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 + offset if mark is not None else None
    column = mark.column + 1 if mark is not None else None
    message = " ".join(str(part) for part in (exc.context, exc.problem) if part) or str(exc)
    return Problem(code, message.replace("\n", " "), path=path, line=line, column=column, hint=hint)


def load_file(path: Path) -> Any:
    """Load a `.json` file as JSON and anything else as YAML, with located errors."""
    text = read_text(path)
    if path.suffix.lower() == ".json":
        return jsonio.loads(text, path=str(path))
    return parse_yaml(text, path=str(path))


def load_document(path: Path, what: str, *, code: str = "VALIDATION_FAILED") -> Any:
    """Load a YAML/JSON input file, turning a load failure into the structured error commands print."""
    try:
        return load_file(path)
    except LoadError as exc:
        raise SwarmError(
            code, f"cannot load {what} {path}: {exc.problem.message}", hint=exc.problem.hint, problems=(exc.problem,)
        ) from None
