"""Check what plugins hand back before the host uses it, and keep their prints off stdout.

A plugin is code someone else wrote: a `priority` that is a string, a source that returns a dict,
a validator whose `versions` is a string, a scorer that returns garbage. Each check here either
returns the value in the shape the host relies on or raises `BadResult` saying what is wrong; the
caller blames the plugin and its distribution (`PluginHost.blame`) and goes on without it.

`quiet()` sends anything a plugin prints to stderr, so a machine format on stdout stays exactly
one document. Every place the host runs plugin code (importing an entry point, calling a hook,
building or calling a component) is wrapped in it; the CLI's own output is written outside.
`call_hook` is that wrapping for one plugin's hook, and `short_error` the one line every failure
of plugin code is reported with.

All checks live in this one module on purpose: the plugin API will become typed protocols, and
these are the runtime half of that contract.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from swarm_handoff.components import DEFAULT_PRIORITY, PrioritizedSource
from swarm_handoff.errors import ErrorCode, Problem
from swarm_handoff.scopes import precedence_of, specs_of

if TYPE_CHECKING:
    from swarm_handoff.plugins import PluginHost
    from swarm_handoff.records import Contribution, SourceResult

PLUGIN_BAD_RESULT = "PLUGIN_BAD_RESULT"
# More than this many items from one call is a runaway plugin, not an answer.
MAX_ITEMS = 100_000
_REPR_LIMIT = 80


class BadResult(ValueError):
    """A plugin returned a value its protocol does not allow; the message says what was wrong."""


# fd 1 is the process's, shared by every thread: the first `quiet()` to enter points it at stderr,
# the last to leave points it back (plugin hooks run in worker threads, side by side).
_fd_lock = threading.Lock()
_fd_users = 0
_fd_saved: int | None = None


def _flush(stream: Any) -> None:
    with contextlib.suppress(Exception):  # a closed or replaced stream: nothing to flush
        stream.flush()


@contextlib.contextmanager
def stdout_descriptor_to_stderr() -> Iterator[None]:
    """Point file descriptor 1 at stderr while plugin code runs, and back after (nested and threaded calls share it).

    `redirect_stdout` only catches Python's `print`; `os.write(1, ...)`, C code and child processes
    write to the descriptor itself, which is the document's (`--format json`). Over MCP's stdio the
    SDK already points fd 1 away from the protocol; this keeps it so and restores it the same way.
    """
    global _fd_users, _fd_saved
    with _fd_lock:
        if _fd_users == 0:
            _flush(sys.stdout)
            _flush(sys.__stdout__)
            try:
                saved = os.dup(1)
            except OSError:  # no fd 1 at all: nothing to protect
                saved = None
            if saved is not None:
                try:
                    os.dup2(2, 1)
                except OSError:
                    os.close(saved)
                    saved = None
            _fd_saved = saved
        _fd_users += 1
    try:
        yield
    finally:
        with _fd_lock:
            _fd_users -= 1
            if _fd_users == 0 and _fd_saved is not None:
                _flush(sys.__stdout__)  # what the plugin buffered goes where fd 1 pointed while it ran
                with contextlib.suppress(OSError):
                    os.dup2(_fd_saved, 1)
                os.close(_fd_saved)
                _fd_saved = None


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Run plugin code with stdout pointing at stderr, so its prints never corrupt a document.

    Both levels: Python's `sys.stdout` and file descriptor 1 (`stdout_descriptor_to_stderr`).
    """
    with stdout_descriptor_to_stderr(), contextlib.redirect_stdout(sys.stderr):
        yield


def short_error(exc: BaseException) -> str:
    """The exception's type, message and the line that raised it, on one line."""
    import traceback  # deferred: only a failing plugin pays for it

    last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    where = f" ({last[0].filename}:{last[0].lineno})" if last else ""
    return f"{type(exc).__name__}: {exc}{where}"


def call_hook(host: PluginHost, impl: Any, hook_name: str, kwargs: Mapping[str, Any]) -> bool:
    """Call one plugin's hook quietly; one that raises is reported (PLUGIN_HOOK_FAILED) so the rest still load."""
    try:
        with quiet():
            impl.function(**kwargs)
    except Exception as exc:
        dist, version = host.meta(impl.plugin_name)
        host.fail(
            impl.plugin_name,
            dist,
            version,
            ErrorCode.PLUGIN_HOOK_FAILED,
            f"{hook_name}: {short_error(exc)}",
            f"fix or uninstall {dist}",
        )
        return False
    return True


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


# pluggy options the host does not honour: it calls each plugin's registering hook itself, once,
# with a `register` of the plugin's own (so that each component names the plugin that offered it),
# in load order (so that a third party never takes a built-in's name first).
PLUGIN_HOOK_OPTION_UNSUPPORTED = "PLUGIN_HOOK_OPTION_UNSUPPORTED"
_UNHONOURED = ("wrapper", "hookwrapper", "historic", "tryfirst", "trylast")
_NOT_RUN = frozenset({"wrapper", "hookwrapper", "historic"})  # a wrapper called directly registers nothing


def unhonoured(impl: Any) -> tuple[str, ...]:
    """The options of a hook implementation that the host does not honour, in a stable order."""
    opts = getattr(impl, "opts", None) or {}
    return tuple(option for option in _UNHONOURED if opts.get(option))


def not_run(impl: Any) -> bool:
    """Say whether the host leaves this implementation out: a wrapper cannot register anything."""
    return not _NOT_RUN.isdisjoint(unhonoured(impl))


def option_problem(hook: str, options: tuple[str, ...]) -> tuple[str, str]:
    """The message and hint for an implementation marked with options the host does not honour."""
    marks = ", ".join(f"{option}=True" for option in options)
    if _NOT_RUN.isdisjoint(options):
        outcome = (
            "the host calls hooks in plugin load order (built-ins, then entry points by name): the option is ignored"
        )
    else:
        outcome = (
            "the host calls each plugin's hook once, directly, so a wrapper would register nothing: it is not called"
        )
    hint = f"remove {marks} from the @hookimpl of {hook} (see docs/plugins.md#hook-options)"
    return f"{hook} is marked {marks}; {outcome}", hint


def check_batch(value: Any, count: int) -> list[Any]:
    """A batch scorer's answer: one answer per candidate, in order; each is then read as one `score()`."""
    answers = _items(value, "the result")
    if len(answers) != count:
        raise BadResult(f"returned {len(answers)} answers for {count} candidates")
    return answers
