"""Shell completion of values: skill, scorer, workflow and format names, from the operations table.

A `Param` says what it completes (`complete="skill"`...); here each kind is a function listing the
names that begin with what the user typed. A completion never fails the shell: whatever goes wrong
(a broken plugin, an unreadable folder) offers nothing rather than printing an error mid-line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from swarm_handoff.components import Kind
from swarm_handoff.formatting import available_formats
from swarm_handoff.operations import Param
from swarm_handoff.plugins import get_host
from swarm_handoff.scopes import Scope

__all__ = ["NAMES", "completer", "names_of"]


def _skills() -> Iterable[str]:
    from swarm_handoff.discovery import discover, make_context

    result = discover(make_context(None), get_host(), show_all=True)
    return [r.name for r in (*result.workflows, *result.ineligible)]


def _scorers() -> Iterable[str]:

    return list(get_host().components(Kind.SCORER))


def _workflows() -> Iterable[str]:
    from swarm_handoff.workflow.registry import get_registry

    return list(get_registry(get_host().env).workflows)


def _formats() -> Iterable[str]:
    return list(available_formats(get_host()))


def _scopes() -> Iterable[str]:
    return [s.value for s in Scope]


# What each `Param.complete` kind offers.
NAMES: dict[str, Callable[[], Iterable[str]]] = {
    "skill": _skills,
    "scorer": _scorers,
    "workflow": _workflows,
    "format": _formats,
    "scope": _scopes,
}


def names_of(kind: str) -> list[str]:
    """The names of `kind`, sorted and unique; none when listing them fails (a shell must not see an error)."""
    try:
        return sorted(set(NAMES[kind]()))
    except Exception:  # completion is a convenience: a broken plugin or folder offers nothing
        return []


def completer(param: Param) -> Callable[[str], list[str]] | None:
    """The function typer calls for `param`'s completions, or None when it offers nothing of its own."""
    kind = param.complete
    if kind is None and param.choices is None:
        return None

    def complete(incomplete: str) -> list[str]:
        offered = names_of(kind) if kind is not None else list(param.choice_values() or ())
        return [name for name in offered if name.startswith(incomplete)]

    # typer reads every completer's signature while it builds the app, on every command line: types,
    # not the strings `from __future__ import annotations` leaves, which it would compile and evaluate.
    complete.__annotations__ = {"incomplete": str, "return": list[str]}
    return complete
