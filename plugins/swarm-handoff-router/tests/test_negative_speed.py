"""The fast negative-trigger split gives exactly what the plain `finditer` scan gave, on every text.

`split_negative` and `split_negative_sections` try the full patterns only where a match can start
(text.py explains why that is every match). The reference below is the implementation as it was
before, frozen here, scanning with `finditer` over the same patterns: the two must agree on every
SKILL.md of the shared corpus and of the routing fixtures, and on generated texts made of the
trigger words, in any case, with the characters that fold to ASCII letters. On the real texts the
split must also equal the one made with the patterns frozen as they were before their runs of text
were bounded (test_negative_linear.py): the bound changes no real skill's split.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarm_handoff_router import text
from swarm_handoff_router.document import read_body
from swarm_handoff_router.text import split_negative, split_negative_sections, tokenize

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT.parent / "shared" / "corpus"
FIXTURES = ROOT / "bench" / "routing" / "fixtures"


# `text._NEGATIVE` before its runs of any text were bounded to 200 characters (frozen copy).
UNBOUNDED_NEGATIVE = re.compile(
    r"(?:\b(?:do\s+not|don'?t|never|avoid)\s+(?:use|invoke|trigger|call|choose|pick)\b[^.;:\n]*?"
    r"\b(?:for|when|to|on|with|if|in)\b"
    r"|\bnot\s+(?:intended\s+|meant\s+|designed\s+|suitable\s+|appropriate\s+)?for\b"
    r"|\bnot\s+when\b"
    r"|\bwrong\s+(?:skill|tool|choice)\s+for\b"
    r"|(?:^|[;.(]\s*|\bboundary\b[^;.]*?[;.-]\s*)for\b(?=[^.;]{1,120}?,?\s+(?:use|see|invoke|try)\s+[a-z0-9:_-]+))",
    re.I,
)


def old_split_negative(value: str, pattern: re.Pattern[str] | None = None) -> tuple[str, list[str]]:
    """The implementation before the anchored scan (frozen copy); each clause end searched to the text's end."""
    kept: list[str] = []
    clauses: list[str] = []
    position = 0
    for match in (pattern or re.compile(text._NEGATIVE)).finditer(value):
        if match.start() < position:
            continue
        end = re.compile(text._CLAUSE_END).search(value, match.end())
        stop = min(end.start() if end else len(value), match.end() + text._MAX_CLAUSE)
        clause = value[match.end() : stop].strip()
        if not tokenize(clause):
            continue
        kept.append(value[position : match.start()])
        clauses.append(clause)
        position = stop
    kept.append(value[position:])
    return " ".join(kept), clauses


def old_split_negative_sections(body: str, pattern: re.Pattern[str] | None = None) -> tuple[str, list[str]]:
    """The implementation before the anchored scan (frozen copy)."""
    kept: list[str] = []
    clauses: list[str] = []
    position = 0
    for match in re.compile(text._NEGATIVE_HEADING).finditer(body):
        if match.start() < position:
            continue
        line_end = body.find("\n", match.end())
        start = len(body) if line_end < 0 else line_end + 1
        following = re.compile(text._HEADING).search(body, start)
        stop = following.start() if following else len(body)
        kept.append(body[position : match.start()])
        clauses.extend(line.strip(" -*\t") for line in body[start:stop].splitlines() if tokenize(line))
        position = stop
    kept.append(body[position:])
    positive, inline = old_split_negative("".join(kept), pattern)
    return positive, clauses + inline


def spans(matches: object) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in matches]  # type: ignore[attr-defined]


def assert_same(value: str) -> None:
    assert spans(text._negative_matches(value)) == spans(re.compile(text._NEGATIVE).finditer(value))
    assert spans(text._negative_matches(value.lower())) == spans(re.compile(text._NEGATIVE).finditer(value.lower()))
    assert spans(text._heading_matches(value)) == spans(re.compile(text._NEGATIVE_HEADING).finditer(value))
    assert split_negative(value) == old_split_negative(value)
    assert split_negative_sections(value) == old_split_negative_sections(value)


def assert_as_unbounded(value: str) -> None:
    assert split_negative(value) == old_split_negative(value, UNBOUNDED_NEGATIVE)
    assert split_negative_sections(value) == old_split_negative_sections(value, UNBOUNDED_NEGATIVE)


def skill_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("SKILL.md")) if folder.is_dir() else []


@pytest.mark.slow
def test_every_corpus_skill_splits_as_before() -> None:
    files = skill_files(CORPUS)
    if not files:
        pytest.skip(f"needs the shared corpus of real SKILL.md files at {CORPUS} (not in this repository)")
    for path in files:
        raw = path.read_text(encoding="utf-8", errors="replace")
        for value in (raw, read_body(str(path))):
            assert_same(value)
            assert_as_unbounded(value)


