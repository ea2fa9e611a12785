"""Payload v2.0 (and v1.0, which v2.0 extends): build one from a synthesis, and validate one.

v2.0 is open: fields a version does not name are ignored, so a newer writer never breaks an older
reader. Validation is split into two components, `v2-schema` (shapes, required fields, enums, times)
and `v2-rules` (what needs the file system or several fields at once).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
import secrets
import shlex
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from swarm_handoff.errors import Problem, Severity
from swarm_handoff.payload.canonical import HASH_PATTERN, seal
from swarm_handoff.payload.loops import loop_warning
from swarm_handoff.payload.schema import Arr, Num, Obj, Str, check, problem
from swarm_handoff.records import SkillRecord
from swarm_handoff.synthesis import CONVERGENCE_LEVELS, PROBLEM_TYPES, Synthesis

SOURCE_SKILL = "perspective-swarm"
DEFAULT_TTL = dt.timedelta(hours=1)
WORKFLOW_ID_PATTERN = r"^swarm-session-[0-9]{8}-[0-9]{6}-[a-f0-9]{8}$"
FILE_NAME = "handoff-payload.yaml"

SESSION_UNREADABLE = "PAYLOAD_SESSION_UNREADABLE"
PERSPECTIVES_MISMATCH = "PAYLOAD_PERSPECTIVES_MISMATCH"

_strings = Arr(Str())
SCHEMA = Obj(
    required=("handoff",),
    fields={
        "handoff": Obj(
            required=("version", "timestamp", "source", "target", "context"),
            fields={
                "version": Str(choices=("1.0", "2.0")),
                "timestamp": Str(fmt="date-time"),
                "expires_at": Str(fmt="date-time"),
                "source": Obj(
                    required=("skill", "workflow_id", "session_path"),
                    fields={
                        "skill": Str(choices=(SOURCE_SKILL,)),
                        "workflow_id": Str(
                            pattern=WORKFLOW_ID_PATTERN, hint="use swarm-session-YYYYMMDD-HHMMSS-<8 hex digits>"
                        ),
                        "session_path": Str(min_len=1, fmt="path"),
                    },
                ),
                "target": Obj(
                    required=("skill",),
                    fields={"skill": Str(min_len=1), "invocation": Str(), "category": Str(min_len=1)},
                ),
                "context": Obj(
                    required=("original_prompt", "problem_type"),
                    fields={
                        "original_prompt": Str(min_len=1),
                        "reframed_challenge": Str(),
                        "problem_type": Str(choices=PROBLEM_TYPES),
                        "synthesis_summary": Str(),
                    },
                ),
                "insights": Obj(
                    fields={
                        "convergent": Arr(
                            Obj(
                                required=("theme",),
                                fields={
                                    "theme": Str(),
                                    "confidence_score": Num(minimum=0, maximum=10),
                                    "contributing_archetypes": _strings,
                                    "key_evidence": _strings,
                                },
                            )
                        ),
                        "divergent": Arr(
                            Obj(
                                required=("archetype", "insight"),
                                fields={
                                    "archetype": Str(),
                                    "insight": Str(),
                                    "confidence": Num(integer=True, minimum=1, maximum=5),
                                },
                            )
                        ),
                        "uncertainties": _strings,
                        "blind_spots": _strings,
                    }
                ),
                "research_seeds": Obj(
                    fields={
                        "suggested_terms": Arr(Obj(required=("term",), fields={"term": Str(), "rationale": Str()})),
                        "open_questions": _strings,
                    }
                ),
                "meta": Obj(
                    fields={
                        # No upper bound (the JSON schema's 5 is relaxed, docs/seed-deviations.md):
                        # the count is checked against the session's perspective files instead.
                        "perspectives_completed": Num(integer=True, minimum=0),
                        "convergence_level": Str(choices=CONVERGENCE_LEVELS),
                        "user_feedback": Str(),
                        "handoff_reason": Str(),
                        "handoff_chain": Arr(Str(), min_items=1),
                        "payload_hash": Str(pattern=HASH_PATTERN, hint="sha256: and 64 lower-case hex digits"),
                        "payload_size_bytes": Num(integer=True, minimum=0),
                    }
                ),
            },
        )
    },
)


def utc_now() -> dt.datetime:
    """The current time in UTC to the second, the precision payload times are written with."""
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def stamp(moment: dt.datetime) -> str:
    """Write a time as payloads store it: `YYYY-MM-DDTHH:MM:SSZ` in UTC."""
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_workflow_id(moment: dt.datetime) -> str:
    """Make a `swarm-session-YYYYMMDD-HHMMSS-xxxxxxxx` id (eight random hex digits)."""
    return f"swarm-session-{moment.astimezone(dt.timezone.utc):%Y%m%d-%H%M%S}-{secrets.token_hex(4)}"


def workflow_id_for(session: Path, moment: dt.datetime) -> str:
    """Use the session folder's name when it is a workflow id already (the seed's layout), else make one."""
    return session.name if re.match(WORKFLOW_ID_PATTERN, session.name) else new_workflow_id(moment)


def trace_id_for(handoff: Mapping[str, Any]) -> str:
    """The trace id a v2.0 hand-off carries into v3.0, which v2.0 lacks: a v4-form UUID from its workflow id and time.

    Derived, not drawn, so that converting the same payload twice (or continuing it in v3.0) agrees.
    """
    source = handoff.get("source")
    workflow_id = source.get("workflow_id", "") if isinstance(source, Mapping) else ""
    seed = f"{workflow_id}|{handoff.get('timestamp', '')}"
    return str(uuid.UUID(bytes=hashlib.sha256(seed.encode("utf-8", "surrogatepass")).digest()[:16], version=4))


def count_perspectives(session: Path) -> int:
    """Count the perspective files of a session: regular, non-hidden files in `perspectives/`."""
    folder = session / "perspectives"
    try:
        return sum(1 for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    except OSError:
        return 0


def invocation_for(record: SkillRecord) -> str:
    """The target's invocation with `{payload_path}` still in it: `/name` plus the skill's trigger.

    `/name` is shell-quoted (`'/lit pm'`): a v2.0 skill's name need not be safe as a file name, and
    someone pastes this line into a shell. A plain name (`/lit-pm`) reads as it always did.
    """
    return f"{shlex.quote('/' + record.name)} {record.trigger}".strip()


def build_v2(
    synthesis: Synthesis,
    target: SkillRecord,
    session: Path,
    *,
    now: dt.datetime | None = None,
    chain: Sequence[str] | None = None,
    reason: str = "",
    feedback: str | None = None,
) -> dict[str, Any]:
    """Build and seal a v2.0 payload with every field of the seed's format, defaults filled in."""
    moment = now or utc_now()
    session = session.resolve()
    target_block: dict[str, Any] = {"skill": target.name, "invocation": invocation_for(target)}
    if target.categories:
        target_block["category"] = target.categories[0]
    meta: dict[str, Any] = {
        "perspectives_completed": (
            synthesis.perspectives_completed
            if synthesis.perspectives_completed is not None
            else count_perspectives(session)
        ),
    }
    if synthesis.convergence_level is not None:
        meta["convergence_level"] = synthesis.convergence_level
    meta.update(
        user_feedback=synthesis.user_feedback if feedback is None else feedback,
        handoff_reason=reason,
        handoff_chain=list(chain) if chain else [SOURCE_SKILL],
    )
    payload = {
        "handoff": {
            "version": "2.0",
            "timestamp": stamp(moment),
            "expires_at": stamp(moment + DEFAULT_TTL),
            "source": {
                "skill": SOURCE_SKILL,
                "workflow_id": workflow_id_for(session, moment),
                "session_path": str(session),
            },
            "target": target_block,
            "context": {
                "original_prompt": synthesis.original_prompt,
                "reframed_challenge": synthesis.reframed_challenge,
                "problem_type": synthesis.problem_type,
                "synthesis_summary": synthesis.synthesis_summary,
            },
            "insights": {
                "convergent": [dict(c) for c in synthesis.convergent],
                "divergent": [dict(d) for d in synthesis.divergent],
                "uncertainties": list(synthesis.key_uncertainties),
                "blind_spots": list(synthesis.blind_spots),
            },
            "research_seeds": {
                "suggested_terms": [dict(t) for t in synthesis.suggested_terms],
                "open_questions": list(synthesis.open_questions),
            },
            "meta": meta,
        }
    }
    return seal(payload)


