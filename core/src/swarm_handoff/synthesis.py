"""The synthesis file: what a perspective swarm concluded, the input of ranking and hand-off.

Ranking reads it to score candidates; the hand-off copies it into the payload's context. It is
YAML or JSON (by extension); every problem is reported at once, naming the field and, for enums,
the allowed values.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import attrs

from swarm_handoff.errors import ErrorCode, Problem, SwarmError
from swarm_handoff.frontmatter_fields import value_kind
from swarm_handoff.yamlio import LoadError, check_size, load_document

PROBLEM_TYPES = ("decision", "creative", "analytical", "strategic")
# Accepted too, because v3.0 payloads and their targets use them.
PROBLEM_TYPES_V3 = ("implementation", "research", "verification")
CONVERGENCE_LEVELS = ("high", "medium", "low", "none")

SYNTHESIS_INVALID = "SYNTHESIS_INVALID"
# A synthesis is a few levels deep. The hand-off copies parts of it a few levels down into the
# payload, so its limit sits well under `yamlio.MAX_DEPTH`: every payload built from an accepted
# synthesis loads back (and verifies) under the payload limits.
SYNTHESIS_MAX_DEPTH = 32


@attrs.frozen(kw_only=True)
class Synthesis:
    """A validated synthesis; optional parts default to empty so scorers need no `None` checks."""

    kind: ClassVar[str] = "synthesis"
    original_prompt: str
    problem_type: str
    reframed_challenge: str = ""
    synthesis_summary: str = ""
    convergence_level: str | None = None
    key_uncertainties: tuple[str, ...] = ()
    convergent: tuple[Mapping[str, Any], ...] = ()
    divergent: tuple[Mapping[str, Any], ...] = ()
    blind_spots: tuple[str, ...] = ()
    suggested_terms: tuple[Mapping[str, Any], ...] = ()
    open_questions: tuple[str, ...] = ()
    perspectives_completed: int | None = None
    user_feedback: str = ""
    source_path: str | None = None

    def to_data(self) -> dict[str, Any]:
        """Give the file format back (the inverse of `parse_synthesis`)."""
        return {
            "original_prompt": self.original_prompt,
            "reframed_challenge": self.reframed_challenge,
            "problem_type": self.problem_type,
            "synthesis_summary": self.synthesis_summary,
            "convergence_level": self.convergence_level,
            "key_uncertainties": list(self.key_uncertainties),
            "insights": {
                "convergent": [dict(c) for c in self.convergent],
                "divergent": [dict(d) for d in self.divergent],
                "blind_spots": list(self.blind_spots),
            },
            "research_seeds": {
                "suggested_terms": [dict(t) for t in self.suggested_terms],
                "open_questions": list(self.open_questions),
            },
            "perspectives_completed": self.perspectives_completed,
            "user_feedback": self.user_feedback,
        }


class _Checker:
    def __init__(self, path: str | None) -> None:
        self.path = path
        self.problems: list[Problem] = []

    def add(self, field: str, message: str, hint: str) -> None:
        self.problems.append(Problem(SYNTHESIS_INVALID, f"{field}: {message}", path=self.path, hint=hint))

    def text(self, data: Mapping[str, Any], field: str, *, required: bool = False) -> str:
        value = data.get(field)
        if value is None:
            if required:
                self.add(field, "is required", f"add a non-empty `{field}` string")
            return ""
        if not isinstance(value, str):
            self.add(field, f"must be a string, not {value_kind(value)}", f"quote the `{field}` value")
            return ""
        if required and not value.strip():
            self.add(field, "must not be empty", f"write the `{field}`")
        return value

    def choice(self, data: Mapping[str, Any], field: str, allowed: tuple[str, ...], *, required: bool) -> str | None:
        value = data.get(field)
        if value is None:
            if required:
                self.add(field, "is required", f"use one of: {', '.join(allowed)}")
            return None
        if value not in allowed:
            self.add(field, f"{value!r} is not allowed", f"use one of: {', '.join(allowed)}")
            return None
        return str(value)

    def items(self, data: Any, field: str, item_type: type) -> tuple[Any, ...]:
        value = data.get(field) if isinstance(data, Mapping) else None
        if value is None:
            return ()
        if not isinstance(value, list):
            self.add(field, f"must be a list, not {value_kind(value)}", f"write `{field}` as a YAML list")
            return ()
        bad = [i for i, item in enumerate(value) if not isinstance(item, item_type)]
        if bad:
            expected = "strings" if item_type is str else "mappings"
            self.add(field, f"items {bad} are not {expected}", f"make every `{field}` item one of the {expected}")
            return ()
        return tuple(value)

    def section(self, data: Mapping[str, Any], field: str) -> Mapping[str, Any]:
        value = data.get(field)
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            self.add(field, f"must be a mapping, not {value_kind(value)}", f"write `{field}` as key: value lines")
            return {}
        return value


def parse_synthesis(data: Any, *, path: str | None = None) -> Synthesis:
    """Validate plain data as a synthesis, reporting every problem in one `SwarmError`."""
    try:  # the payload copies the synthesis: it must be shallow enough, with text keys, to hash and load back
        check_size(data, path=path, max_depth=SYNTHESIS_MAX_DEPTH, text_keys=True)
    except LoadError as exc:
        raise SwarmError(
            ErrorCode.VALIDATION_FAILED,
            f"cannot use synthesis{f' {path}' if path else ''}: {exc.problem.message}",
            hint=exc.problem.hint,
            problems=(exc.problem,),
        ) from None
    check = _Checker(path)
    if not isinstance(data, Mapping):
        check.add(
            "(document)",
            f"must be a mapping, not {value_kind(data)}",
            "the file holds `original_prompt: ...`, `problem_type: ...` and so on",
        )
        raise _error(check, path)
    insights = check.section(data, "insights")
    seeds = check.section(data, "research_seeds")
    completed = data.get("perspectives_completed")
    if completed is not None and (isinstance(completed, bool) or not isinstance(completed, int) or completed < 0):
        check.add("perspectives_completed", f"must be a whole number >= 0, not {completed!r}", "write a count")
        completed = None
    synthesis = Synthesis(
        original_prompt=check.text(data, "original_prompt", required=True),
        problem_type=check.choice(data, "problem_type", PROBLEM_TYPES + PROBLEM_TYPES_V3, required=True) or "",
        reframed_challenge=check.text(data, "reframed_challenge"),
        synthesis_summary=check.text(data, "synthesis_summary"),
        convergence_level=check.choice(data, "convergence_level", CONVERGENCE_LEVELS, required=False),
        key_uncertainties=check.items(data, "key_uncertainties", str),
        convergent=check.items(insights, "convergent", Mapping),
        divergent=check.items(insights, "divergent", Mapping),
        blind_spots=check.items(insights, "blind_spots", str),
        suggested_terms=check.items(seeds, "suggested_terms", Mapping),
        open_questions=check.items(seeds, "open_questions", str),
        perspectives_completed=completed,
        user_feedback=check.text(data, "user_feedback"),
        source_path=path,
    )
    if check.problems:
        raise _error(check, path)
    return synthesis


def _error(check: _Checker, path: str | None) -> SwarmError:
    fields = [p.message.split(":", 1)[0] for p in check.problems]
    return SwarmError(
        ErrorCode.VALIDATION_FAILED,
        f"invalid synthesis{f' in {path}' if path else ''}: {len(check.problems)} problem(s) with {', '.join(fields)}",
        details={"validation_errors": [p.message for p in check.problems]},
        hint="see docs/synthesis.md for the format",
        problems=tuple(check.problems),
    )


def load_synthesis(path: Path | str) -> Synthesis:
    """Read and validate a synthesis file (YAML, or JSON by its `.json` extension)."""
    path = Path(path)
    data = load_document(path, "synthesis")
    return parse_synthesis(data, path=str(path))
