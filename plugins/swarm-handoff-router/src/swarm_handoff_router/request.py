"""A request as the router reads it, analysed once: what it asks for, what it rules out, the
everyday phrases it uses and the skills it calls on by name.

The skill side (tokens, stemmer, synonyms, negative triggers) is in `text`; this is the request side,
and like it, every table here is general English, not tuned to any set of skills.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import attrs

from swarm_handoff_router.phrases import idioms
from swarm_handoff_router.text import STOPWORDS, pairs, tokenize

# Request fields and how much a word found in each counts.
QUERY_WEIGHTS: Mapping[str, float] = {"original_prompt": 1.0, "reframed_challenge": 1.0, "synthesis_summary": 0.7}
# A word an everyday phrase of the request stands for ("poke holes in" -> critique) counts like a
# word the request uses itself, discounted: 0.7 of it (0.35, 0.5, 0.7 and 0.85 measured over every
# request set together: 0.5 -> 0.7 gave +0.005 top-1 and +0.004 top-3; 0.85 more, on sets whose
# misses the phrase table was extended from, so the smaller step was taken).
IDIOM_WEIGHT = 0.7

# What a request rules out, as opposed to what it says is wrong: "it's not the database", "not
# flaky, just broken", "the sheet is already tidy", "i don't need a doc", and what it says is
# finished ("my deck is done", "slides final."): the work on those is over, so their words should not
# pull the request to the skill that makes them. A negated verb ("I can't reproduce the crash",
# "tests don't pass") rules nothing out and is left alone. What is ruled out is a few words, up to
# the next punctuation or conjunction: "I already ran the tests and the build still crashes" rules
# out the tests, not the build.
_RULED_OUT = (
    r"((?:[^\S\n]*(?!(?:and|but|so|then|because|since|while|which|though|although|yet)\b)"
    r"[^\s.,;:!?()]+){0,6})"
)
# "Ready", "written", "sorted" and "final" are left out: "the PR is ready for review", "written in
# Rust", "sorted by date", "my decision is final but critique it" name the work still to do.
_FINISHED = r"(?:done|finished|finalised|finalized|complete|completed|approved|signed\s+off)"
_REQUEST_NEGATION = re.compile(
    r"(?:(?<!\bor\s)\bnot\s+(?=(?:a|an|the|my|our|about)\b|(?!\w+(?:ing|ed)\b)\w+\s*(?:[,.;]|$))"
    r"|\b(?:do\s+not|does\s+not|don'?t|doesn'?t|don\u2019t|doesn\u2019t)\s+(?:need|want)\b(?!\s+to\b)"
    r"|\b(?:do\s+not|don'?t|don\u2019t|never)\s+use\b"
    r"|\balready\b)" + _RULED_OUT,
    re.I,
)
_REQUEST_FINISHED = re.compile(
    r"(?<![\w'\u2019-])((?:[\w'\u2019-]+[^\S\n]+)?[\w'\u2019-]+)(?=[^\S\n]+"
    r"(?:(?:is|are|was|were|has\s+been|have\s+been)\s+(?:now\s+|all\s+|already\s+)?"
    + _FINISHED
    + r"\b(?!\s+(?:to|for|in|by|with|except|yet)\b)|final\s*(?:[.,;!]|$)))",
    re.I,
)


# A finished thing named after one of these is a condition or a question, not something over:
# "when the build is done", "make sure the migration is complete", "check whether it is finished".
_CONDITIONS = frozenset(
    {
        "when",
        "once",
        "until",
        "till",
        "if",
        "whether",
        "sure",
        "check",
        "verify",
        "confirm",
        "decide",
        "after",
        "before",
        "unless",
        "ensure",
        "see",
    }
)
_DETERMINERS = frozenset({"the", "a", "an", "my", "our", "your", "this", "that", "its", "their", "his", "her"})
_WORD = re.compile(r"[\w'\u2019-]+")


def split_request_negation(text: str) -> tuple[str, str]:
    """Split a request into what it asks for and what it rules out, so ruled-out words earn nothing.

    Of a finished thing only the thing is ruled out: "the migration is finished; confirm it" still
    asks about something finished.
    """
    ruled_out = [m.group(1) for m in _REQUEST_NEGATION.finditer(text)]
    asked, finished = strip_finished(without_exclusions(text))
    return asked, " ".join(ruled_out + finished)


def without_exclusions(text: str) -> str:
    """The request minus what it rules out, finished things kept: "says it's done" is a phrase to read."""
    return _REQUEST_NEGATION.sub(" ", text)


def strip_finished(kept: str) -> tuple[str, list[str]]:
    """The finished things of a request taken out (and returned), once its exclusions are gone.

    A step of its own so `Request.of` can read the phrases of the text between the two steps
    without running the exclusion pattern over each field a second time.
    """
    finished_things: list[str] = []

    def finished(match: re.Match[str]) -> str:
        said = {w.lower() for w in _WORD.findall(match.group(1))}
        before = [w.lower() for w in _WORD.findall(kept[max(0, match.start() - 60) : match.start()])]
        previous = next((w for w in reversed(before) if w not in _DETERMINERS), "")
        if said & _CONDITIONS or previous in _CONDITIONS:
            return match.group(0)  # "when the build is done, deploy it", "make sure the migration is complete"
        finished_things.append(match.group(1))
        return " "

    return _REQUEST_FINISHED.sub(finished, kept), finished_things


# Calling on a skill by name: its words in order, joined by '-', '_', ':' or spaces ("hand it to
# decision-critic", "ask the decision critic"). A one-word name ("editor", "planner") is an ordinary
# word unless the request calls on it: after one of these verbs (an article between is fine), or
# followed by "skill".
_NAME_CUES = frozenset({"use", "run", "ask", "invoke", "call", "try", "with", "via"})
_ARTICLES = frozenset({"the", "our", "my", "a"})
# A control character joins the tokens for the substring search. The name tokenizer keeps punctuation
# as tokens, so this would be a token of its own if a request carried it: `Spelled.of` replaces it in
# the request first, and only then is it a separator no token contains.
_JOIN = "\x01"
_FEW = 8  # anchors a name is checked at one by one; past that, one substring search
_NAME_TOKEN = re.compile(r"[^\W_]+|[^\w\s:-]")  # words (any script), and punctuation as its own token


@lru_cache(maxsize=4096)
def name_tokens(name: str) -> tuple[str, ...]:
    """A skill name as the tokens a request would spell it with ("node.js-helper" -> node . js helper)."""
    return tuple(_NAME_TOKEN.findall(name.casefold()))


@attrs.frozen
class Spelled:
    """A request's tokens with an index by token, so naming is one lookup per skill, not one regex."""

    tokens: tuple[str, ...]
    positions: Mapping[str, tuple[int, ...]]
    # The tokens joined by a separator no token contains: a name of several words whose every word
    # the request repeats is found by one substring search (in C) instead of a look per occurrence.
    joined: str = ""

    @classmethod
    def of(cls, text: str) -> Spelled:
        """Tokenise once; every skill of a ranking is then looked up in the same index."""
        tokens = tuple(_NAME_TOKEN.findall(text.casefold().replace(_JOIN, " ")))
        positions: dict[str, list[int]] = {}
        for index, token in enumerate(tokens):
            positions.setdefault(token, []).append(index)
        joined = _JOIN + _JOIN.join(tokens) + _JOIN
        return cls(tokens, {token: tuple(found) for token, found in positions.items()}, joined)

    def names(self, name: str) -> bool:
        """True when the request calls on the skill `name` ("use the planner", "hand it to decision-critic")."""
        words = name_tokens(name)
        if not words or (len(words) == 1 and (len(words[0]) < 2 or words[0] in STOPWORDS)):
            return False  # a skill called "a" or "the" is named by every sentence
        if words[0] not in self.positions:
            return False  # the name starts with a word the request never says: most skills, one lookup
        size = len(words)
        # Anchored on the name's rarest word in the request: a request that repeats "data" ten
        # thousand times costs "data-pipeline-audit" one look per "audit", not per "data".
        offset = min(range(size), key=lambda i: len(self.positions.get(words[i], ())))
        anchors = self.positions.get(words[offset], ())
        if size > 1 and len(anchors) > _FEW and self.joined:
            return (_JOIN + _JOIN.join(words) + _JOIN) in self.joined
        for found in anchors:
            start = found - offset
            if start < 0 or self.tokens[start : start + size] != words:
                continue
            if size > 1 or self._called(start, start + size):
                return True
        return False

    def _called(self, start: int, end: int) -> bool:
        """A one-word name counts after a calling verb ("use the planner") or before "skill"."""
        if end < len(self.tokens) and self.tokens[end] == "skill":
            return True
        before = start - 1
        if before >= 0 and self.tokens[before] in _ARTICLES:
            before -= 1
        if before < 0:
            return False
        if self.tokens[before] in _NAME_CUES:
            return True
        # "hand it to", "hand off to", "hand it off to"
        return self.tokens[before] == "to" and "hand" in self.tokens[max(0, before - 3) : before]