def test_every_fixture_skill_splits_as_before() -> None:
    files = skill_files(FIXTURES)
    assert files, f"the routing fixtures are missing at {FIXTURES}"
    for path in files:
        raw = path.read_text(encoding="utf-8")
        for value in (raw, read_body(str(path)), raw.upper(), raw.title()):
            assert_same(value)
            assert_as_unbounded(value)


# The words and marks the patterns turn on, the characters case folding equates with ASCII letters
# (dotted I, dotless i, long s, Kelvin sign), other non-ASCII text and plain words; glued together
# in any order and any case.
PIECES = [
    "do not use", "don't use", "dont invoke", "never invoke", "avoid calling", "Do NOT use this skill",
    "not for", "not intended for", "not suitable for", "not when", "wrong tool for", "wrong skill for",
    "use", "for", "when", "to", "with", "if", "in", "boundary", "boundaries",
    "; for", ". for", "(for", "; For large files, use pdf-tools", "For images, see image-kit",
    "use other-skill instead", "use the x instead", " - ", " — ", "—", ".", ";", ":", "(", ")", ",",
    "\n", "\n\n", "\r\n", " ", "\t", "\u00a0", "## When not to use", "# When NOT to use\n", "### Not for\n",
    "## Anti-patterns for use\n", "## Usage\n", "#\n", "- ", "* ",
    "\u0130", "\u0131", "\u017f", "\u212a", "\u00e9", "\u00df", "\ufb00", "\u0301", "_",
    "invo\u0131ke", "nev\u0130r", "a\u017f", "avo\u0131d use for", "wrong too\u212a",
    "pricing", "vendors", "debugging errors", "charts", "documents", "skill",
]  # fmt: skip


def _cased(piece: str, how: int) -> str:
    return (piece, piece.upper(), piece.lower(), piece.title(), piece.swapcase())[how]


texts = st.lists(st.tuples(st.sampled_from(PIECES), st.integers(0, 4)), max_size=40).map(
    lambda parts: "".join(_cased(p, how) for p, how in parts)
)
separated = st.lists(st.tuples(st.sampled_from(PIECES), st.integers(0, 4)), max_size=40).map(
    lambda parts: " ".join(_cased(p, how) for p, how in parts)
)


@settings(max_examples=600, deadline=None)
@given(texts)
def test_generated_texts_split_as_before(value: str) -> None:
    assert_same(value)


@settings(max_examples=600, deadline=None)
@given(separated)
def test_generated_sentences_split_as_before(value: str) -> None:
    assert_same(value)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("dontusefrwgbaviy;.(# \n-\u0130\u0131\u017f\u212aDONTUSEFOR"), max_size=80))
def test_generated_letter_soup_splits_as_before(value: str) -> None:
    assert_same(value)


def test_the_characters_that_take_the_plain_path_are_all_that_fold_to_ascii() -> None:
    # The anchored scan looks for the trigger words in `str.lower()` of the text; a character the
    # regex engine equates with an ASCII letter under re.I although its lower case is not that
    # letter, or whose lower case is longer, must send the text to the plain scan. Blanks and the
    # marks ";.(" must stay what they are in lower case (the scan tests them there).
    folding = re.compile("[a-z]", re.I)
    needs_plain = set()
    for cp in range(0x80, sys.maxunicode + 1):
        char = chr(cp)
        lower = char.lower()
        folds = bool(folding.match(char)) and not lower.isascii()
        shifts = len(lower) != 1
        changes_mark = char.isspace() != lower.isspace() or (lower in ";.(") != (char in ";.(")
        if folds or shifts or changes_mark:
            needs_plain.add(char)
    assert needs_plain == {"\u0130", "\u0131", "\u017f"}
    assert needs_plain <= set(text._FOLDS_TO_ASCII)  # the Kelvin sign too, harmlessly: its lower case is "k"


def test_a_trigger_spelled_with_a_folding_character_is_still_found() -> None:
    # "Avoid" spelled with a dotless i is `avoid` to the engine under re.I, not to str.lower: the
    # plain path finds it.
    value = "Helps with charts. Avo\u0131d use for pricing tables."
    assert split_negative(value) == old_split_negative(value)
    assert split_negative(value)[1] == ["pricing tables"]


def test_only_analysing_a_skill_compiles_its_negative_patterns() -> None:
    """A warm `route` analyses no skill: importing the router compiles none of these patterns, the
    first analysis does (docs/performance.md gives what that saves)."""
    import subprocess
    import sys

    program = (
        "import re, sys\n"
        "compiled = []\n"
        "original = re.compile\n"
        "re.compile = lambda pattern, flags=0: (compiled.append(pattern), original(pattern, flags))[1]\n"
        "from swarm_handoff_router import answer, text\n"
        "sources = {text._NEGATIVE, text._CLAUSE_END, text._NEGATIVE_HEADING, text._HEADING, text._HEADING_ANCHOR}\n"
        "print(len(sources & set(compiled)), end=' ')\n"
        "text.split_negative_sections('# Not for\\n- invoices\\n## Next\\nDo not use it for taxes.')\n"
        "print(len(sources & set(compiled)))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["0", "5"]
