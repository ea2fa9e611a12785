"""When two skill names in a hand-off chain are the same skill, for the loop rules.

A chain is written by other skills and people: `Next`, `next ` and `next` in full-width letters
name one skill to a reader, so comparing them exactly would let a loop through. The loop rules (no
hand-off to oneself, a reason to go back, the loop question, the `loop_penalty` of `registry-v3`)
compare names by `skill_key`: NFKC-normalised, case-folded, without format characters
(Unicode category Cf, such as a zero-width space), trimmed. Names themselves are kept as
written everywhere else (payloads, files, messages).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

MAX_KEY_INPUT = 1024  # a name longer than this is compared by its first 1024 characters


def skill_key(name: str) -> str:
    """The form two names are compared in: NFKC, case-folded (NFKC again), format characters dropped, trimmed.

    Format characters (Unicode category Cf: U+200B zero-width space, U+2060 word joiner, U+00AD soft
    hyphen, U+FEFF, ...) are invisible, so `beta\u200b` is `beta` to a reader.
    """
    folded = unicodedata.normalize("NFKC", name[:MAX_KEY_INPUT]).casefold()
    visible = "".join(c for c in unicodedata.normalize("NFKC", folded) if unicodedata.category(c) != "Cf")
    return visible.strip()


def same_skill(a: str, b: str) -> bool:
    """Whether two names name the same skill for the loop rules."""
    return skill_key(a) == skill_key(b)


def in_chain(name: str, chain: Iterable[object]) -> bool:
    """Whether `name` is already in `chain` (entries that are not text are skipped)."""
    key = skill_key(name)
    return any(isinstance(entry, str) and skill_key(entry) == key for entry in chain)
