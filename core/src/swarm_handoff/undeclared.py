"""Skills that declared no hand-off metadata, as candidates when the user asks for them (issue 18, point 3).

Most real skills carry no hand-off metadata at all, so by default nothing ranks them. On request
(`rank --include-undeclared`, `handoff --allow-undeclared`, and the same flags in the Python API)
every readable skill that declared nothing becomes a candidate, marked `meta["undeclared"]` so
that menus and payloads say so. A skill that said no (`accepts_handoff: false`, an empty
`accepts_from`) or whose frontmatter is broken is never offered, and a name an eligible target
already holds stays that target's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from swarm_handoff.handoff_edges import declares_nothing
from swarm_handoff.records import SkillRecord, evolved

OPTION = "--allow-undeclared"
MARK = "undeclared"


def is_undeclared(record: SkillRecord) -> bool:
    """True for a candidate made from a skill that declared no hand-off metadata."""
    return record.meta.get(MARK) is True


def undeclared_candidates(workflows: Iterable[SkillRecord], ineligible: Iterable[SkillRecord]) -> list[SkillRecord]:
    """The skills that declared nothing, one per name (most local first), as candidates from anyone."""
    taken = {r.name for r in workflows}
    found: list[SkillRecord] = []
    for record in sorted(ineligible, key=lambda r: r.priority):  # stable: a source's own order is kept
        if record.name in taken or not declares_nothing(record):
            continue
        taken.add(record.name)
        found.append(evolved(record, eligible=True, accepts_from=("*",), meta={**record.meta, MARK: True}))
    return found


def with_undeclared(result: Any) -> list[SkillRecord]:
    """A discovery result's targets followed by its undeclared skills (a `DiscoveryResult`)."""
    return [*result.workflows, *undeclared_candidates(result.workflows, result.ineligible)]


def rank_candidates(result: Any, *, include_undeclared: bool, in_words: bool) -> tuple[SkillRecord, ...]:
    """What `rank` ranks, one rule for every surface: a discovery's targets, and its undeclared skills too
    when asked or when the context is a request in words (words say nothing of hand-off metadata)."""
    return tuple(with_undeclared(result)) if include_undeclared or in_words else tuple(result.workflows)


def named_undeclared(result: Any, name: str) -> SkillRecord | None:
    """The undeclared skill called `name` in a discovery result, as a candidate, if there is one."""
    return next((r for r in undeclared_candidates(result.workflows, result.ineligible) if r.name == name), None)


def override_record(source: str, option: str = OPTION) -> dict[str, Any]:
    """What a payload to an undeclared skill records (the history shows it as an eligibility override).

    `option` is the override as the caller's interface spells it (`allow_undeclared` over MCP).
    """
    return {
        "source": source,
        "accepts_from": [],
        "option": option,
        "reason": "the target declares no hand-off metadata",
    }
