"""A request in words read as a synthesis: what `rank --request` and `handoff --request` start from.

The request becomes `original_prompt`; `problem_type` is the one given (default `analytical`) and
every other synthesis field keeps its empty default, so a scorer, a payload and a receiving skill
see the same shape a synthesis file gives. The text is bounded: a pasted log is not a request.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import attrs

from swarm_handoff.errors import UsageError
from swarm_handoff.inputs import given, ref
from swarm_handoff.ranking_options import MAX_REQUEST_CHARS
from swarm_handoff.synthesis import PROBLEM_TYPES, PROBLEM_TYPES_V3, Synthesis, load_synthesis, parse_synthesis

__all__ = [
    "DEFAULT_REQUEST_PROBLEM_TYPE",
    "MAX_REQUEST_CHARS",
    "synthesis_from_request",
    "synthesis_or_request",
    "words_or_synthesis",
]

Given = TypeVar("Given")  # a synthesis as the caller holds it: a file's path, or an object over MCP

DEFAULT_REQUEST_PROBLEM_TYPE = "analytical"


def synthesis_from_request(request: str, problem_type: str | None = None) -> Synthesis:
    """The synthesis a plain request stands for; a bad request or type is a USAGE error naming its input."""
    text = request.strip()
    if not text:
        raise UsageError(
            f"{ref('request')} is empty", hint="say what you need, e.g. " + given("request", '"summarise this PDF"')
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


def words_or_synthesis(
    synthesis: Given | None,
    request: str | None,
    problem_type: str | None,
    *,
    command: str,
    continues: bool = False,
    received: object = None,
) -> Given | Synthesis | None:
    """A command's context, one rule for `rank` and `handoff` on every surface: a synthesis as given, or words.

    Never both, `problem_type` only with the words, and one of them is needed, unless the command
    `continues` a received payload and one was given (`received`: then None, the payload's context).
    """
    if synthesis is not None and request is not None:
        raise UsageError(
            f"{ref('synthesis')} and {ref('request')} are two ways to give the context: give one",
            hint=f"drop {ref('request')} to use the synthesis, or {ref('synthesis')} to use the words",
        )
    if request is not None:
        return synthesis_from_request(request, problem_type)
    if problem_type is not None:
        raise UsageError(
            f"{ref('problem_type')} goes with {ref('request')}", hint="a synthesis carries its own problem_type"
        )
    if synthesis is None and not (continues and received is not None):
        if continues:
            raise UsageError(
                f"{command} needs {ref('synthesis')} FILE, {ref('request')} TEXT, "
                f"or {ref('received')} PAYLOAD to continue a chain",
                hint="say what you need in words, e.g. " + given("request", '"what you need"'),
            )
        raise UsageError(
            f"{command} needs a synthesis or a request in words: "
            f"neither {ref('synthesis')} nor {ref('request')} was given",
            hint=f"give {ref('synthesis')} (a synthesis), or {ref('request')}: what you need, in words",
        )
    return synthesis


def synthesis_or_request(
    synthesis: Path | str | Mapping[str, Any] | None, request: str | None, problem_type: str | None
) -> Synthesis:
    """`rank`'s context (`words_or_synthesis`), read: a synthesis file, an object over MCP, or words."""
    given: Path | str | Mapping[str, Any] | Synthesis | None = words_or_synthesis(
        synthesis, request, problem_type, command="rank"
    )
    if isinstance(given, Synthesis):
        return given
    if isinstance(given, Mapping):
        return parse_synthesis(dict(given), path="synthesis")
    if given is None:  # only a command that continues a received payload gets None: `rank` does not
        raise TypeError("rank was given no context")
    return load_synthesis(Path(given))
