"""A request in words read as a synthesis: what `rank --request` and `handoff --request` start from.

The request becomes `original_prompt`; `problem_type` is the one given (default `analytical`) and
every other synthesis field keeps its empty default, so a scorer, a payload and a receiving skill
see the same shape a synthesis file gives. The text is bounded: a pasted log is not a request.
"""

from __future__ import annotations

import attrs

from swarm_handoff.errors import UsageError
from swarm_handoff.ranking_options import MAX_REQUEST_CHARS
from swarm_handoff.synthesis import PROBLEM_TYPES, PROBLEM_TYPES_V3, Synthesis, parse_synthesis

__all__ = ["DEFAULT_REQUEST_PROBLEM_TYPE", "MAX_REQUEST_CHARS", "synthesis_from_request"]

DEFAULT_REQUEST_PROBLEM_TYPE = "analytical"


def synthesis_from_request(
    request: str, problem_type: str | None = None, *, option: str = "--request", type_option: str = "--problem-type"
) -> Synthesis:
    """The synthesis a plain request stands for; a bad request or type is a USAGE error naming its option."""
    text = request.strip()
    if not text:
        raise UsageError(f"{option} is empty", hint=f'say what you need, e.g. {option} "summarise this PDF"')
    if len(text) > MAX_REQUEST_CHARS:
        raise UsageError(
            f"{option} is {len(text):,} characters; at most {MAX_REQUEST_CHARS:,} are read",
            hint="pass the request itself, not a whole log or document",
        )
    kinds = PROBLEM_TYPES + PROBLEM_TYPES_V3
    if problem_type is not None and problem_type not in kinds:
        raise UsageError(
            f"{type_option} {problem_type!r} is not a problem type", hint=f"use one of: {', '.join(kinds)}"
        )
    data = {"original_prompt": text, "problem_type": problem_type or DEFAULT_REQUEST_PROBLEM_TYPE}
    return attrs.evolve(parse_synthesis(data, path=option), source_path=None)  # no file: none to name
