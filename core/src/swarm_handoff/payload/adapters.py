"""Schema adapters: 2.0 -> 3.0 (an upgrade) and 3.0 -> 2.0 (a downgrade that lists what it drops).

The compatibility matrix of the hand-off registry decides what is allowed: 3.0 <-> 3.0 and
2.0 -> 3.0 are compatible, 3.0 -> 2.0 is partial (tracing and tiered context are lost, and this
adapter names every field it drops), and programming-pm's internal 1.2 schema is incompatible with
3.0 until an adapter layer exists. v1.0 converts like v2.0, of which it is a subset. A conversion
whose result would not be a valid payload of the target version is refused with the reasons,
instead of being guessed into shape.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

from swarm_handoff.errors import Problem
from swarm_handoff.payload.build3 import PayloadTooLarge, fit_budget, shorten, v3_path
from swarm_handoff.payload.canonical import seal
from swarm_handoff.payload.schema import check, parse_time
from swarm_handoff.payload.v2 import SCHEMA as V2_SCHEMA
from swarm_handoff.payload.v2 import SOURCE_SKILL as V2_SOURCE
from swarm_handoff.payload.v2 import WORKFLOW_ID_PATTERN, stamp, trace_id_for
from swarm_handoff.payload.v3 import SCHEMA as V3_SCHEMA
from swarm_handoff.payload.v3 import V3_TIME

STAGE_OF_V2 = "Stage 4: Hand-off"
CONFIDENCE_FOR_CONVERGENCE = {"high": "high", "medium": "medium", "low": "low", "none": "low"}


@attrs.frozen(kw_only=True)
class AdapterResult:
    """The `convert` document: the converted payload, what could not be carried, and the problems."""

    kind: ClassVar[str] = "conversion"
    source_version: str
    target_version: str
    payload: dict[str, Any]
    dropped: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    problems: tuple[Problem, ...] = ()
    side_files: tuple[tuple[Any, Any], ...] = attrs.field(default=(), eq=False)

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {
            "source_version": self.source_version,
            "target_version": self.target_version,
            "dropped": list(self.dropped),
            "notes": list(self.notes),
            "problems": [p.to_data() for p in self.problems],
            "payload": self.payload,
        }


def _map(data: Any, key: str) -> dict[str, Any]:
    value = data.get(key) if isinstance(data, Mapping) else None
    return dict(value) if isinstance(value, Mapping) else {}


def _list(data: Mapping[str, Any], key: str) -> list[Any]:
    value = data.get(key)
    return list(value) if isinstance(value, list) else []


def _put(target: dict[str, Any], key: str, value: Any) -> None:
    if value not in (None, "", [], {}):
        target[key] = value


def _v2_workflow_id(workflow_id: str, timestamp: Any) -> str | None:
    """A v3.0 workflow id in v2.0's `swarm-session-YYYYMMDD-HHMMSS-<8 hex>` form: the hand-off's time
    and the start of the old id's hash, so converting twice gives the same id. None without a time."""
    moment = parse_time(timestamp) if isinstance(timestamp, str) else None
    if moment is None:
        return None
    import datetime as dt

    when = moment.astimezone(dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
    digest = hashlib.sha256(workflow_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"swarm-session-{when}-{digest}"


def _v3_time(value: Any) -> Any:
    """Keep a time as written when v3.0 accepts it; rewrite other ISO 8601 forms as UTC `Z`."""
    import re

    if isinstance(value, str) and re.match(V3_TIME, value):
        return value
    parsed = parse_time(value)
    return stamp(parsed) if parsed is not None else value


class Upgrade:
    """2.0 -> 3.0: context and insights spread over the tiers; v2.0 extensions are dropped."""

    source_version = "2.0"
    target_version = "3.0"
    _known: ClassVar[frozenset[str]] = frozenset(
        {"version", "timestamp", "expires_at", "source", "target", "context", "insights", "research_seeds", "meta"}
    )

    def convert(self, payload: Mapping[str, Any]) -> AdapterResult:
        """Return the v3.0 payload (sealed and within budget) and the v2.0 fields it could not carry."""
        old = _map(payload, "handoff")
        source, target, context = _map(old, "source"), _map(old, "target"), _map(old, "context")
        insights, seeds, meta = _map(old, "insights"), _map(old, "research_seeds"), _map(old, "meta")
        dropped = [f"handoff.{k}" for k in old if k not in self._known]
        dropped += [k for k in payload if k != "handoff"]
        for prefix, section, known in (
            ("source", source, {"skill", "workflow_id", "session_path"}),
            ("target", target, {"skill", "invocation", "category"}),
            ("context", context, {"original_prompt", "reframed_challenge", "problem_type", "synthesis_summary"}),
            ("insights", insights, {"convergent", "divergent", "uncertainties", "blind_spots"}),
            ("research_seeds", seeds, {"suggested_terms", "open_questions"}),
            ("meta", meta, {*_V2_META_FROM_WORKING, "handoff_reason", "handoff_chain", *_INTEGRITY}),
        ):
            dropped += [f"handoff.{prefix}.{k}" for k in section if k not in known]
        summary = (
            context.get("synthesis_summary") or context.get("reframed_challenge") or context.get("original_prompt")
        )
        new_context: dict[str, Any] = {
            "summary": shorten(str(summary or "")),
            "problem_type": context.get("problem_type"),
        }
        _put(new_context, "original_prompt", context.get("original_prompt"))
        _put(new_context, "focus_areas", _list(seeds, "open_questions"))
        _put(new_context, "known_gaps", _list(insights, "uncertainties") + _list(insights, "blind_spots"))
        working: dict[str, Any] = {}
        for key in ("reframed_challenge", "synthesis_summary"):
            _put(working, key, context.get(key))
        for key in ("convergence_level", "user_feedback", "perspectives_completed"):
            _put(working, key, meta.get(key))
        state: dict[str, Any] = {}
        for key in ("convergent", "divergent"):
            _put(state, key, _list(insights, key))
        _put(state, "suggested_terms", _list(seeds, "suggested_terms"))
        tiers: dict[str, Any] = {"working": working}
        if state:
            tiers["session"] = {"state": state}
        new_target = {k: target[k] for k in ("skill", "invocation", "category") if k in target}
        new_meta: dict[str, Any] = {
            "token_count": 0,
            "confidence": CONFIDENCE_FOR_CONVERGENCE.get(str(meta.get("convergence_level")), "low"),
            "handoff_chain": meta.get("handoff_chain") or [source.get("skill", "perspective-swarm")],
        }
        _put(new_meta, "handoff_reason", meta.get("handoff_reason"))
        new: dict[str, Any] = {
            "version": "3.0",
            "schema_type": "universal",
            "timestamp": _v3_time(old.get("timestamp")),
        }
        if "expires_at" in old:
            new["expires_at"] = _v3_time(old["expires_at"])
        new.update(
            trace_id=trace_id_for(old),
            source={
                "skill": source.get("skill"),
                "workflow_id": source.get("workflow_id"),
                "session_path": source.get("session_path"),
                "phase": STAGE_OF_V2,
            },
            target=new_target,
            context=new_context,
            payload=tiers,
            meta=new_meta,
            tracing={
                "events": [{"timestamp": new["timestamp"], "event_type": "created", "workflow": source.get("skill")}],
                "parent_span_id": None,
            },
        )
        return _finish_upgrade({"handoff": new}, old, dropped)


def _finish_upgrade(payload: dict[str, Any], old: Mapping[str, Any], dropped: list[str]) -> AdapterResult:
    from pathlib import Path

    handoff = payload["handoff"]
    problems = tuple(check(V3_SCHEMA, payload))
    if problems:  # an invalid source cannot become a valid target: report, do not guess
        return AdapterResult(source_version="2.0", target_version="3.0", payload=payload, problems=problems)
    session = Path(str(handoff["source"]["session_path"] or "."))
    moment = parse_time(handoff["timestamp"])
    assert moment is not None  # the schema check above accepted the time
    side = v3_path(session, str(handoff["source"]["skill"]), str(handoff["target"]["skill"]), moment)
    try:
        built = fit_budget(payload, side.with_suffix(".session.json"))
    except PayloadTooLarge as exc:
        return AdapterResult(
            source_version="2.0",
            target_version="3.0",
            payload=exc.payload,
            problems=(Problem("PAYLOAD_TOKEN_BUDGET", exc.message, hint=exc.hint),),
        )
    return AdapterResult(
        source_version=str(old.get("version", "2.0")),
        target_version="3.0",
        payload=built.payload,
        dropped=tuple(dropped),
        notes=built.notes,
        side_files=built.side_files,
    )


class Downgrade:
    """3.0 -> 2.0: partial; tracing, tiers and v3.0-only fields are dropped and listed."""

    source_version = "3.0"
    target_version = "2.0"

    def convert(self, payload: Mapping[str, Any]) -> AdapterResult:
        """Return the v2.0 payload (sealed) and every v3.0 field it could not carry."""
        old = _map(payload, "handoff")
        source, target, context = _map(old, "source"), _map(old, "target"), _map(old, "context")
        tiers, meta = _map(old, "payload"), _map(old, "meta")
        working, session = _map(tiers, "working"), _map(tiers, "session")
        state = _map(session, "state")
        dropped: list[str] = []

        def drop(prefix: str, data: Mapping[str, Any], keep: set[str]) -> None:
            dropped.extend(f"{prefix}.{k}" for k in data if k not in keep)

        drop("handoff", old, {"version", "timestamp", "expires_at", "source", "target", "context", "payload", "meta"})
        drop("handoff.source", source, {"skill", "workflow_id", "session_path"})
        drop("handoff.target", target, {"skill", "invocation", "category"})
        drop("handoff.context", context, {"original_prompt", "problem_type", "summary", "focus_areas", "known_gaps"})
        drop("handoff.payload", tiers, {"working", "session"})
        drop("handoff.payload.working", working, {"reframed_challenge", "synthesis_summary", *_V2_META_FROM_WORKING})
        drop("handoff.payload.session", session, {"state"})
        drop(
            "handoff.payload.session.state",
            state,
            {"convergent", "divergent", "suggested_terms", _PERSPECTIVES},
        )
        drop("handoff.meta", meta, {"handoff_chain", "handoff_reason", "payload_hash", "payload_size_bytes"})
        summary = working.get("synthesis_summary") or context.get("summary")
        if working.get("synthesis_summary") and context.get("summary"):
            dropped.append("handoff.context.summary")
        new_context: dict[str, Any] = {
            "original_prompt": context.get("original_prompt"),
            "reframed_challenge": working.get("reframed_challenge", ""),
            "problem_type": context.get("problem_type"),
            "synthesis_summary": summary or "",
        }
        new_meta: dict[str, Any] = {}
        perspectives = working.get(_PERSPECTIVES, state.get(_PERSPECTIVES))
        _put(new_meta, "perspectives_completed", perspectives)
        _put(new_meta, "convergence_level", working.get("convergence_level"))
        new_meta["user_feedback"] = working.get("user_feedback", "")
        new_meta["handoff_reason"] = meta.get("handoff_reason", "")
        given = meta.get("handoff_chain")
        chain = list(given) if isinstance(given, list) else []
        real_source = source.get("skill")
        if real_source and (not chain or chain[-1] != real_source):
            chain.append(real_source)  # v3.0 rules put it there already; a foreign payload may not
        # a chain that is not a list is carried as it is, for v2.0's validator to refuse by name
        new_meta["handoff_chain"] = (chain or [V2_SOURCE]) if given is None or isinstance(given, list) else given
        new_meta["converted_from"] = "3.0"
        notes: list[str] = []
        if real_source not in (None, V2_SOURCE):
            notes.append(
                f"source.skill {real_source} is written as {V2_SOURCE}, the one origin v2.0 knows; "
                f"{real_source} is the last entry of meta.handoff_chain"
            )
        workflow_id = source.get("workflow_id")
        if isinstance(workflow_id, str) and not re.match(WORKFLOW_ID_PATTERN, workflow_id):
            derived = _v2_workflow_id(workflow_id, old.get("timestamp"))
            if derived is not None:
                notes.append(f"source.workflow_id {workflow_id} is written in v2.0's session-id form as {derived}")
                workflow_id = derived
        new: dict[str, Any] = {"version": "2.0", "timestamp": old.get("timestamp")}
        if "expires_at" in old:
            new["expires_at"] = old["expires_at"]
        new.update(
            source={"skill": V2_SOURCE, "workflow_id": workflow_id, "session_path": source.get("session_path")},
            target={k: target[k] for k in ("skill", "invocation", "category") if k in target},
            context=new_context,
            insights={
                "convergent": _list(state, "convergent"),
                "divergent": _list(state, "divergent"),
                "uncertainties": _list(context, "known_gaps"),
                "blind_spots": [],
            },
            research_seeds={
                "suggested_terms": _list(state, "suggested_terms"),
                "open_questions": _list(context, "focus_areas"),
            },
            meta=new_meta,
        )
        result = {"handoff": new}
        problems = tuple(check(V2_SCHEMA, result))
        return AdapterResult(
            source_version="3.0",
            target_version="2.0",
            payload=result if problems else seal(result),
            dropped=tuple(dropped),
            notes=tuple(notes),
            problems=problems,
        )


_V2_META_FROM_WORKING = ("convergence_level", "user_feedback", "perspectives_completed")
_INTEGRITY = ("payload_hash", "payload_size_bytes")
_PERSPECTIVES = "perspectives_completed"