def names_skill(text: str, name: str) -> bool:
    """True when `text` calls on the skill `name`; `Request.names` is the same test, indexed once."""
    return Spelled.of(text).names(name)


@attrs.frozen
class Request:
    """One request, analysed once for every skill of a ranking: the scorer reads only this."""

    terms: Mapping[str, float]
    origins: Mapping[str, str]
    phrases: Mapping[tuple[str, str], float]
    spelled: Spelled

    @classmethod
    def of(cls, synthesis: Any) -> Request:
        """Read the request fields of a synthesis; ruled-out words reach neither terms, phrases nor names."""
        terms: dict[str, tuple[float, str]] = {}
        phrases: dict[tuple[str, str], float] = {}
        asked_texts: list[str] = []
        for field, weight in QUERY_WEIGHTS.items():
            text = str(getattr(synthesis, field, "") or "")
            kept = without_exclusions(text)  # once per field: the phrases below read it too
            asked, _finished = strip_finished(kept)
            asked_texts.append(asked)
            words = tokenize(asked)
            for term in words:
                if weight >= terms.get(term, (0.0, ""))[0]:
                    terms[term] = (weight, "")
            for pair in sorted(pairs(words)):  # the same order every run: float sums depend on it
                phrases[pair] = max(phrases.get(pair, 0.0), weight)
            for phrase, stand_in in idioms(kept):
                for term in tokenize(stand_in):
                    if weight * IDIOM_WEIGHT > terms.get(term, (0.0, ""))[0]:
                        terms[term] = (weight * IDIOM_WEIGHT, phrase)
        return cls(
            {term: weight for term, (weight, _phrase) in terms.items()},
            {term: phrase for term, (_weight, phrase) in terms.items() if phrase},
            phrases,
            Spelled.of(" \x00 ".join(asked_texts)),  # a name cannot run from one field into the next
        )

    def names(self, name: str) -> bool:
        """True when the request calls on the skill `name` in what it asks for."""
        return self.spelled.names(name)
