"""Words of a request and of a skill: tokens, a light English stemmer, synonyms, negative triggers.

Everything here is a pure function of its text, so the router can be explained by reading it: a
contribution names the stem it matched, and the tables below are general English, never tuned to a
particular set of skills.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache

from swarm_handoff_router.tables import synonym_groups

# A word is a run of letters and digits of any script ("übersetze", "résumé", "zürich"), C++'s and C#'s
# endings kept: an ASCII-only class cut "zürich" to "rich", a false match, and gave a Japanese skill no
# word at all. On ASCII text (three bodies in four of 2,000 real skills) the ASCII class finds exactly
# the same words about a quarter faster, so that text is read with it (a test holds the two equal).
# Other text is brought to NFKC first, so that a letter has one spelling: "zürich" decomposed (as
# macOS names files) and composed, full-width and plain letters, a ligature and its letters meet; it
# costs ~0.05 s over the 6.4 MB of non-ASCII bodies of 2,000 real skills. Python's word class has no
# combining marks, so a script whose letters keep them after NFKC (Devanagari) is still split at them.
_WORD = re.compile(r"[^\W_]+(?:\+\+|#)?")
_ASCII_WORD = re.compile(r"[a-z0-9]+(?:\+\+|#)?")

# Function words, plus the words every skill description and request uses to talk about itself
# ("use when the user needs ...", "please help me ..."): they say nothing about the kind of work.
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing don down during each either etc
    few for from further get gets got had has have having he her here hers him his how i if in into
    is it its itself just let lets me more most my myself no nor not now of off on once one only or
    other our ours out over own per please same she should so some such than that the their theirs
    them then there these they this those through to too under until up upon us very via was we
    were what whatever when where whether which while who whom why will with within without would
    you your yours yourself
    use uses used using user users skill skills invoke invoked need needs needed want wants help
    helps like thing things something someone somebody make makes way really also e g eg ie i e
    immediately agent agents tool tools""".split()  # noqa: SIM905 - a word list reads better as text
)

# Suffix rules tried longest first; the stem keeps at least MIN_STEM letters. Inflections and the
# common derivations meet: "debugging", "debugged", "debugger" -> "debug"; "organization",
# "organizing", "organize" -> "organ"; "statistics", "statistical" -> "statist".
_SUFFIXES: tuple[tuple[str, str], ...] = tuple(
    sorted(
        [
            ("ational", "ate"),
            ("ization", "ize"),
            ("isation", "ize"),
            ("fulness", "ful"),
            ("iveness", "ive"),
            ("ousness", "ous"),
            ("ations", "ate"),
            ("ation", "ate"),
            ("ators", "ate"),
            ("ator", "ate"),
            ("ities", ""),
            ("ity", ""),
            ("ically", ""),
            ("ical", ""),
            ("ics", ""),
            ("icians", ""),
            ("ician", ""),
            ("ication", "y"),
            ("ications", "y"),
            ("ysis", "yz"),
            ("yses", "yz"),
            ("ments", ""),
            ("ment", ""),
            ("ness", ""),
            ("ings", ""),
            ("ing", ""),
            ("ers", ""),
            ("er", ""),
            ("ors", ""),
            ("or", ""),
            ("ied", "y"),
            ("ies", "y"),
            ("ed", ""),
            ("ists", ""),
            ("ist", ""),
            ("isms", ""),
            ("ism", ""),
            ("ions", ""),
            ("ion", ""),
            ("ables", ""),
            ("able", ""),
            ("ibles", ""),
            ("ible", ""),
            ("al", ""),
            ("ive", ""),
            ("es", ""),
            ("s", ""),
        ],
        key=lambda rule: len(rule[0]),
        reverse=True,
    )
)
_FINAL = (("yze", "yz"), ("ize", ""), ("ise", ""), ("ate", ""), ("e", ""), ("y", "i"))
# After "-ing"/"-ed" comes off, Porter's rule puts back the "e" these endings lost ("validat" ->
# "validate"), so "validating" and "validate" meet.
_RESTORE_E = ("at", "bl", "iz", "is", "yz")
_VERBAL = frozenset({"ing", "ings", "ed"})
# Inflections come off once: a second pass only takes derivations ("cluttered" -> "clutter" -> "clutt").
_INFLECTIONS = frozenset({"s", "es", "ed", "ing", "ings", "ies", "ied"})
MIN_STEM = 3


# Words repeat: the bodies of 2,000 skills hold a few hundred thousand words but some tens of
# thousands of distinct ones, and the suffix rules were most of the time `rank --scorer router` took.
STEM_MEMO = 65_536