class SchemaValidator:
    """`v2-schema`: required fields, types, enums, patterns and ISO 8601 times of v1.0/v2.0."""

    versions = ("1.0", "2.0")

    def validate(self, payload: Mapping[str, Any]) -> list[Problem]:
        """Return every shape problem of `payload`."""
        found = check(SCHEMA, payload)
        if _get(payload, "handoff", "meta", "converted_from") != "3.0":
            return found
        # :COMPAT: releases before issue 26 wrote a down-converted payload's real v3.0 source in
        # source.skill; such payloads in session folders still validate, the rule as a warning.
        # The 3.0->2.0 adapter now writes perspective-swarm and the source as the chain's end.
        return [
            attrs.evolve(p, severity=Severity.WARNING, hint=CONVERTED_SOURCE_HINT)
            if p.message.startswith("handoff.source.skill:")
            else p
            for p in found
        ]


CONVERTED_SOURCE_HINT = "down-converted from v3.0 (meta.converted_from): the source is the real v3.0 source skill"


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


class RulesValidator:
    """`v2-rules`: the session folder is readable, its perspective count matches, loops are flagged."""

    versions = ("1.0", "2.0")

    def validate(self, payload: Mapping[str, Any]) -> list[Problem]:
        """Return the cross-field problems of `payload` (shape problems are `v2-schema`'s)."""
        found: list[Problem] = []
        session_path = _get(payload, "handoff", "source", "session_path")
        if isinstance(session_path, str) and session_path.strip():
            session = Path(session_path)
            if not session.is_dir() or not os.access(session, os.R_OK | os.X_OK):
                found.append(
                    problem(
                        SESSION_UNREADABLE,
                        "handoff.source.session_path",
                        f"{session_path} is not a readable folder",
                        "keep the session folder until the target has taken the hand-off",
                    )
                )
            else:
                stated = _get(payload, "handoff", "meta", "perspectives_completed")
                actual = count_perspectives(session)
                if isinstance(stated, int) and not isinstance(stated, bool) and stated != actual:
                    found.append(
                        problem(
                            PERSPECTIVES_MISMATCH,
                            "handoff.meta.perspectives_completed",
                            f"says {stated} but {session / 'perspectives'} holds {actual} file(s)",
                            f"perspectives_completed comes from the synthesis: put one file per perspective into"
                            f" {session / 'perspectives'} (hand off from the swarm's own session folder), or"
                            " correct perspectives_completed in the synthesis",
                        )
                    )
        target = _get(payload, "handoff", "target", "skill")
        warning = loop_warning(target, _get(payload, "handoff", "meta", "handoff_chain"))
        if warning is not None:
            found.append(warning)
        return found
