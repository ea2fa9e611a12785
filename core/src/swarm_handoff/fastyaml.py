"""A lean safe constructor for frontmatter: ruamel.yaml's parser events turned into plain data.

ruamel's own safe constructor and its versioned resolver cost ~1.5 ms per SKILL.md in Python even
over the C parser; building dicts, lists and scalars straight from the parser's events costs a
tenth of that. The same code runs over the C parser (`ruamel.yaml.clib`) and the pure one, so the
two give identical results. Scalars resolve like YAML 1.2's core schema (null, bool, int, float);
timestamps stay text, as discovery wants them. Aliases share the anchored value and count towards
the same node limit as `jsonio.check_size`, so an alias bomb fails fast; duplicate keys are errors.
The other limits of `limits` and `yamlrules` hold too, checked as the events arrive (no second pass): nesting
(aliases included) up to `MAX_DEPTH`, number literals up to `MAX_NUMBER_CHARS`, core-schema tags only.
"""

from __future__ import annotations

import re
from typing import Any

from swarm_handoff.errors import LoadError, Problem
from swarm_handoff.jsonio import too_deep
from swarm_handoff.limits import MAX_DEPTH, MAX_NODES, MAX_NUMBER_CHARS, YAML_TOO_MANY_NODES
from swarm_handoff.textfile import MAX_BYTES, YAML_TOO_LARGE
from swarm_handoff.yamlevents import c_parser, feed_events
from swarm_handoff.yamlrules import (
    SAFE_TAGS,
    YAML_DUPLICATE_KEY,
    YAML_SYNTAX,
    check_nesting,
    is_long_number,
    long_number,
    unsafe_tag,
)

_NULL = {"", "~", "null", "Null", "NULL"}
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"^[-+]?(?:0|[1-9][0-9_]*)\Z")
_INT_OTHER = re.compile(r"^[-+]?(?:0b[01_]+|0o[0-7_]+|0x[0-9a-fA-F_]+)\Z")
_FLOAT = re.compile(
    r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)"
    r"|[-+]?\.[0-9_]+(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_STR_TAGS = {"tag:yaml.org,2002:str", "!!str"}


def _scalar(value: str, style: Any, tag: str | None) -> Any:
    if tag in _STR_TAGS or (style not in (None, "") and tag is None):
        return value  # quoted or block scalars are always text
    if value in _NULL:
        return None
    if value in _BOOL:
        return _BOOL[value]
    first = value[:1]
    if first.isdigit() or first in "-+.":
        if _INT.match(value):
            return int(value.replace("_", ""))
        if _INT_OTHER.match(value):
            return int(value.replace("_", ""), 0)
        if _FLOAT.match(value):
            return float(value.replace("_", "").lower().replace(".inf", "inf").replace(".nan", "nan"))
    return value


def _line(event: Any, offset: int) -> tuple[int | None, int | None]:
    mark = getattr(event, "start_mark", None)
    if mark is None:
        return None, None
    return mark.line + 1 + offset, mark.column + 1


def load(text: str, *, path: str | None = None, line_offset: int = 0, limit: int = MAX_NODES) -> Any:
    """Parse one YAML document into plain data, with located errors as `LoadError`."""
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    if len(text) > MAX_BYTES:
        raise LoadError(Problem(YAML_TOO_LARGE, f"larger than {MAX_BYTES} bytes", path=path, hint="check the path"))
    check_nesting(text, path=path)
    try:
        try:
            return _build(text, path, line_offset, limit)
        except (MarkedYAMLError, LoadError):
            if c_parser() is None:
                raise  # that was the pure parser already
            # libyaml (the C parser) rejects some documents the pure parser accepts, such as `[a?]`
            # in a flow sequence, and may first hand out events the pure parser would not (`0?` read
            # as `0`, a duplicate key before its own syntax error). The pure parser is the reference:
            # a skill must not become invalid because `ruamel.yaml.clib` happens to be installed.
            # Only failures pay for the re-parse.
            return _build(text, path, line_offset, limit, pure=True)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 + line_offset if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        message = " ".join(str(part) for part in (exc.context, exc.problem) if part) or str(exc)
        raise LoadError(
            Problem(
                YAML_SYNTAX,
                message.replace("\n", " "),
                path=path,
                line=line,
                column=column,
                hint="quote values that contain ': ' or start with a special character",
            )
        ) from None
    except (YAMLError, RecursionError, ValueError) as exc:
        raise LoadError(Problem(YAML_SYNTAX, f"invalid YAML: {exc}", path=path)) from None


def _too_many(path: str | None, limit: int) -> LoadError:
    return LoadError(
        Problem(
            YAML_TOO_MANY_NODES,
            f"the document expands to more than {limit} values (aliases included)",
            path=path,
            hint="remove anchors/aliases that repeat large structures",
        )
    )


