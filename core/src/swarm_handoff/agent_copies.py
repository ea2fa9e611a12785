"""Which agent loads which copy of a skill: the `agents` fields of the `discover` listing.

Each scope says which agents read it (`Scope.read_by`: Claude Code reads `.claude/skills`, Codex and
the Agent Skills clients read `.agents/skills`, ...). An agent loads, of the copies of a name in the
scopes it reads, the most local one, whether or not it accepts hand-offs; swarm-handoff chooses the
most local copy that does. So the copy swarm-handoff hands off to may not be the copy an agent
loads: a validated `.agents/skills` copy can win while Claude Code loads the `.claude` one. This
module works that out from what discovery already found (the winners, the skipped and the
shadowed copies); it reads no file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from swarm_handoff.records import SkillRecord
from swarm_handoff.scopes import AGENT_NAMES

# Fields that make two copies of a skill different for an agent (scope, path and source never do).
_IDENTITY = ("skill", "scope", "priority", "path", "source", "meta")


@attrs.frozen
class OtherCopy:
    """An agent that loads another copy of a listed skill than the one listed, and that copy."""

    agent: str
    record: SkillRecord

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form: the agent, and the scope, path and eligibility of its copy."""
        return {
            "agent": self.agent,
            "scope": self.record.scope.value,
            "path": self.record.path,
            "eligible": self.record.eligible,
        }


def agent_order(agent: str) -> tuple[int, str]:
    """The order agents are listed in: the known ones first, as AGENT_NAMES has them, then by name."""
    known = list(AGENT_NAMES)
    return (known.index(agent), "") if agent in known else (len(known), agent)


def agent_name(agent: str) -> str:
    """The name a person knows the agent by (`Claude Code` for `claude-code`)."""
    return AGENT_NAMES.get(agent, agent)


def _same(a: SkillRecord, b: SkillRecord) -> bool:
    """Whether two copies say the same to an agent: one file, or the same metadata and description."""
    if a is b:
        return True
    if a.path and b.path and os.path.realpath(a.path) == os.path.realpath(b.path):
        return True
    left, right = a.to_data(), b.to_data()
    return all(left.get(k) == right.get(k) for k in {*left, *right} if k not in _IDENTITY)


@attrs.frozen
class AgentView:
    """For each listed copy (by identity), the agents that load it or a copy that says the same; for
    each winner, the agents that load a copy that differs."""

    loaded_by: dict[int, tuple[str, ...]]
    others: dict[int, tuple[OtherCopy, ...]]

    def agents(self, record: SkillRecord) -> tuple[str, ...]:
        """The agents that load `record` (or a copy that says the same)."""
        return self.loaded_by.get(id(record), ())

    def other_copies(self, record: SkillRecord) -> tuple[OtherCopy, ...]:
        """The agents that load a different copy of `record`'s name, and that copy."""
        return self.others.get(id(record), ())


def agent_view(
    winners: Sequence[SkillRecord], skipped: Iterable[SkillRecord], shadowed: Iterable[SkillRecord]
) -> AgentView:
    """Work out who loads which copy, from every copy discovery saw of each name."""
    copies: dict[str, list[SkillRecord]] = {}
    for record in (*winners, *skipped, *shadowed):
        copies.setdefault(record.name, []).append(record)
    loaded_by: dict[int, tuple[str, ...]] = {}
    others: dict[int, tuple[OtherCopy, ...]] = {}
    for records in copies.values():
        ordered = sorted(records, key=lambda r: r.scope.priority)  # stable: discovery's own order within a scope
        loads: dict[str, SkillRecord] = {}
        for record in ordered:
            for agent in record.scope.read_by:
                loads.setdefault(agent, record)
        for record in records:
            agents = sorted((a for a, copy in loads.items() if _same(copy, record)), key=agent_order)
            loaded_by[id(record)] = tuple(agents)
            others[id(record)] = tuple(
                OtherCopy(a, copy)
                for a, copy in sorted(loads.items(), key=lambda i: agent_order(i[0]))
                if not _same(copy, record)
            )
    return AgentView(loaded_by, others)
