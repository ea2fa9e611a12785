"""The `discover` document: eligible workflows in priority order, and everything set aside, with the EC-01 wording.

Discovery builds it and the caches rebuild it from storage, so it sits below both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from swarm_handoff.agent_copies import AgentView, agent_view
from swarm_handoff.eligibility import Excluded, Query, split
from swarm_handoff.errors import Problem, UsageError
from swarm_handoff.payload.names import given
from swarm_handoff.records import Scope, SkillRecord, category_key

if TYPE_CHECKING:
    from swarm_handoff.inputs import Spelling

NO_WORKFLOWS = "EC-01"
# EC-01, worded as the discovery seed words it: nothing installed vs. skills that do not accept hand-offs.
NO_SKILLS_MESSAGE = "No skills installed. Install skills to enable handoffs."
NONE_ACCEPT_MESSAGE = (
    "{scanned} skills found, none accept handoffs.\n"
    "To enable handoffs, add `handoff:` metadata to SKILL.md.\n"
    "See why each was skipped: swarm-handoff discover --all (and swarm-handoff lint PATH/SKILL.md)"
)
# EC-01 when only a filter left nothing: the workflows exist, the filter excluded them.
FILTERED_MESSAGE = (
    "No workflow matches {filter}: it excluded {excluded} workflow(s) that accept handoffs.\n"
    "Run without the filter to see them."
)


@attrs.frozen
class Shadowed:
    """A record that lost its name to a more local one (kept so `--all` and `why` can show it)."""

    record: SkillRecord
    winner: SkillRecord

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form: the loser, plus where the winner lives."""
        return {**self.record.to_data(), "shadowed_by": self.winner.path or self.winner.source}