@lru_cache(maxsize=STEM_MEMO)
def stem(word: str) -> str:
    """Reduce a word to a stem shared by its inflections and common derivations (light, predictable)."""
    if len(word) <= MIN_STEM or word.isdigit():
        return word
    if word.endswith("ss"):  # "class", "process": not plurals
        return _final(word)
    # Two passes, so that "cluttered" -> "clutter" -> "clutt" meets "clutter" -> "clutt".
    for second in (False, True):
        for suffix, replacement in _SUFFIXES:
            if second and suffix in _INFLECTIONS:  # "choosing" -> "choos", not on to "choo"
                continue
            if word.endswith(suffix) and len(word) - len(suffix) + len(replacement) >= MIN_STEM:
                word = word[: -len(suffix)] + replacement
                if suffix in _VERBAL and word.endswith(_RESTORE_E):
                    word += "e"
                break
        if word.endswith("ss"):
            break
    if len(word) > MIN_STEM + 1 and word[-1] == word[-2] and word[-1] not in "lsz":  # "debugg" -> "debug"
        word = word[:-1]
    return _final(word)


def _final(word: str) -> str:
    """Fold the endings left over ("organize"/"organ", "verify"/"verifi"), so both forms meet."""
    for suffix, replacement in _FINAL:
        if word.endswith(suffix) and len(word) - len(suffix) + len(replacement) >= MIN_STEM:
            return word[: -len(suffix)] + replacement
    return word


# What `tokenize` drops, as one set: a function word, its plural ("ones", "others", "things") and a
# 1-letter word. One lookup a word: tokenizing the bodies is most of what analysing a skill costs.
_DROPPED = STOPWORDS | {word + "s" for word in STOPWORDS} | frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def tokenize(text: str) -> list[str]:
    """Lower-case stems of the content words of `text`, in order (stopwords and 1-letter words dropped)."""
    if text.isascii():
        found = _ASCII_WORD.findall(text.lower())
    else:  # one spelling of each letter first: a decomposed "zürich" ("u" + a combining mark) was "zu" "rich"
        found = _WORD.findall(unicodedata.normalize("NFKC", text).lower())
    return [stem(t) for t in found if t not in _DROPPED]


# General-language synonym groups (any thesaurus has them). A query word also matches the other
# members of its group, at SYNONYM_WEIGHT of an exact match, so "defect" finds a skill about bugs.
SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = synonym_groups()  # data: tables.json
SYNONYM_WEIGHT = 0.5


