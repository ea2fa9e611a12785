"""Build a v3.0 payload from a synthesis, and make it fit the 2,000-token budget or say why not.

The synthesis is spread over the tiers the universal schema defines: the short `context` (summary
at most 500 characters), `payload.working` (what the target needs first), `payload.session` (the
structured insights and the perspective files) and `payload.references` (paths only). When the
estimate is over the cap, optional fields are dropped first, then session content is moved into a
file beside the payload and referenced by path, then every tier but `working` joins it, then the long
texts of `working` are summarised, each cut marked and the full text kept in that file; when even
that is not enough, the older tracing events are trimmed and then tracing is dropped, and only then
building fails with the sizes. Nothing is lost: what leaves the payload is in the side file, whose
checksum the payload's hash covers. Tracing goes last because it is what links a hop of a chain to
the one before it (`trace_id` stays in any case: it is required).
"""

from __future__ import annotations

import copy
import datetime as dt
import functools
import inspect
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ParamSpec

import attrs

from swarm_handoff.errors import ErrorCode, SwarmError
from swarm_handoff.payload.canonical import seal
from swarm_handoff.payload.integrity import text_checksum
from swarm_handoff.payload.io import dump_payload, file_stamp
from swarm_handoff.payload.unsigned import UNSIGNED_TAG
from swarm_handoff.payload.v2 import DEFAULT_TTL, invocation_for, stamp, utc_now, workflow_id_for
from swarm_handoff.payload.v3 import SUMMARY_CAP, TOKEN_CAP, estimate_tokens
from swarm_handoff.records import SkillRecord
from swarm_handoff.synthesis import Synthesis

DEFAULT_SOURCE = "perspective-swarm"
DEFAULT_PHASE = "Stage 4: Hand-off"
CONFIDENCE_FOR_CONVERGENCE = {"high": "high", "medium": "medium", "low": "low", "none": "low"}
P = ParamSpec("P")  # the parameters `build_v3` shares with `draft_v3`
# Optional fields, least useful to the target first: what the budget drops, in this order. Tracing is
# not among them: it is the last thing to go, after every other repair (see `fit_budget`).
DROP_ORDER: tuple[tuple[str, ...], ...] = (
    ("context", "success_criteria"),
    ("context", "focus_areas"),
    ("context", "known_gaps"),
    ("target", "expected_phase"),
    ("context", "original_prompt"),
)


@attrs.frozen(kw_only=True)
class Built:
    """A built payload, the files that must be written beside it, and what budgeting did to it."""

    payload: dict[str, Any]
    side_files: tuple[tuple[Path, Any], ...] = ()
    notes: tuple[str, ...] = ()


def too_large_hint(older: str = "--schema 2.0") -> str:
    """What to do about a payload over the cap; `older` asks for a v2.0 payload as the caller's interface spells it."""
    return f"shorten the synthesis summary, reframed challenge or prompt, or hand off with {older}"


