"""Write relevance scores into a session's `available-workflows.yaml`, the discovery cache.

Stage 1 caches what discovery found with `relevance_score: null`; Stage 4 fills the scores in. The
file is edited with ruamel's round-trip loader, so comments, key order and quoting that a person
or another tool wrote survive; it is written to a temporary file first and moved into place, so a
crash never leaves half a cache. When the file does not exist yet it is created in the seed's cache
format (discovery timestamp, 30-minute TTL, one entry per workflow).
"""

from __future__ import annotations

import datetime as _dt
import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

from swarm_handoff import safefs
from swarm_handoff.errors import Problem, SwarmError
from swarm_handoff.yamlio import LoadError, check_events, check_size, read_text
from swarm_handoff.yamlout import portable_yaml
from swarm_handoff.yamlrules import check_nesting

if TYPE_CHECKING:
    from swarm_handoff.ranking import RankedCandidate, RankingResult

WORKFLOWS_FILE = "available-workflows.yaml"
CACHE_TTL_MINUTES = 30

SESSION_NOT_FOUND = "SESSION_NOT_FOUND"
SESSION_CACHE_INVALID = "SESSION_CACHE_INVALID"


def _rt_yaml() -> Any:
    # deferred: only `rank --session` pays for the round-trip loader; portable: YAML 1.1 readers agree

    yaml = portable_yaml("rt")
    yaml.preserve_quotes = True
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def timestamp(now: _dt.datetime | None = None) -> str:
    """Return an ISO 8601 UTC time like `2026-02-07T18:30:00Z`, the form the seed's cache uses."""
    now = now or _dt.datetime.now(_dt.timezone.utc)
    return now.astimezone(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _entry(candidate: RankedCandidate) -> Any:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    record = candidate.record
    categories = CommentedSeq(record.categories)
    categories.fa.set_flow_style()  # `[research, analysis]`, as the seed writes it
    entry = CommentedMap()
    entry["skill"] = record.name
    entry["scope"] = record.scope.value
    entry["priority"] = record.priority
    entry["categories"] = categories
    entry["description"] = record.description
    entry["trigger"] = record.trigger
    entry["relevance_score"] = candidate.total
    return entry


def _invalid(path: Path, message: str, line: int | None = None) -> SwarmError:
    problem = Problem(SESSION_CACHE_INVALID, message, path=str(path), line=line)
    return SwarmError(
        SESSION_CACHE_INVALID,
        f"cannot update {path}: {message}",
        details={"path": str(path)},
        hint=f"fix the file, or delete it to have `rank --session` write a fresh {WORKFLOWS_FILE}",
        problems=(problem,),
    )


def _load(path: Path) -> Any:
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        text = read_text(path)
    except LoadError as exc:
        raise _invalid(path, exc.problem.message) from None
    try:
        check_nesting(text, path=str(path))
        check_events(text, path=str(path))  # depth, tags and number limits before the recursive loader
        data = _rt_yaml().load(text)
    except LoadError as exc:
        raise _invalid(path, exc.problem.message, exc.problem.line) from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise _invalid(path, f"invalid YAML: {exc.problem or exc}", line) from None
    except (YAMLError, RecursionError, ValueError) as exc:
        raise _invalid(path, f"invalid YAML: {exc}") from None
    try:
        check_size(data, path=str(path))
    except LoadError as exc:
        raise _invalid(path, exc.problem.message) from None
    if data is None:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("workflows", []), list):
        raise _invalid(path, "expected a mapping with a `workflows:` list")
    return data


def _fresh(now: _dt.datetime | None) -> Any:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    data = CommentedMap()
    discovery = CommentedMap()
    discovery["timestamp"] = timestamp(now)
    discovery["ttl_minutes"] = CACHE_TTL_MINUTES
    data["discovery"] = discovery
    data["workflows"] = CommentedSeq()
    return data


def write_scores(session: Path | str, result: RankingResult, *, now: _dt.datetime | None = None) -> dict[str, Any]:
    """Set `relevance_score` of every ranked workflow in the session's cache, creating it if needed.

    Entries for skills that were not ranked keep whatever they had; ranked skills missing from the
    file are appended in the cache's entry format. Returns what changed, for the `rank` document.
    """
    folder = Path(session)
    if not folder.is_dir():
        raise SwarmError(
            SESSION_NOT_FOUND,
            f"session folder {folder} does not exist",
            details={"path": str(folder)},
            hint="pass the perspective-swarm session folder (it holds the session's YAML files)",
        )

    # Read, change and replace under the session folder's lock: two `rank --session` runs at once
    # (a swarm ranks in parallel) would otherwise each write its own scores over the other's.
    with safefs.locked(folder):
        return _update(folder, folder / WORKFLOWS_FILE, result, now)


def _update(folder: Path, path: Path, result: RankingResult, now: _dt.datetime | None) -> dict[str, Any]:
    data = _load(path) if path.exists() else None
    created = data is None
    if data is None:
        data = _fresh(now)
    if "workflows" not in data or data["workflows"] is None:
        from ruamel.yaml.comments import CommentedSeq

        data["workflows"] = CommentedSeq()
    by_name = {
        entry.get("skill"): entry for entry in data["workflows"] if isinstance(entry, dict) and entry.get("skill")
    }
    updated: list[str] = []
    added: list[str] = []
    for candidate in result.ranked:
        entry = by_name.get(candidate.record.name)
        if entry is None:
            data["workflows"].append(_entry(candidate))
            added.append(candidate.record.name)
        else:
            entry["relevance_score"] = candidate.total
            updated.append(candidate.record.name)
    _atomic_write(path, data)
    return {"path": str(path), "created": created, "updated": updated, "added": added}


def _atomic_write(path: Path, data: Any) -> None:
    """Dump and replace the file at once (`safefs`: a recognisable temporary, fsynced, then a rename)."""
    stream = io.StringIO()
    _rt_yaml().dump(data, stream)
    safefs.atomic_write(path, stream.getvalue().encode("utf-8"), durable=True)
