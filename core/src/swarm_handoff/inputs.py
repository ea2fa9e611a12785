"""Refusals name inputs by their neutral name; each surface renders its own spelling.

The domain (the hand-off lifecycle, its checks) writes a refusal's message and hint with markers
(`ref("accepts_from")`, `given("schema", "2.0")`, `switched_on("confirm")`...) instead of any
interface's spelling. Where the error leaves the program, the surface renders them with a
`Spelling` derived from the operations table: `--accepts-from`, `--schema 2.0`, `--yes` on the
command line; `accepts_from`, `schema=2.0`, `confirm_loop=true` over MCP. The error's details
list the neutral names it mentions (`details["inputs"]`), for a program that reads them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from swarm_handoff.errors import Problem, SwarmError
from swarm_handoff.operation_table import CORE_OPERATIONS
from swarm_handoff.operations import CLI, Operation, spelling_table
from swarm_handoff.payload.names import entry as spelled_entry
from swarm_handoff.payload.names import given as spelled_given
from swarm_handoff.payload.names import is_cli_option
from swarm_handoff.payload.names import switched_off as spelled_off
from swarm_handoff.payload.names import switched_on as spelled_on

__all__ = [
    "Spelling",
    "entry",
    "finding",
    "given",
    "handoff_spelling",
    "ref",
    "spell_error",
    "spell_problem",
    "spelling_of",
    "surface_spelling",
    "switched_off",
    "switched_on",
]

# Private-use characters no message of ours holds (and that errors do not escape, as they do control
# characters): a marker is START kind SEP name [SEP value] END.
_START, _SEP, _END = "\ue000", "\ue001", "\ue002"
_MARKER = re.compile(f"{_START}(\\w+){_SEP}(\\w+)(?:{_SEP}([^{_START}{_END}]*))?{_END}")


def _mark(kind: str, name: str, value: str | None = None) -> str:
    return f"{_START}{kind}{_SEP}{name}{'' if value is None else _SEP + value}{_END}"


def ref(name: str) -> str:
    """The input `name` as the surface spells it (`--source` / `source`)."""
    return _mark("ref", name)


def given(name: str, value: str) -> str:
    """The input with a value: `--schema 2.0` / `schema=2.0`."""
    return _mark("given", name, value)


def switched_on(name: str) -> str:
    """A yes/no input turned on: `--yes` / `confirm_loop=true`."""
    return _mark("on", name)


def switched_off(name: str) -> str:
    """A yes/no input turned off: `--no-require-signature` / `require_signature=false`."""
    return _mark("off", name)


def entry(name: str, key: str) -> str:
    """One entry of a key=value input: `--param mode=VALUE` / `mode in params`."""
    return _mark("entry", name, key)


def finding(query: str, value: str) -> str:
    """How to list the targets `discover` keeps for a query: the command, or the tool's argument."""
    return _mark("find", query, value)


@attrs.frozen
class Spelling:
    """How one surface spells each input: neutral name -> `--accepts-from` (CLI) or `accepts_from` (MCP)."""

    names: Mapping[str, str]

    def spell(self, name: str) -> str:
        """The surface's spelling of `name` (the neutral name itself when the surface has none)."""
        return self.names.get(name, name)

    def render(self, text: str) -> str:
        """`text` with every marker replaced by this surface's spelling."""
        if _START not in text:
            return text
        return _MARKER.sub(self._one, text)

    def _one(self, match: re.Match[str]) -> str:
        kind, name, value = match.group(1), match.group(2), match.group(3) or ""
        spelled = self.spell(name)
        rendering: dict[str, Callable[[], str]] = {
            "ref": lambda: spelled,
            "given": lambda: spelled_given(spelled, value),
            "on": lambda: spelled_on(spelled),
            "off": lambda: spelled_off(spelled),
            "entry": lambda: spelled_entry(spelled, value),
            "find": lambda: (
                f"swarm-handoff discover {spelled} {value}"
                if is_cli_option(spelled)
                else f"the discover tool with {spelled_given(spelled, value)}"
            ),
        }
        return rendering.get(kind, lambda: match.group(0))()


