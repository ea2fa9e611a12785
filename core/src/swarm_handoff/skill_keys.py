"""When two skill names in a hand-off chain are the same skill, for the loop rules.

A chain is written by other skills and people: `Next`, `next ` and `next` in full-width letters
name one skill to a reader, so comparing them exactly would let a loop through. The loop rules (no
hand-off to oneself, a reason to go back, the loop question, the `loop_penalty` of `registry-v3`)
compare names by `skill_key`: NFKC-normalised, case-folded, trimmed. Names themselves are kept as
written everywhere else (payloads, files, messages).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

MAX_KEY_INPUT = 1024  # a name longer than this is compared by its first 1024 characters


def skill_key(name: str) -> str:
    """The form two names are compared in: NFKC, case-folded (NFKC again, as folding can undo it), trimmed."""
    folded = unicodedata.normalize("NFKC", name[:MAX_KEY_INPUT]).casefold()
    return unicodedata.normalize("NFKC", folded).strip()


def same_skill(a: str, b: str) -> bool:
    """Whether two names name the same skill for the loop rules."""
    return skill_key(a) == skill_key(b)


def in_chain(name: str, chain: Iterable[object]) -> bool:
    """Whether `name` is already in `chain` (entries that are not text are skipped)."""
    key = skill_key(name)
    return any(isinstance(entry, str) and skill_key(entry) == key for entry in chain)