def _synonym_table(groups: tuple[tuple[str, ...], ...]) -> Mapping[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for group in groups:
        stems = {stem(w) for w in group}
        for s in stems:
            table.setdefault(s, set()).update(stems - {s})
    return {s: frozenset(others) for s, others in table.items()}


SYNONYMS: Mapping[str, frozenset[str]] = _synonym_table(SYNONYM_GROUPS)


# Negative triggers: the clause after one of these phrases names work the skill should NOT take.
# "Do NOT read the code first" is about how to run a skill, not what to route to it, so only phrases
# that speak of using the skill (or of what it is for) count.
# The runs of any text inside a trigger are bounded ({0,200}): unbounded, a trigger word repeated on
# one long line without its "for" ("never use x " * 5000) made every attempt scan to the line's end,
# quadratic time (14 s of CPU for 60 KB, now 0.1 s). No real sentence puts 200 characters between "use" and "for".
# These patterns (to `_HEADING_ANCHOR` below) serve only analysing a skill, so they are kept as
# sources, flags inline, and compiled where they are used (`re` keeps them compiled): a warm
# `route`, which analyses no skill, compiled them at import for nothing (~10 M instructions).
_NEGATIVE = (
    r"(?i)(?:\b(?:do\s+not|don'?t|never|avoid)\s+(?:use|invoke|trigger|call|choose|pick)\b[^.;:\n]{0,200}?"
    r"\b(?:for|when|to|on|with|if|in)\b"
    r"|\bnot\s+(?:intended\s+|meant\s+|designed\s+|suitable\s+|appropriate\s+)?for\b"
    r"|\bnot\s+when\b"
    r"|\bwrong\s+(?:skill|tool|choice)\s+for\b"
    r"|(?:^|[;.(]\s*|\bboundary\b[^;.]{0,200}?[;.-]\s*)for\b(?=[^.;]{1,120}?,?\s+(?:use|see|invoke|try)\s+[a-z0-9:_-]+))"
)
_CLAUSE_END = r"(?i)[.;\n)]|\s-\s|\s—\s|—|\buse\s+(?:the\s+)?[a-z0-9:_-]+\s+instead\b"
_MAX_CLAUSE = 200
# A clause is cut at `_MAX_CLAUSE` characters, so its end is searched for only that far (plus room for
# a "use X instead" starting before the cut): searching to the text's end made each clause cost the
# rest of the text, quadratic on a long line of triggers without an end mark.
_END_WINDOW = 2 * _MAX_CLAUSE
# A body section whose heading says when not to use the skill: every line under it is negative.
_NEGATIVE_HEADING = (
    r"(?im)^#{1,6}\s.*\b(?:when\s+not|not\s+to\s+use|don'?t\s+use|do\s+not\s+use|not\s+for"
    r"|anti-?patterns?\s+for\s+use)\b"
)
_HEADING = r"(?m)^#{1,6}\s"

# Speed, with the very same matches: the patterns above are case-insensitive and open with `\b` or
# `^`, so the regex engine tries every alternative at every character of a long body. Every match
# of `_NEGATIVE` starts at the text's start, at a trigger word, or at ";", "." or "(" followed by
# blanks and "for"; `str.find` locates those in the lower-cased text (much faster than any scan the
# engine makes), and `_NEGATIVE` itself decides at each of them, on the original text. A character
# the engine's case folding equates with an ASCII letter although its lower case is not that letter
# (or whose lower case is longer, which would shift positions) sends the text down the plain path.
_TRIGGER_WORDS = ("do", "never", "avoid", "not", "wrong", "boundary")
_FOLDS_TO_ASCII = "\u0130\u0131\u017f\u212a"  # dotted I, dotless i, long s, Kelvin sign
_HEADING_ANCHOR = r"\n#"


def _starts(lower: str) -> list[int]:
    """Every place a `_NEGATIVE` match could start in a text (given lower-cased), in order."""
    found = [0]  # `^for`
    find = lower.find
    for word in _TRIGGER_WORDS:
        at = find(word)
        while at >= 0:
            found.append(at)
            at = find(word, at + 1)
    at = find("for")
    while at >= 0:  # `[;.(]\s*for`: the mark before the blanks before "for"
        before = at
        while before and lower[before - 1].isspace():  # `\s` is `str.isspace`
            before -= 1
        if before and lower[before - 1] in ";.(":
            found.append(before - 1)
        at = find("for", at + 3)
    found.sort()
    return found


def _negative_matches(text: str) -> Iterator[re.Match[str]]:
    """Exactly `_NEGATIVE.finditer(text)`, trying the full pattern only where a match can start."""
    if not text.isascii() and any(char in text for char in _FOLDS_TO_ASCII):
        yield from re.compile(_NEGATIVE).finditer(text)
        return
    match = re.compile(_NEGATIVE).match
    position = 0
    for start in _starts(text.lower()):
        if start < position:
            continue
        found = match(text, start)
        if found:
            yield found
            position = found.end()


def _heading_matches(body: str) -> Iterator[re.Match[str]]:
    """Exactly `_NEGATIVE_HEADING.finditer(body)`, tried only at the lines that open with "#"."""
    match = re.compile(_NEGATIVE_HEADING).match
    position = 0
    starts = itertools.chain((0,), (anchor.start() + 1 for anchor in re.compile(_HEADING_ANCHOR).finditer(body)))
    for start in starts:
        if start < position:
            continue
        found = match(body, start)
        if found:
            yield found
            position = found.end()


def split_negative(text: str) -> tuple[str, list[str]]:
    """Split `text` into what it claims (negative clauses removed) and its negative clauses."""
    kept: list[str] = []
    clauses: list[str] = []
    position = 0
    clause_end = re.compile(_CLAUSE_END)
    for match in _negative_matches(text):
        if match.start() < position:
            continue
        end = clause_end.search(text, match.end(), match.end() + _END_WINDOW)
        stop = min(end.start() if end else len(text), match.end() + _MAX_CLAUSE)
        clause = text[match.end() : stop].strip()
        if not tokenize(clause):
            continue
        kept.append(text[position : match.start()])
        clauses.append(clause)
        position = stop
    kept.append(text[position:])
    return " ".join(kept), clauses


def split_negative_sections(body: str) -> tuple[str, list[str]]:
    """Split a SKILL.md body into its positive text and the lines of its 'when not to use' sections."""
    kept: list[str] = []
    clauses: list[str] = []
    position = 0
    heading = re.compile(_HEADING)
    for match in _heading_matches(body):
        if match.start() < position:
            continue
        line_end = body.find("\n", match.end())
        start = len(body) if line_end < 0 else line_end + 1
        following = heading.search(body, start)
        stop = following.start() if following else len(body)
        kept.append(body[position : match.start()])
        clauses.extend(line.strip(" -*\t") for line in body[start:stop].splitlines() if tokenize(line))
        position = stop
    kept.append(body[position:])
    positive, inline = split_negative("".join(kept))
    return positive, clauses + inline


def pairs(tokens: Sequence[str]) -> set[tuple[str, str]]:
    """Adjacent stems (stopwords skipped), order kept: "root cause", "writing style"."""
    return set(itertools.pairwise(tokens))
