"""The router's hand-written tables, read from `tables.json` in this package (issue 28, point 6).

The phrase table (everyday phrases and tool names, each with the words a skill would use for that
work) and the synonym groups are data, not code: each entry carries the labelled request that
justifies it and what `bench/ablate_tables.py` measured it to be worth. The file ships with the
package; one that is missing, too large or of another shape is a broken install, reported as such.
"""

from __future__ import annotations

import json
import pkgutil
import re
from functools import lru_cache

FILE = "tables.json"
MAX_BYTES = 1024 * 1024
MAX_ENTRIES = 2000
MAX_PATTERN_CHARS = 4000
MAX_GROUP_WORDS = 64


class BrokenTables(RuntimeError):
    """The packaged tables cannot be read: the router's install is damaged."""


@lru_cache(maxsize=1)
def _data() -> dict[str, object]:
    """The parsed file, checked for size and top-level shape."""
    try:
        # Through the package's own loader (a folder or a zip): `importlib.resources` costs a warm
        # `route` more to import than reading the file does.
        raw = pkgutil.get_data(__package__, FILE)
    except OSError as exc:
        raise BrokenTables(
            f"swarm_handoff_router/{FILE} cannot be read ({exc}); reinstall swarm-handoff-router"
        ) from exc
    if raw is None:
        raise BrokenTables(f"swarm_handoff_router/{FILE} cannot be read by its loader; reinstall swarm-handoff-router")
    if len(raw) > MAX_BYTES:
        raise BrokenTables(f"swarm_handoff_router/{FILE} is over {MAX_BYTES} bytes; reinstall swarm-handoff-router")
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise BrokenTables(f"swarm_handoff_router/{FILE}: {exc}; reinstall swarm-handoff-router") from exc
    if not (
        isinstance(data, dict) and isinstance(data.get("phrases"), list) and isinstance(data.get("synonyms"), list)
    ):
        raise BrokenTables(f"swarm_handoff_router/{FILE} holds no 'phrases' and 'synonyms' lists")
    return data


def _broken(table: str, number: int, why: str) -> BrokenTables:
    return BrokenTables(f"swarm_handoff_router/{FILE}: {table} entry {number}: {why}; reinstall swarm-handoff-router")


def _entries(table: str) -> list[object]:
    """The entries of one table, bounded in number."""
    entries = _data()[table]
    assert isinstance(entries, list)
    if len(entries) > MAX_ENTRIES:
        raise _broken(table, len(entries), f"more than {MAX_ENTRIES} entries")
    return entries


def phrases() -> tuple[tuple[str, str], ...]:
    """Each phrase entry as (regular expression, the words it stands for), in file order."""
    out = []
    for number, entry in enumerate(_entries("phrases"), start=1):
        pattern = entry.get("pattern") if isinstance(entry, dict) else None
        words = entry.get("stands_for") if isinstance(entry, dict) else None
        if not (isinstance(pattern, str) and isinstance(words, str) and 0 < len(pattern) <= MAX_PATTERN_CHARS):
            raise _broken("phrases", number, "needs a 'pattern' and a 'stands_for' text")
        try:
            re.compile(pattern, re.I)  # the flags `phrases` uses: its compile is then a hit in `re`'s cache
        except re.error as exc:
            raise _broken("phrases", number, f"pattern does not compile ({exc})") from exc
        out.append((pattern, words))
    return tuple(out)


def synonym_groups() -> tuple[tuple[str, ...], ...]:
    """Each synonym group's words, in file order."""
    out = []
    for number, entry in enumerate(_entries("synonyms"), start=1):
        words = entry.get("words") if isinstance(entry, dict) else None
        if not (
            isinstance(words, list)
            and 1 < len(words) <= MAX_GROUP_WORDS
            and all(isinstance(w, str) and w for w in words)
        ):
            raise _broken("synonyms", number, f"needs 'words': a list of 2 to {MAX_GROUP_WORDS} words")
        out.append(tuple(words))
    return tuple(out)
