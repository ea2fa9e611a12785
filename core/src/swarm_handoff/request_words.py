"""A request in words read as a synthesis: what `rank --request` and `handoff --request` start from.

The request becomes `original_prompt`; `problem_type` is the one given (default `analytical`) and
every other synthesis field keeps its empty default, so a scorer, a payload and a receiving skill
see the same shape a synthesis file gives. The text is bounded: a pasted log is not a request.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from swarm_handoff.errors import UsageError
from swarm_handoff.inputs import ref
from swarm_handoff.ranking_options import MAX_REQUEST_CHARS
from swarm_handoff.synthesis import PROBLEM_TYPES, PROBLEM_TYPES_V3, Synthesis, load_synthesis, parse_synthesis

__all__ = ["DEFAULT_REQUEST_PROBLEM_TYPE", "MAX_REQUEST_CHARS", "synthesis_from_request", "synthesis_or_request"]

DEFAULT_REQUEST_PROBLEM_TYPE = "analytical"


def synthesis_from_request(request: str, problem_type: str | None = None) -> Synthesis:
    """The synthesis a plain request stands for; a bad request or type is a USAGE error naming its input."""
    text = request.strip()
    if not text:
        raise UsageError(
            f"{ref('request')} is empty", hint=f'say what you need, e.g. {ref("request")} "summarise this PDF"'
        )
    if len(text) > MAX_REQUEST_CHARS:
        raise UsageError(
            f"{ref('request')} is {len(text):,} characters; at most {MAX_REQUEST_CHARS:,} are read",
            hint="pass the request itself, not a whole log or document",
        )
    kinds = PROBLEM_TYPES + PROBLEM_TYPES_V3
    if problem_type is not None and problem_type not in kinds:
        raise UsageError(
            f"{ref('problem_type')} {problem_type!r} is not a problem type", hint=f"use one of: {', '.join(kinds)}"
        )
    data = {"original_prompt": text, "problem_type": problem_type or DEFAULT_REQUEST_PROBLEM_TYPE}
    return attrs.evolve(parse_synthesis(data, path="request"), source_path=None)  # no file: none to name


def synthesis_or_request(
    synthesis: Path | str | Mapping[str, Any] | None, request: str | None, problem_type: str | None
) -> Synthesis:
    """`rank`'s context, one rule for every surface: a synthesis (a file, or an object over MCP) or words."""
    if synthesis is not None and request is not None:
        raise UsageError(
            f"{ref('synthesis')} and {ref('request')} are two ways to say the same thing: give one",
            hint=f"drop {ref('request')} to rank for the synthesis, or {ref('synthesis')} to rank for the words",
        )
    if request is not None:
        return synthesis_from_request(request, problem_type)
    if problem_type is not None:
        raise UsageError(
            f"{ref('problem_type')} goes with {ref('request')}", hint="a synthesis carries its own problem_type"
        )
    if synthesis is None:
        raise UsageError(
            f"rank needs a synthesis or a request in words: neither {ref('synthesis')} nor {ref('request')} was given",
            hint=f"give {ref('synthesis')} (a synthesis), or {ref('request')}: what you need, in words",
        )
    if isinstance(synthesis, Mapping):
        return parse_synthesis(dict(synthesis), path="synthesis")
    return load_synthesis(Path(synthesis))
