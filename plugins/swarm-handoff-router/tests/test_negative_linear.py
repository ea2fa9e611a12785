"""The negative-clause split costs linear work on any text, the odd single-line bodies included.

A body such as `"never use x " * 5000` once cost 17 s: every trigger's lazy run scanned to the end of
the line looking for its "for", and every clause searched the rest of the text for its end. These
tests count work instead of timing it: each regex attempt may look at a bounded stretch of text
(no unbounded run of arbitrary characters in the patterns, every clause-end search given a window),
and the number of attempts grows linearly with the text.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from swarm_handoff_router import text

try:  # the regex parser's tree (3.11+; `sre_parse` before): read, never relied on at run time
    from re import _constants as sre_constants
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

PATHOLOGICAL = {
    "never use x": "never use x ",
    "do not": "do not ",
    "not": "not ",
    "boundary": "boundary ",
    "do not use for pricing": "do not use for pricing ",
    "avoid calling": "avoid calling it ",
    "; for": "; for a, use b ",
    "spaces": "do not use  \t ",
}


def unbounded_runs(pattern: re.Pattern[str]) -> list[str]:
    """The repeats of a pattern that may consume any character (a negated class or `.`) without a bound."""
    found: list[str] = []

    def walk(items: object) -> None:
        for op, arg in items:  # type: ignore[attr-defined]
            if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT):
                low, high, sub = arg
                wide = any(
                    o == sre_constants.ANY or (o == sre_constants.IN and (sre_constants.NEGATE, None) in a)
                    for o, a in sub
                )
                if wide and high == sre_constants.MAXREPEAT:
                    found.append(f"{op} {low}..MAXREPEAT of {list(sub)}")
                walk(sub)
            elif op == sre_constants.SUBPATTERN:
                walk(arg[-1])
            elif op == sre_constants.BRANCH:
                for branch in arg[1]:
                    walk(branch)
            elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
                walk(arg[1])

    walk(sre_parse.parse(pattern.pattern, pattern.flags))
    return found


def test_no_trigger_scans_an_unbounded_run_of_text() -> None:
    assert unbounded_runs(re.compile(text._NEGATIVE)) == []


class Counting:
    """A stand-in for a compiled pattern that counts its calls and records the window each was given."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.calls = 0
        self.windows: list[int] = []

    def match(self, value: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        self.calls += 1
        self.windows.append(min(endpos, len(value)) - pos)
        return self.pattern.match(value, pos, endpos)

    def search(self, value: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        self.calls += 1
        self.windows.append(min(endpos, len(value)) - pos)
        return self.pattern.search(value, pos, endpos)

    def finditer(self, value: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        self.calls += 1
        self.windows.append(min(endpos, len(value)) - pos)
        return self.pattern.finditer(value, pos, endpos)


def counted(monkeypatch: pytest.MonkeyPatch, value: str) -> tuple[Counting, Counting]:
    negative, clause_end = Counting(re.compile(text._NEGATIVE)), Counting(re.compile(text._CLAUSE_END))
    # The patterns are compiled where they are used (`re.compile(text._NEGATIVE)`): those two come back counted.
    counting: dict[str, Any] = {text._NEGATIVE: negative, text._CLAUSE_END: clause_end}
    compile_ = re.compile
    with monkeypatch.context() as patch:
        patch.setattr(re, "compile", lambda pattern, flags=0: counting.get(pattern) or compile_(pattern, flags))
        text.split_negative(value)
        text.split_negative_sections(value)
    return negative, clause_end


@pytest.mark.parametrize("unit", list(PATHOLOGICAL.values()), ids=list(PATHOLOGICAL))
def test_every_clause_end_search_looks_at_a_bounded_window(monkeypatch: pytest.MonkeyPatch, unit: str) -> None:
    _, clause_end = counted(monkeypatch, unit * 3000)
    assert all(window <= 2 * text._MAX_CLAUSE for window in clause_end.windows)


@pytest.mark.parametrize("unit", list(PATHOLOGICAL.values()), ids=list(PATHOLOGICAL))
def test_the_number_of_attempts_grows_linearly(monkeypatch: pytest.MonkeyPatch, unit: str) -> None:
    # With every attempt bounded (above), linear attempts mean linear work.
    small = counted(monkeypatch, unit * 2000)
    large = counted(monkeypatch, unit * 4000)
    for before, after in zip(small, large, strict=True):
        assert after.calls <= 2 * before.calls + 2


def test_a_64_kib_line_of_not_and_the_reported_bodies_split_as_expected() -> None:
    assert text.split_negative("not " * 16384) == ("not " * 16384, [])
    assert text.split_negative("do not " * 20000) == ("do not " * 20000, [])
    positive, clauses = text.split_negative("never use x " * 5000)
    assert clauses == []
    assert positive == "never use x " * 5000
    positive, clauses = text.split_negative("do not use for pricing " * 1000)
    assert clauses
    assert all(len(clause) <= text._MAX_CLAUSE for clause in clauses)


def test_a_far_clause_end_is_still_cut_at_the_longest_clause() -> None:
    value = "Charts. Do not use for " + "pricing " * 100 + ". More."
    _, clauses = text.split_negative(value)
    assert clauses == [value[value.index("pricing") : value.index("pricing") + text._MAX_CLAUSE].strip()]