class PayloadTooLarge(SwarmError):
    """VALIDATION_FAILED for a payload over budget; carries the payload so it can be preserved."""

    def __init__(self, payload: dict[str, Any], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.payload = payload


def v3_path(session: Path, source: str, target: str, moment: dt.datetime, *, run: str | None = None) -> Path:
    """Where a v3.0 payload goes: `{session}/handoffs/{source}-to-{target}-{timestamp}.json`.

    `run` (a few random hex digits) makes the name one run's own: side files are named while the
    payload is built, before any other run's name is known, so the time alone could be shared.
    """
    unique = f"-{run}" if run else ""
    return session / "handoffs" / f"{source}-to-{target}-{file_stamp(moment)}{unique}.json"


def shorten(text: str, limit: int = SUMMARY_CAP) -> str:
    """Cut `text` to at most `limit` characters at a word boundary, marking the cut with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0] or text[: limit - 1]
    return cut + "…"


def _finishes(draft: Callable[P, dict[str, Any]]) -> Callable[[Callable[[dict[str, Any]], Built]], Callable[P, Built]]:
    """Call the decorated finishing step with `draft`'s parameters: one keyword list, mypy-checked for both."""

    def decorate(finish: Callable[[dict[str, Any]], Built]) -> Callable[P, Built]:
        def build(*args: P.args, **kwargs: P.kwargs) -> Built:
            return finish(draft(*args, **kwargs))

        functools.update_wrapper(build, finish)
        # help() and inspect show the parameters callers pass (the draft's), returning what `finish` returns
        returns = inspect.signature(finish).return_annotation
        vars(build)["__signature__"] = inspect.signature(draft).replace(return_annotation=returns)
        return build

    return decorate


def _perspective_artifacts(session: Path) -> list[dict[str, Any]]:
    folder = session / "perspectives"
    try:
        files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    except OSError:
        return []
    return [{"name": f"Perspective: {p.stem}", "path": str(p), "type": "analysis"} for p in files]


def _non_empty(mapping: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in mapping.items() if v not in ("", None, [], {})}


def side_path_for(payload: dict[str, Any]) -> Path:
    """Where the budget moves content of `payload` to: beside it, under a name of this run's own."""
    handoff = payload["handoff"]
    moment = dt.datetime.strptime(handoff["timestamp"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc)
    session = Path(handoff["source"]["session_path"])
    path = v3_path(session, handoff["source"]["skill"], handoff["target"]["skill"], moment, run=uuid.uuid4().hex[:8])
    return path.with_suffix(".session.json")


def draft_v3(
    synthesis: Synthesis,
    target: SkillRecord,
    session: Path,
    *,
    source: str = DEFAULT_SOURCE,
    now: dt.datetime | None = None,
    chain: Sequence[str] | None = None,
    reason: str = "",
    feedback: str | None = None,
    user_approved: bool | None = None,
    trace_id: str | None = None,
    phase: str = DEFAULT_PHASE,
) -> dict[str, Any]:
    """The v3.0 payload before budgeting: a continued chain changes its links before it is fitted."""
    moment = now or utc_now()
    session = session.resolve()
    feedback = synthesis.user_feedback if feedback is None else feedback
    summary_source = synthesis.synthesis_summary or synthesis.reframed_challenge or synthesis.original_prompt
    target_block: dict[str, Any] = {"skill": target.name, "invocation": invocation_for(target)}
    if target.categories:
        target_block["category"] = target.categories[0]
    meta: dict[str, Any] = {
        "token_count": 0,
        "confidence": CONFIDENCE_FOR_CONVERGENCE.get(synthesis.convergence_level or "none", "low"),
        "handoff_chain": list(chain) if chain else [source],
    }
    if reason:
        meta["handoff_reason"] = reason
    if user_approved is not None:
        meta["user_approved"] = user_approved
    state = _non_empty(
        {
            "convergent": [dict(c) for c in synthesis.convergent],
            "divergent": [dict(d) for d in synthesis.divergent],
            "suggested_terms": [dict(t) for t in synthesis.suggested_terms],
            "perspectives_completed": synthesis.perspectives_completed,
        }
    )
    session_tier = _non_empty({"artifacts": _perspective_artifacts(session), "state": state})
    payload_tiers: dict[str, Any] = {
        "working": _non_empty(
            {
                "reframed_challenge": synthesis.reframed_challenge,
                "synthesis_summary": synthesis.synthesis_summary,
                "convergence_level": synthesis.convergence_level,
                "user_feedback": feedback,
            }
        )
    }
    if session_tier:
        payload_tiers["session"] = session_tier
    if synthesis.source_path:
        payload_tiers["references"] = {
            "files": [{"path": synthesis.source_path, "description": "the full synthesis", "relevance": "critical"}]
        }
    payload = {
        "handoff": {
            "version": "3.0",
            "schema_type": "universal",
            "timestamp": stamp(moment),
            "expires_at": stamp(moment + DEFAULT_TTL),
            "trace_id": trace_id or str(uuid.uuid4()),
            "source": {
                "skill": source,
                "workflow_id": workflow_id_for(session, moment),
                "session_path": str(session),
                "phase": phase,
            },
            "target": target_block,
            "context": _non_empty(
                {
                    "summary": shorten(summary_source),
                    "original_prompt": synthesis.original_prompt,
                    "problem_type": synthesis.problem_type,
                    "focus_areas": list(synthesis.open_questions),
                    "known_gaps": [*synthesis.key_uncertainties, *synthesis.blind_spots],
                }
            ),
            "payload": payload_tiers,
            "meta": meta,
            "tracing": {
                "events": [{"timestamp": stamp(moment), "event_type": "created", "workflow": source}],
                "parent_span_id": None,
            },
        }
    }
    return payload


@_finishes(draft_v3)
def build_v3(payload: dict[str, Any]) -> Built:
    """Build, budget and seal a v3.0 payload (takes `draft_v3`'s arguments); VALIDATION_FAILED if over budget."""
    return fit_budget(payload, side_path_for(payload))


def _count(payload: dict[str, Any]) -> int:
    """Set `meta.token_count` to the estimate, which the count's own digits can change: iterate."""
    meta = payload["handoff"]["meta"]
    for _ in range(4):
        tokens = estimate_tokens(payload)
        if meta.get("token_count") == tokens:
            break
        meta["token_count"] = tokens
    return int(meta["token_count"])


SUMMARISED = "[summarised by swarm-handoff: {kept} of {total} characters kept; full text in {file}]"
# Long texts are cut to these lengths in turn until the payload fits; below the last, building fails.
SUMMARY_STEPS = (1000, 500, 250, 120)
_PLACEHOLDER = "sha256:" + "0" * 64  # same length as the real checksum, so counting before it is known is exact


class _MovedOut:
    """Content moved out of the payload into one side file, and the reference that points to it."""

    def __init__(self, tiers: dict[str, Any], path: Path) -> None:
        self.tiers = tiers
        self.path = path
        self.content: dict[str, Any] = {}
        self.entry: dict[str, Any] | None = None

    def add(self, key: str, value: Any) -> None:
        """Move `value` into the side file under `key`, referencing the file once from the payload."""
        self.content[key] = value
        if self.entry is None:
            self.entry = {
                "path": str(self.path),
                "description": "payload content moved out of the payload to fit the budget",
                "relevance": "important",
                "checksum": _PLACEHOLDER,
            }
            if key == "session":  # the wording older readers know
                self.entry["description"] = (
                    "session content (artifacts and state), moved out of the payload to fit the budget"
                )
            self.tiers.setdefault("references", {}).setdefault("files", []).append(self.entry)

    def files(self) -> list[tuple[Path, Any]]:
        """The side file to write (none when nothing moved), its checksum now filled in."""
        if self.entry is None:
            return []
        # The file's bytes as they will be written: the payload's hash then covers the file.
        self.entry["checksum"] = text_checksum(dump_payload(self.content, self.path))
        return [(self.path, self.content)]


def _working_only(tiers: dict[str, Any], moved: _MovedOut) -> list[str]:
    """Repair step 3a: every tier but `working` goes to the side file; one reference to it stays."""
    references = tiers.get("references", {})
    others = [f for f in references.get("files", []) if f is not moved.entry]
    rest = {key: tiers.pop(key) for key in list(tiers) if key not in ("working", "references")}
    if others or references.get("urls"):
        rest["references"] = {k: v for k, v in (("files", others), ("urls", references.get("urls"))) if v}
    if not rest:
        return []
    tiers.pop("references", None)
    if moved.entry is not None:  # the reference to the side file is the one that stays
        tiers["references"] = {"files": [moved.entry]}
    moved.add("payload", rest)
    return [f"kept payload.working only; the other tiers and references moved to {moved.path}"]


def _summarise_working(payload: dict[str, Any], moved: _MovedOut, cap: int) -> list[str]:
    """Repair step 3b: cut long texts in `working` step by step, each marked, the full text kept aside."""
    working = payload["handoff"]["payload"]["working"]
    originals = {k: v for k, v in working.items() if isinstance(v, str) and len(v) > SUMMARY_STEPS[-1]}
    if not originals:
        return []
    moved.add("working", dict(working))
    cut: list[str] = []
    for limit in SUMMARY_STEPS:
        for key, text in originals.items():
            if len(text) > limit:
                marker = SUMMARISED.format(kept=limit, total=len(text), file=moved.path.name)
                working[key] = f"{shorten(text, limit)} {marker}"
                if key not in cut:
                    cut.append(key)
        if _count(payload) <= cap:
            break
    return [f"summarised payload.working.{key} (marked; full text in {moved.path})" for key in cut]


def _trim_tracing(payload: dict[str, Any], cap: int) -> list[str]:
    """Last repair: keep only this hop's events (the parent span leads to the rest), then drop tracing."""
    handoff = payload["handoff"]
    tracing = handoff.get("tracing")
    if not isinstance(tracing, dict):
        return []
    notes: list[str] = []
    events = tracing.get("events")
    source = handoff["source"]["skill"]
    if isinstance(events, list):
        own = len(events)
        while own > 0 and isinstance(events[own - 1], dict) and events[own - 1].get("workflow") == source:
            own -= 1
        if own > 0:
            tracing["events"] = events[own:]
            notes.append(f"kept only {source}'s tracing events ({own} earlier ones are in the parent payload)")
            if _count(payload) <= cap:
                return notes
    tags = tracing.get("tags")
    if isinstance(tags, dict) and UNSIGNED_TAG in tags:  # never dropped: it is what a signature cannot vouch for
        handoff["tracing"] = {"tags": {UNSIGNED_TAG: tags[UNSIGNED_TAG]}}
        notes.append(f"dropped tracing's events and other tags to fit {cap} tokens (kept tags.{UNSIGNED_TAG})")
        return notes
    del handoff["tracing"]
    notes.append(f"dropped optional field tracing to fit {cap} tokens")
    return notes


def fit_budget(payload: dict[str, Any], side_path: Path, cap: int = TOKEN_CAP) -> Built:
    """Bring `payload` under `cap` tokens: drop optional fields, move session content out, keep working only
    (the rest moved out), summarise working's long texts with a marker, and last trim then drop tracing;
    else fail with the sizes."""
    payload = copy.deepcopy(payload)
    notes: list[str] = []
    side_files: list[tuple[Path, Any]] = []
    handoff = payload["handoff"]
    start = _count(payload)
    if start > cap:
        for path in DROP_ORDER:
            parent = handoff
            for key in path[:-1]:
                parent = parent.get(key, {})
            if path[-1] in parent:
                del parent[path[-1]]
                notes.append(f"dropped optional field {'.'.join(path)} to fit {cap} tokens")
                if _count(payload) <= cap:
                    break
    tiers = handoff["payload"]
    moved = _MovedOut(tiers, side_path)
    if _count(payload) > cap and "session" in tiers:
        moved.add("session", tiers.pop("session"))
        notes.append(f"moved payload.session to {side_path} to fit {cap} tokens")
    if _count(payload) > cap:
        notes.extend(_working_only(tiers, moved))
    if _count(payload) > cap:
        notes.extend(_summarise_working(payload, moved, cap))
    if _count(payload) > cap:
        notes.extend(_trim_tracing(payload, cap))
    side_files.extend(moved.files())
    tokens = _count(payload)
    if tokens > cap:
        raise PayloadTooLarge(
            payload,
            ErrorCode.VALIDATION_FAILED,
            f"the v3.0 payload is about {tokens} tokens, over the {cap}-token cap even after dropping optional "
            f"fields, moving session content to references, keeping payload.working only, summarising its "
            f"long texts and dropping tracing (it started at {start})",
            details={
                "missing_fields": [],
                "validation_errors": [f"handoff: about {tokens} tokens, {cap} at most", *notes],
            },
            hint=too_large_hint(),
            recoverable=True,
        )
    return Built(payload=seal(payload), side_files=tuple(side_files), notes=tuple(notes))