def mentioned(text: str | None) -> list[str]:
    """The neutral names the markers in `text` mention, in order, once each."""
    return list(dict.fromkeys(m.group(2) for m in _MARKER.finditer(text or "")))


def spelling_of(operations: Sequence[Operation], surface: str, first: Operation | None = None) -> Spelling:
    """The spelling of `surface` over `operations`; the parameters of `first` (the one that ran) win."""
    names = spelling_table(operations, surface)
    if first is not None:
        names.update(spelling_table((first,), surface))
    return Spelling(names)


def surface_spelling(surface: str, operation: str | None = None) -> Spelling:
    """How `surface` spells the core's inputs; the parameters of `operation` (its name) first."""
    first = next((op for op in CORE_OPERATIONS if op.name == operation), None)
    return spelling_of(CORE_OPERATIONS, surface, first)


# The inputs a hand-off refusal may name, by neutral name (a `HandoffOptions` field; `confirm`
# answers the loop and long-chain questions; `accepts_from` and `schema_version` are `discover`'s).
HANDOFF_INPUTS = (
    "source",
    "session",
    "schema",
    "synthesis",
    "received",
    "reason",
    "health_check",
    "accepts_from",
    "schema_version",
    "override_accepts_from",
    "allow_undeclared",
    "confirm",
    "expires_in",
    "require_signature",
)
# The refusals an override lifts, by neutral name: each carries it in `details["override"]`.
OVERRIDES = ("override_accepts_from", "allow_undeclared", "confirm")


def handoff_spelling(surface: str = CLI) -> Spelling:
    """How `surface` spells a hand-off's inputs (`--from` / `from_payload`, `--yes` / `confirm_loop`)."""
    return surface_spelling(surface, "handoff")


def spell_problem(problem: Problem, spelling: Spelling) -> Problem:
    """`problem` with its message and hint rendered for a surface (a warning a document carries)."""
    if not is_marked(problem.message) and not is_marked(problem.hint):
        return problem
    hint = spelling.render(problem.hint) if problem.hint is not None else None
    return attrs.evolve(problem, message=spelling.render(problem.message), hint=hint)


def spell_error(error: SwarmError, spelling: Spelling) -> SwarmError:
    """Render `error`'s markers (message, hint, problems, text details) with `spelling`, in place.

    The neutral names it mentioned are kept in `details["inputs"]`. Returns the same error.
    """
    names = mentioned(error.message) + mentioned(error.hint)
    if not names and not any(_START in p.message for p in error.problems):
        return error
    error.message = spelling.render(error.message)
    if error.hint is not None:
        error.hint = spelling.render(error.hint)
    for key, value in list(error.details.items()):
        error.details[key] = _rendered(value, spelling)
    error.problems = tuple(
        attrs.evolve(p, message=spelling.render(p.message)) if _START in p.message else p for p in error.problems
    )
    if names:
        error.details.setdefault("inputs", list(dict.fromkeys(names)))
    return error


def _rendered(value: Any, spelling: Spelling) -> Any:
    """`value` with its text rendered, through lists and mappings (`verify`'s verdict lists its mismatches)."""
    if isinstance(value, str):
        return spelling.render(value)
    if isinstance(value, list):
        return [_rendered(v, spelling) for v in value]
    if isinstance(value, dict):
        return {k: _rendered(v, spelling) for k, v in value.items()}
    return value


def is_marked(text: str | None) -> bool:
    """Whether `text` still holds a marker (a surface forgot to render it: a test checks none does)."""
    return _START in (text or "")


def handoff_names(surface: str = CLI) -> dict[str, str]:
    """Each input a hand-off refusal may name, as `surface` spells it (from the operations table)."""
    spelling = handoff_spelling(surface)
    return {name: spelling.spell(name) for name in HANDOFF_INPUTS}