def _duplicate(key: Any, event: Any, path: str | None, offset: int) -> LoadError:
    line, column = _line(event, offset)
    return LoadError(
        Problem(
            YAML_DUPLICATE_KEY,
            f"found duplicate key {key!r}",
            path=path,
            line=line,
            column=column,
            hint="remove or rename the repeated key",
        )
    )


_NO_KEY = object()
_KINDS: dict[type, str] = {}


def _kinds() -> None:
    """Map ruamel's event classes to their names once (a dict lookup beats a name comparison per event)."""
    from ruamel.yaml import events

    for name in ("ScalarEvent", "MappingStartEvent", "SequenceStartEvent", "MappingEndEvent", "SequenceEndEvent"):
        _KINDS[getattr(events, name)] = name
    _KINDS[events.AliasEvent] = "AliasEvent"


class _Builder:
    """Builds plain data from events; `count` is every value visited with aliases expanded."""

    def __init__(self, path: str | None, offset: int, limit: int) -> None:
        self.path, self.offset, self.limit = path, offset, limit
        self.anchors: dict[str, tuple[Any, int, int]] = {}
        # Each open collection: [container, pending (key, event) or _NO_KEY, anchor, size, merged keys,
        # height (levels of collections below it, aliases expanded)]
        self.stack: list[list[Any]] = []
        self.count = 0
        self.root: Any = None

    def add(self, value: Any, visited: int, size: int, event: Any, height: int = 0) -> None:
        self.count += visited
        if self.count > self.limit:
            raise _too_many(self.path, self.limit)
        if height + len(self.stack) > MAX_DEPTH:  # an alias can bring a deep value into a deep spot
            raise too_deep(self.path, _line(event, self.offset)[0])
        if not self.stack:
            self.root = value
            return
        top = self.stack[-1]
        top[3] += size
        if height > top[5]:
            top[5] = height
        container = top[0]
        if isinstance(container, list):
            container.append(value)
        elif top[1] is _NO_KEY:
            top[1] = (value, event)
        else:
            key, key_event = top[1]
            top[1] = _NO_KEY
            plain_key = getattr(key_event, "style", None) in (None, "")
            if key == "<<" and plain_key and isinstance(value, (dict, list)):  # merge keys, as the safe loader has them
                for merged in value if isinstance(value, list) else [value]:
                    if isinstance(merged, dict):
                        for k, v in merged.items():
                            if k not in container:
                                container[k] = v
                                top[4].add(k)
                return
            if key.__class__ is not str:  # keys are text in plain data (as JSON has them)
                key = str(key)
            if key in container and key not in top[4]:
                raise _duplicate(key, key_event, self.path, self.offset)
            top[4].discard(key)  # an explicit key overrides a merged one
            container[key] = value

    def feed(self, event: Any) -> None:
        kind = _KINDS.get(event.__class__, "")
        if kind == "ScalarEvent":
            if event.tag not in SAFE_TAGS and event.tag not in _STR_TAGS:
                raise unsafe_tag(str(event.tag), self.path, *_line(event, self.offset))
            if len(event.value) > MAX_NUMBER_CHARS and event.style in (None, "") and is_long_number(event.value):
                raise long_number(event.value, self.path, *_line(event, self.offset))
            value = _scalar(event.value, event.style, event.tag)
            if event.anchor:
                self.anchors[event.anchor] = (value, 1, 0)
            self.add(value, 1, 1, event)
        elif kind == "MappingStartEvent" or kind == "SequenceStartEvent":
            if event.tag not in SAFE_TAGS:
                raise unsafe_tag(str(event.tag), self.path, *_line(event, self.offset))
            if len(self.stack) >= MAX_DEPTH:
                raise too_deep(self.path, _line(event, self.offset)[0])
            self.stack.append([{} if kind == "MappingStartEvent" else [], _NO_KEY, event.anchor, 1, set(), 0])
        elif kind == "MappingEndEvent" or kind == "SequenceEndEvent":
            container, _, anchor, size, _, below = self.stack.pop()
            if anchor:
                self.anchors[anchor] = (container, size, below + 1)
            self.add(container, 1, size, event, below + 1)
        elif kind == "AliasEvent":
            if event.anchor not in self.anchors:
                line, column = _line(event, self.offset)
                problem = Problem(YAML_SYNTAX, f"unknown alias *{event.anchor}", path=self.path, line=line,
                                  column=column, hint="define the anchor (&name) before using it")  # fmt: skip
                raise LoadError(problem)
            value, size, height = self.anchors[event.anchor]
            self.add(value, size, size, event, height)


def _build(text: str, path: str | None, offset: int, limit: int, *, pure: bool = False) -> Any:
    if not _KINDS:
        _kinds()
    builder = _Builder(path, offset, limit)
    feed_events(text, builder.feed, pure=pure)
    return builder.root
