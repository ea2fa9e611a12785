"""Check what plugins hand back before the host uses it.

A plugin is code someone else wrote: a `priority` that is a string, a source that returns a dict,
a validator whose `versions` is a string, a scorer that returns garbage. Each check here either
returns the value in the shape the host relies on or raises `BadResult` saying what is wrong; the
caller blames the plugin and its distribution (`PluginHost.blame`) and goes on without it.

Calling a plugin's hook (quietly, with the blame) and the hook options the host does not honour
are `plugin_hooks.py`'s: collecting components, commands and operations calls hooks without
checking any answer, so it does not stand on these checks and the records they read.

All checks live in this one module on purpose: the plugin API will become typed protocols, and
these are the runtime half of that contract.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from swarm_handoff.components import DEFAULT_PRIORITY, PrioritizedSource
from swarm_handoff.errors import Problem
from swarm_handoff.scopes import precedence_of, specs_of

if TYPE_CHECKING:
    from swarm_handoff.records import Contribution, SourceResult

PLUGIN_BAD_RESULT = "PLUGIN_BAD_RESULT"
# More than this many items from one call is a runaway plugin, not an answer.
MAX_ITEMS = 100_000
_REPR_LIMIT = 80


class BadResult(ValueError):
    """A plugin returned a value its protocol does not allow; the message says what was wrong."""


def shown(value: Any) -> str:
    """A short, safe description of a bad value for a message (its repr may be huge or raise)."""
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= _REPR_LIMIT else text[: _REPR_LIMIT - 1] + "…"


def _items(value: Any, what: str) -> list[Any]:
    """Any iterable (a generator of results is fine), bounded; a string or mapping is not a sequence."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise BadResult(f"{what} is {type(value).__name__} {shown(value)}, not a list")
    try:
        items = list(itertools.islice(value, MAX_ITEMS + 1))
    except Exception as exc:  # a generator's own bug, met while reading it
        raise BadResult(f"{what} raised {type(exc).__name__} while being read: {exc}") from exc
    if len(items) > MAX_ITEMS:
        raise BadResult(f"{what} has more than {MAX_ITEMS} items")
    return items


def check_priority(value: Any) -> int:
    """A source's `priority`: a whole number (a bool or "1" would sort wrongly or crash the sort)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadResult(f"has priority {shown(value)} ({type(value).__name__}), not a whole number")
    return value


def check_order(source: object) -> float:
    """Where a source runs in the one ordering: its most local declared scope, else its `priority`."""
    try:
        specs = specs_of(source)
    except TypeError as exc:
        raise BadResult(str(exc)) from None
    declared = precedence_of(specs) if specs else None
    if declared is not None:
        return declared

    return check_priority(source.priority if isinstance(source, PrioritizedSource) else DEFAULT_PRIORITY)


def check_source_result(value: Any) -> SourceResult:
    """A source's answer: a `SourceResult` whose parts have the types discovery and the caches read."""
    from swarm_handoff.records import SkillRecord, SourceResult  # discovery's; the host loads without them

    if not isinstance(value, SourceResult):
        raise BadResult(f"returned {type(value).__name__} {shown(value)}, not a SourceResult")
    records = _items(value.records, "records")
    for index, record in enumerate(records):
        if not isinstance(record, SkillRecord):
            raise BadResult(f"records[{index}] is {type(record).__name__} {shown(record)}, not a SkillRecord")
        if not isinstance(record.name, str) or not record.name:
            raise BadResult(f"records[{index}] has the name {shown(record.name)}, not a non-empty string")
    problems = check_problems(value.problems, "problems")
    scanned = value.scanned
    if isinstance(scanned, bool) or not isinstance(scanned, int) or scanned < 0:
        raise BadResult(f"scanned is {shown(scanned)}, not a whole number >= 0")
    if type(value.records) is tuple and type(value.problems) is tuple:
        return value
    return SourceResult(records=tuple(records), problems=problems, scanned=scanned)


def check_problems(value: Any, what: str = "the result") -> tuple[Problem, ...]:
    """A validator's (or source's) problems: a list or tuple of `Problem`s, nothing else."""
    items = _items(value, what)
    for index, item in enumerate(items):
        if not isinstance(item, Problem):
            raise BadResult(f"{what}[{index}] is {type(item).__name__} {shown(item)}, not a Problem")
    return tuple(items)


def check_versions(value: Any) -> tuple[str, ...]:
    """A validator's `versions`: a collection of version strings; a lone "2.0" would match "2" and "."."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, set, frozenset)):
        raise BadResult(f"has versions {shown(value)} ({type(value).__name__}), not a tuple of version strings")
    if not value or not all(isinstance(v, str) and v for v in value):
        raise BadResult(f"has versions {shown(value)}, not a non-empty tuple of version strings")
    return tuple(value)


def check_contributions(value: Any) -> tuple[Contribution, ...]:
    """A scorer's answer: `Contribution`s or (factor, points, reason) triples with finite points."""
    from swarm_handoff.records import Contribution  # ranking's; the host loads without it

    checked: list[Contribution] = []
    for index, item in enumerate(_items(value, "the result")):
        if not isinstance(item, Contribution):
            if isinstance(item, (tuple, list)) and len(item) == 3:
                item = Contribution(*item)
            else:
                raise BadResult(f"item {index} is {shown(item)}, not a Contribution")
        points = item.points
        if isinstance(points, bool) or not isinstance(points, (int, float)) or not math.isfinite(points):
            raise BadResult(f"item {index} has points {shown(points)}, not a finite number")
        if not isinstance(item.factor, str) or not isinstance(item.reason, str):
            raise BadResult(f"item {index} needs a string factor and reason")
        checked.append(item)
    return tuple(checked)


def check_batch(value: Any, count: int) -> list[Any]:
    """A batch scorer's answer: one answer per candidate, in order; each is then read as one `score()`."""
    answers = _items(value, "the result")
    if len(answers) != count:
        raise BadResult(f"returned {len(answers)} answers for {count} candidates")
    return answers