@attrs.frozen(kw_only=True)
class DiscoveryResult:
    """The `discover` document: eligible workflows in priority order, and everything set aside."""

    kind: ClassVar[str] = "discovery"
    workflows: tuple[SkillRecord, ...]
    ineligible: tuple[SkillRecord, ...] = ()
    shadowed: tuple[Shadowed, ...] = ()
    problems: tuple[Problem, ...] = ()
    scanned: int = 0
    show_all: bool = False
    # (skipped, shadowed) when the lists themselves are not kept (a session cache hit), else None
    set_aside_counts: tuple[int, int] | None = None
    # what `filtered` left out: a description of the filter and how many eligible workflows it excluded
    filter_text: str | None = None
    filtered_out: int = 0
    # (offset, limit, total) when `workflows` is one page of a longer list (`paged`), else None
    page_of: tuple[int, int, int] | None = None
    excluded: tuple[Excluded, ...] = ()  # left out by a query (--accepts-from, ...), with the reason

    @property
    def skipped_count(self) -> int:
        """How many skills were skipped as not eligible (listed by `discover --all`)."""
        return self.set_aside_counts[0] if self.set_aside_counts is not None else len(self.ineligible)

    @property
    def shadowed_count(self) -> int:
        """How many skills lost their name to a more local one (listed by `discover --all`)."""
        return self.set_aside_counts[1] if self.set_aside_counts is not None else len(self.shadowed)

    @property
    def message(self) -> str | None:
        """The EC-01 message when no workflow was found (two wordings, or what a filter excluded), else None."""
        if self.workflows or (self.page_of is not None and self.page_of[2]):
            return None  # a page past the end of a list that has workflows is no "none found"
        if self.filtered_out and self.filter_text:
            return FILTERED_MESSAGE.format(excluded=self.filtered_out, filter=self.filter_text)
        if self.scanned == 0:
            return NO_SKILLS_MESSAGE
        return NONE_ACCEPT_MESSAGE.format(scanned=self.scanned)

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form; the set-aside lists appear only with `show_all`, their counts always."""
        view = self.agent_view()
        data: dict[str, Any] = {
            "scanned": self.scanned,
            "workflows": [
                {
                    **r.to_data(),
                    "agents": list(view.agents(r)),
                    "agents_load_other": [o.to_data() for o in view.other_copies(r)],
                }
                for r in self.workflows
            ],
            "problems": [p.to_data() for p in self.problems],
            "skipped_count": self.skipped_count,
            "shadowed_count": self.shadowed_count,
        }
        if self.filter_text:
            data["filter"] = {"text": self.filter_text, "excluded": self.filtered_out}
        if self.page_of is not None:
            offset, limit, total = self.page_of
            after = offset + len(self.workflows)
            data["page"] = {
                "offset": offset,
                "limit": limit,
                "returned": len(self.workflows),
                "total": total,
                "next_offset": after if after < total else None,
            }
        if self.message is not None:
            data["message"] = self.message
        if self.show_all:
            data["ineligible"] = [{**r.to_data(), "agents": list(view.agents(r))} for r in self.ineligible]
            data["shadowed"] = [{**s.to_data(), "agents": list(view.agents(s.record))} for s in self.shadowed]
            data["excluded"] = [e.to_data() for e in self.excluded]
        return data

    def agent_view(self) -> AgentView:
        """Which agent loads which copy of each listed skill (`agents`, `agents_load_other`)."""
        skipped, shadowed = self.ineligible, tuple(s.record for s in self.shadowed)
        if not self.show_all:  # only the listed names are shown: the copies of other names change nothing
            names = {r.name for r in self.workflows}
            skipped = tuple(r for r in skipped if r.name in names)
            shadowed = tuple(r for r in shadowed if r.name in names)
        return agent_view(self.workflows, skipped, shadowed)

    def filtered(
        self,
        categories: tuple[str, ...] = (),
        scopes: tuple[str, ...] = (),
        spelling: Spelling | None = None,
    ) -> DiscoveryResult:
        """Keep the records in any of `categories` and `scopes` (empty means no filter).

        The note on what they left out names the two filters as `spelling` (the asking surface's,
        `inputs.surface_spelling`) spells them; without one, by their neutral names.
        A scope no source declared is a USAGE error, checked here for every surface: the sources
        have run by now, and a plugin's source declares its own scopes only when it is built.
        """
        known = [s.value for s in Scope]
        bad = [s for s in scopes if s not in known]
        if bad:
            raise UsageError(f"unknown scope {bad[0]!r}", hint=f"use one of: {', '.join(known)}")
        wanted = {category_key(c) for c in categories}  # case ignored, as ranking and `rank --category` do

        def keep(record: SkillRecord) -> bool:
            in_scope = not scopes or record.scope.value in scopes
            return in_scope and (not wanted or bool(wanted & {category_key(c) for c in record.categories}))

        if not categories and not scopes:
            return self
        kept = tuple(r for r in self.workflows if keep(r))
        ineligible = tuple(r for r in self.ineligible if keep(r))
        shadowed = tuple(s for s in self.shadowed if keep(s.record))
        spell = spelling.spell if spelling is not None else str
        words = [given(spell("category"), c) for c in categories] + [given(spell("scope"), s) for s in scopes]
        return attrs.evolve(
            self,
            workflows=kept,
            ineligible=ineligible,
            shadowed=shadowed,
            # a session cache hit keeps only counts: they describe the whole scan, not the filter
            set_aside_counts=None,
            filter_text=" ".join(words),
            filtered_out=self.filtered_out + len(self.workflows) - len(kept),
        )

    def paged(self, offset: int, limit: int) -> DiscoveryResult:
        """Keep `limit` workflows from `offset` on, so a long list travels in parts; all of it: itself.

        A cut list says so in the document's `page` (offset, limit, returned, total, next_offset);
        a list that fits whole is returned as it is, so its document is exactly the uncut one.
        """
        if offset == 0 and len(self.workflows) <= limit:
            return self
        page = self.workflows[offset : offset + limit]
        return attrs.evolve(self, workflows=page, page_of=(offset, limit, len(self.workflows)))

    def queried(self, query: Query) -> DiscoveryResult:
        """Keep the workflows matching an `eligibility.Query`; the rest go to `excluded` with reasons."""
        kept, left = split(self.workflows, query)
        return attrs.evolve(self, workflows=kept, excluded=(*self.excluded, *left))

    def named(self, name: str) -> SkillRecord | None:
        """Return the eligible workflow called `name`, if discovery found one."""
        return next((r for r in self.workflows if r.name == name), None)
