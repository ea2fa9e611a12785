"""The core's scorers, `swarm-v2` and `registry-v3` (registered by `builtin/scorers.py`, built on first use).

Both return one contribution per factor, also when the factor earns nothing, so that `--explain`
and JSON show why a factor did not fire. The tables they use are module data (documented in
docs/scorers/), so a reader can check a score against them without reading the code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from swarm_handoff.records import Contribution, Scope, SkillRecord, category_key
from swarm_handoff.skill_keys import in_chain

if TYPE_CHECKING:
    from swarm_handoff.ranking import RankingRequest
    from swarm_handoff.ranking_options import Autonomy
    from swarm_handoff.synthesis import Synthesis

# ---- swarm-v2: the five factors of the discovery seed -----------------------------------------

# problem_type -> categories that earn the category point. The seed maps its four v2.0 types; the
# three the synthesis also accepts (v3.0's) are mapped here too, each to its own category first, so a
# `research` synthesis does not score every skill 0 (docs/scorers/swarm-v2.md, docs/seed-deviations.md).
SWARM_V2_CATEGORY_MAP: Mapping[str, tuple[str, ...]] = {
    "strategic": ("research", "analysis", "architecture"),
    "analytical": ("analysis", "research", "verification"),
    "creative": ("creative", "research", "analysis"),
    "decision": ("research", "analysis", "verification"),
    "implementation": ("implementation", "architecture"),
    "research": ("research", "analysis"),
    "verification": ("verification", "analysis"),
}
# Matched as substrings of the lower-cased summary, as the seed does ("code" also matches "decode").
IMPLEMENTATION_KEYWORDS: tuple[str, ...] = ("build", "implement", "create", "develop", "code", "software")
UNCERTAINTY_THRESHOLD = 3
LOW_CONVERGENCE: tuple[str, ...] = ("low", "none")

SWARM_V2_POINTS: Mapping[str, int] = {
    "category_match": 3,
    "uncertainty": 2,
    "implementation": 2,
    "low_convergence": 2,
    "project_scope": 1,
}


def _categories(record: SkillRecord) -> set[str]:
    return {category_key(c) for c in record.categories}


class SwarmV2Scorer:
    """The discovery seed's relevance score: five factors, 0 to 10 points."""

    points = SWARM_V2_POINTS

    def score(self, candidate: SkillRecord, request: RankingRequest) -> list[Contribution]:
        """Score `candidate` for `request.synthesis`, one contribution per factor."""
        synthesis = request.synthesis
        categories = _categories(candidate)
        return [
            self._category(synthesis.problem_type, categories),
            self._uncertainty(len(synthesis.key_uncertainties), categories),
            self._implementation(synthesis.synthesis_summary, categories),
            self._convergence(synthesis.convergence_level, categories),
            self._scope(candidate.scope),
        ]

    def _category(self, problem_type: str, categories: set[str]) -> Contribution:
        wanted = SWARM_V2_CATEGORY_MAP.get(problem_type, ())
        hits = [c for c in wanted if category_key(c) in categories]
        if hits:
            reason = f"problem_type {problem_type} maps to {', '.join(hits)}"
            return Contribution("category_match", self.points["category_match"], reason)
        if not wanted:
            return Contribution("category_match", 0, f"problem_type {problem_type} has no category mapping")
        return Contribution("category_match", 0, f"no category among {', '.join(wanted)} ({problem_type})")

    def _uncertainty(self, count: int, categories: set[str]) -> Contribution:
        if count >= UNCERTAINTY_THRESHOLD and "research" in categories:
            reason = f"{count} key uncertainties (>= {UNCERTAINTY_THRESHOLD}) and category research"
            return Contribution("uncertainty", self.points["uncertainty"], reason)
        if count < UNCERTAINTY_THRESHOLD:
            return Contribution("uncertainty", 0, f"{count} key uncertainties (< {UNCERTAINTY_THRESHOLD})")
        return Contribution("uncertainty", 0, f"{count} key uncertainties but no research category")

    def _implementation(self, summary: str, categories: set[str]) -> Contribution:
        found = [kw for kw in IMPLEMENTATION_KEYWORDS if kw in summary.lower()]
        if found and "implementation" in categories:
            reason = f"summary mentions {', '.join(found)} and category implementation"
            return Contribution("implementation", self.points["implementation"], reason)
        if not found:
            return Contribution("implementation", 0, "summary has no implementation keyword")
        return Contribution("implementation", 0, f"summary mentions {', '.join(found)} but no implementation category")

    def _convergence(self, level: str | None, categories: set[str]) -> Contribution:
        if level in LOW_CONVERGENCE and "research" in categories:
            reason = f"convergence {level} and category research"
            return Contribution("low_convergence", self.points["low_convergence"], reason)
        if level not in LOW_CONVERGENCE:
            return Contribution("low_convergence", 0, f"convergence {level or 'not given'} is not low or none")
        return Contribution("low_convergence", 0, f"convergence {level} but no research category")

    def _scope(self, scope: Scope) -> Contribution:
        if scope is Scope.PROJECT:
            return Contribution("project_scope", self.points["project_scope"], "skill is in project scope")
        return Contribution("project_scope", 0, f"skill is in {scope.value} scope, not project")


# ---- registry-v3: the 0-100 table of the registry seed ----------------------------------------

