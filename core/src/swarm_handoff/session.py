"""The session cache: `{session}/available-workflows.yaml` in the discovery seed's format.

The file holds `discovery: {timestamp, ttl_minutes: 30}` and `workflows:`, each with the seed's
fields (`relevance_score: null`, filled in later by ranking) followed by the rest of the record.
It is reused until the TTL runs out, `--refresh` is given, the session resumed from a checkpoint
(`.swarm-checkpoint.json` changed, see session_life.py), or any input changed: every scanned
SKILL.md, skills folder, registry file or installed pack, compared by `filecache.observe` (mtime,
size, inode, device and ctime). Those inputs
live beside it in `.available-workflows.state.json`, so the YAML keeps exactly the seed's shape.
A corrupt, foreign or stale file is ignored and rewritten; both files are written atomically.
"""

from __future__ import annotations

import datetime
import io
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from swarm_handoff import fastyaml, jsonio
from swarm_handoff.cache import (
    atomic_write,
    inputs_unchanged,
    problem_from_state,
    problem_to_state,
    source_keys,
    source_signature,
)
from swarm_handoff.discovery import discover_detailed
from swarm_handoff.discovery_result import DiscoveryResult
from swarm_handoff.errors import SwarmError
from swarm_handoff.plugins import PluginHost
from swarm_handoff.records import DiscoveryContext, SkillRecord
from swarm_handoff.session_life import checkpoint_text
from swarm_handoff.yamlio import LoadError, read_text
from swarm_handoff.yamlout import portable_yaml

SESSION_WRITE_FAILED = "SESSION_WRITE_FAILED"
SESSION_FILE = "available-workflows.yaml"
STATE_FILE = ".available-workflows.state.json"
TTL_MINUTES = 30
STATE_FORMAT = 1
# The session file lists every workflow; a bound still stops a hostile file from looping forever.
_MAX_VALUES = 10_000_000
_MAX_BYTES = 256 * 1024 * 1024  # ~1 KiB per workflow: room for far more skills than anyone has
_SEED_FIELDS = ("skill", "scope", "priority", "categories", "description", "trigger")


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


def _parse_time(text: Any) -> datetime.datetime | None:
    if not isinstance(text, str):
        return None
    try:
        value = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=datetime.timezone.utc)


def workflow_entry(record: SkillRecord) -> dict[str, Any]:
    """One `workflows:` item: the seed's fields, `relevance_score: null`, then the rest of the record."""
    data = record.to_data()
    entry: dict[str, Any] = {key: data.pop(key) for key in _SEED_FIELDS}
    entry["relevance_score"] = None
    entry.update(data)
    return entry


def render_session(result: DiscoveryResult, now: datetime.datetime | None = None) -> str:
    """The session file's text for `result`."""
    stamp = (now or _now()).astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    document: dict[str, Any] = {
        "discovery": {"timestamp": stamp, "ttl_minutes": TTL_MINUTES},
        "workflows": [workflow_entry(r) for r in result.workflows],
    }
    yaml = portable_yaml("safe", pure=False)  # YAML 1.1 readers (PyYAML) read it the same
    yaml.sort_base_mapping_type_on_output = False  # keep the seed's order
    stream = io.StringIO()
    yaml.dump(document, stream)
    return stream.getvalue()


def _state_key(context: DiscoveryContext, host: PluginHost) -> list[str]:
    return [str(context.cwd), str(context.config_dir), *source_signature(host), *source_keys(context, host), *sys.path]


def read_session(
    folder: Path, context: DiscoveryContext, host: PluginHost, now: datetime.datetime | None = None
) -> DiscoveryResult | None:
    """The cached result when the file is ours, whole, within its TTL and no input changed; else None."""
    try:
        # Both files are the tool's own: a link or anything but a regular file is not ours, so
        # it is not followed or opened (a FIFO would block); the cache is then simply rebuilt.
        state = jsonio.loads(read_text(folder / STATE_FILE, limit=_MAX_BYTES, follow=False))
        text = read_text(folder / SESSION_FILE, limit=_MAX_BYTES, follow=False)
        document = fastyaml.load(text, limit=_MAX_VALUES)
    except (OSError, ValueError, LoadError):
        return None
    if not (isinstance(state, dict) and state.get("format") == STATE_FORMAT):
        return None
    if state.get("key") != _state_key(context, host) or not isinstance(document, Mapping):
        return None
    if state.get("checkpoint") != checkpoint_text(folder):
        return None  # resumed from a checkpoint since (the seed's third invalidation rule)
    header = document.get("discovery")
    workflows = document.get("workflows")
    if not isinstance(header, Mapping) or not isinstance(workflows, list):
        return None
    stamp = _parse_time(header.get("timestamp"))
    ttl = header.get("ttl_minutes")
    if stamp is None or not isinstance(ttl, (int, float)) or isinstance(ttl, bool):
        return None
    age = (now or _now()) - stamp
    if age > datetime.timedelta(minutes=ttl) or age < datetime.timedelta(minutes=-1):
        return None
    try:
        if state["inputs"] is None or not inputs_unchanged(state["inputs"]):
            return None
        records = tuple(SkillRecord.from_data(entry) for entry in workflows)
        problems = tuple(problem_from_state(p) for p in state.get("problems", ()))
        set_aside = state.get("set_aside")
        counts = (int(set_aside[0]), int(set_aside[1])) if isinstance(set_aside, list) and len(set_aside) == 2 else None
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    return DiscoveryResult(
        workflows=records, problems=problems, scanned=int(state.get("scanned", 0)), set_aside_counts=counts
    )


def write_session(
    folder: Path,
    result: DiscoveryResult,
    inputs: list[tuple[str, int, int, int, int, int]] | None,
    context: DiscoveryContext,
    host: PluginHost,
    now: datetime.datetime | None = None,
) -> Path:
    """Write the session file, then its state (in that order: a crash between leaves it merely stale)."""
    path = folder / SESSION_FILE
    atomic_write(path, render_session(result, now).encode("utf-8"))
    state = {
        "format": STATE_FORMAT,
        "key": _state_key(context, host),
        # None: a source failed or timed out, so the file is written but never reused.
        "inputs": None if inputs is None else [list(i) for i in inputs],
        "scanned": result.scanned,
        "checkpoint": checkpoint_text(folder),
        "set_aside": [result.skipped_count, result.shadowed_count],
        "problems": [list(problem_to_state(p)) for p in result.problems],
    }
    atomic_write(folder / STATE_FILE, json.dumps(state).encode("utf-8"))
    return path


def discover_with_session(
    context: DiscoveryContext,
    host: PluginHost,
    folder: Path,
    *,
    show_all: bool = False,
    now: datetime.datetime | None = None,
) -> DiscoveryResult:
    """Answer from the session file when it is still true, else discover and rewrite it."""
    cached = None if context.refresh else read_session(folder, context, host, now)
    if cached is not None and not show_all:
        return cached
    result, inputs = discover_detailed(context, host, show_all=show_all)
    if cached is None:  # a valid file is kept as is: ranking may have written its scores into it
        try:
            write_session(folder, result, inputs, context, host, now)
        except OSError as exc:
            raise SwarmError(
                SESSION_WRITE_FAILED,
                f"cannot write the session cache in {folder}: {exc.strerror or exc}",
                hint="check that the session folder is writable",
                details={"session": str(folder)},
            ) from None
    return result
