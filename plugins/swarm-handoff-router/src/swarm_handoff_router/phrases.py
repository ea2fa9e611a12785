"""Everyday phrases of a request and the work they stand for: "poke holes in" is a critique,
"NXDOMAIN" a DNS problem. A table of general English and common tool names, not of any skill.
"""

from __future__ import annotations

import re

from swarm_handoff_router.tables import phrases

# Everyday phrasings of common kinds of work, and the words a skill would use for that work: "poke
# holes in" is a critique, "figure out why" a diagnosis, "ballpark" an estimate, "NXDOMAIN" a DNS
# problem. General English and common tool names (a tool name that is also everyday English, such as
# "spring" or "rust", only beside a technical word), written as a list of idioms for tasks, not for any
# particular skill. The table is data: `tables.json` in this package, each entry with the labelled
# request that justifies it (see `tables`).
IDIOMS: tuple[tuple[str, str], ...] = phrases()
IDIOM_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p, re.I), words) for p, words in IDIOMS)


def idioms(text: str) -> list[tuple[str, str]]:
    """The idioms a request uses, each with the words a skill would use for that work."""
    found = []
    for pattern, words in IDIOM_PATTERNS:
        match = pattern.search(text)
        if match:
            found.append((match.group(0), words))
    return found