# problem_type -> (direct categories, partial categories). Direct: the candidate names the kind of
# work itself; partial: it names a neighbouring kind that can still take the work.
REGISTRY_V3_CATEGORIES: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "decision": (("decision",), ("research", "analysis", "verification")),
    "creative": (("creative",), ("research", "analysis")),
    "analytical": (("analysis", "analytical"), ("research", "verification")),
    "strategic": (("strategy", "strategic"), ("research", "analysis", "architecture")),
    "implementation": (("implementation",), ("architecture", "code", "software-development")),
    "research": (("research",), ("analysis", "literature")),
    "verification": (("verification",), ("testing", "quality-assurance", "review", "analysis")),
}
REGISTRY_V3_POINTS: Mapping[str, int] = {
    "category_direct": 40,
    "category_partial": 20,
    "schema_v3": 20,
    "schema_universal": 10,
    "input_direct": 20,
    "input_partial": 10,
    "previous_success": 10,
    "autonomy_match": 10,
    "loop_penalty": -30,
}


def offered_inputs(synthesis: Synthesis) -> tuple[str, ...]:
    """Name the inputs a synthesis offers a target, from the fields it fills (documented data)."""
    offered = ["synthesis", "problem-statement", "context"]
    optional = (
        ("reframed-challenge", synthesis.reframed_challenge),
        ("uncertainties", synthesis.key_uncertainties),
        ("insights", synthesis.convergent or synthesis.divergent or synthesis.blind_spots),
        ("research-questions", synthesis.open_questions),
        ("search-terms", synthesis.suggested_terms),
        ("user-feedback", synthesis.user_feedback),
    )
    offered += [name for name, value in optional if value]
    return tuple(offered)


class RegistryV3Scorer:
    """The registry seed's score: category, schema, inputs, history, autonomy, loop; -30 to 100."""

    points = REGISTRY_V3_POINTS

    def score(self, candidate: SkillRecord, request: RankingRequest) -> list[Contribution]:
        """Score `candidate` for `request`, one contribution per factor of the table."""
        return [
            self._category(request.synthesis.problem_type, _categories(candidate)),
            self._schema(candidate),
            self._inputs(candidate, request),
            self._history(candidate, request),
            self._autonomy(candidate, request.autonomy),
            self._loop(candidate, request.chain),
        ]

    def _category(self, problem_type: str, categories: set[str]) -> Contribution:
        direct, partial = REGISTRY_V3_CATEGORIES.get(problem_type, ((problem_type,), ()))
        hits = [c for c in direct if category_key(c) in categories]
        if hits:
            reason = f"direct: {', '.join(hits)} is the work problem_type {problem_type} asks for"
            return Contribution("category_match", self.points["category_direct"], reason)
        hits = [c for c in partial if category_key(c) in categories]
        if hits:
            reason = f"partial: {', '.join(hits)} neighbours problem_type {problem_type}"
            return Contribution("category_match", self.points["category_partial"], reason)
        return Contribution("category_match", 0, f"no category among {', '.join(direct + partial)}")

    def _schema(self, candidate: SkillRecord) -> Contribution:
        version = candidate.schema_version or candidate.protocol_version
        if str(version).split(".")[0] == "3":
            return Contribution("schema_compatibility", self.points["schema_v3"], f"schema version {version}")
        if (candidate.schema_type or "").lower() == "universal":
            reason = f"schema type universal (version {version})"
            return Contribution("schema_compatibility", self.points["schema_universal"], reason)
        return Contribution("schema_compatibility", 0, f"schema version {version}, not 3.0 or universal")

    def _inputs(self, candidate: SkillRecord, request: RankingRequest) -> Contribution:
        required = [r.strip().lower() for r in candidate.input_requirements if r.strip()]
        if not required:
            return Contribution("input_compatibility", 0, "declares no input_requirements to match")
        offered = set(
            request.offered_inputs if request.offered_inputs is not None else offered_inputs(request.synthesis)
        )
        met = [r for r in required if r in offered]
        missing = [r for r in required if r not in offered]
        if not missing:
            reason = f"direct: every input requirement is offered ({', '.join(met)})"
            return Contribution("input_compatibility", self.points["input_direct"], reason)
        if met:
            reason = f"partial: offers {', '.join(met)}; lacks {', '.join(missing)}"
            return Contribution("input_compatibility", self.points["input_partial"], reason)
        return Contribution("input_compatibility", 0, f"offers none of {', '.join(required)}")

    def _history(self, candidate: SkillRecord, request: RankingRequest) -> Contribution:
        counts = request.history_of(candidate.name)
        seen = f"{counts.successes} succeeded, {counts.failures} failed"
        if counts.successes == 0 and counts.failures == 0:
            return Contribution("previous_success", 0, "no hand-off history")
        if counts.successes >= 1 and counts.successes >= counts.failures:
            return Contribution("previous_success", self.points["previous_success"], f"past hand-offs: {seen}")
        return Contribution("previous_success", 0, f"past hand-offs: {seen}; failures outweigh successes")

    def _autonomy(self, candidate: SkillRecord, preference: Autonomy | None) -> Contribution:
        declared = candidate.meta.get("autonomous")
        if preference is None:
            return Contribution("autonomy_match", 0, "no --autonomy preference given")
        if not isinstance(declared, bool):
            return Contribution("autonomy_match", 0, "skill does not declare meta.autonomous as true or false")
        runs = "autonomous" if declared else "supervised"
        if runs == str(preference):
            return Contribution("autonomy_match", self.points["autonomy_match"], f"runs {runs}, as preferred")
        return Contribution("autonomy_match", 0, f"runs {runs}, preference is {preference}")

    def _loop(self, candidate: SkillRecord, chain: tuple[str, ...]) -> Contribution:
        if in_chain(candidate.name, chain):  # as the loop rules compare names (skill_keys.py)
            reason = f"already in the hand-off chain: {' -> '.join(chain)}"
            return Contribution("loop_penalty", self.points["loop_penalty"], reason)
        return Contribution("loop_penalty", 0, "not in the hand-off chain")
