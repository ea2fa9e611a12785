"""Who may receive a hand-off, in which payload version, and the registry seed's Step 4 queries.

One place answers, for discovery, ranking and the hand-off alike: does a target accept this source
(`accepts_from`; a v2.0 `accepts_handoff: true` counts as `["*"]`), which schema version does it read
(`handoff.schema_version`, else its protocol version), what the registry's compatibility matrix says
about a payload of one version going to it, and whether it matches a query by source, schema version
or input requirement. The answers are plain data so that every command words a refusal the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from swarm_handoff.records import SkillRecord, category_key

ANY_SOURCE = "*"
YES, PARTIAL, NO, ADAPTER = "yes", "partial", "no", "adapter-needed"
# The registry seed's compatibility matrix: (payload version, target version) -> (status, its note).
MATRIX: Mapping[tuple[str, str], tuple[str, str]] = {
    ("3.0", "3.0"): (YES, "perfect match"),
    ("3.0", "2.0"): (PARTIAL, "downgrade (lose tracing, tiered context)"),
    ("3.0", "1.2"): (NO, "programming-pm internal schema (incompatible)"),
    ("2.0", "3.0"): (YES, "upgrade path exists"),
    ("2.0", "2.0"): (YES, "perfect match"),
    ("1.2", "3.0"): (ADAPTER, "requires adapter layer"),
}
# Versions this tool writes; a target reading anything else cannot be handed a payload.
WRITABLE = ("2.0", "3.0")


def accepted_sources(record: SkillRecord) -> tuple[str, ...]:
    """The sources a target takes work from: its `accepts_from`, or `*` for a v2.0 `accepts_handoff`."""
    if record.accepts_from:
        return tuple(record.accepts_from)
    return (ANY_SOURCE,) if record.eligible else ()


def accepts(record: SkillRecord, source: str) -> bool:
    """True when `source` may hand off to `record` (a `*` entry accepts everyone)."""
    names = accepted_sources(record)
    return ANY_SOURCE in names or source in names


def target_version(record: SkillRecord) -> str:
    """The payload version a target reads: its declared `schema_version`, else its protocol version."""
    return str(record.schema_version or record.protocol_version or "2.0").strip()


def compatibility(payload_version: str, target: str) -> tuple[str, str]:
    """What the matrix says about a `payload_version` payload going to a `target`-version skill."""
    if payload_version == target:
        return YES, "perfect match"
    return MATRIX.get((payload_version, target), (NO, f"no path from {payload_version} to {target}"))


@attrs.frozen
class Compatibility:
    """A candidate's compatibility, as the menu shows it: the version chosen and the matrix's word."""

    target_version: str
    payload_version: str | None
    status: str
    note: str

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return attrs.asdict(self)


def menu_compatibility(record: SkillRecord, source_version: str | None = None) -> Compatibility:
    """The compatibility shown for `record`: of `source_version`, or of the version a hand-off would choose."""
    wanted = target_version(record)
    # The hand-off's default: the target's own version when the tool writes it.
    default = wanted if wanted in WRITABLE else "3.0"
    chosen = default if source_version is None else source_version
    status, note = compatibility(chosen, wanted)
    return Compatibility(
        target_version=wanted, payload_version=chosen if status != NO else None, status=status, note=note
    )


def estimated_duration(record: SkillRecord) -> str | None:
    """The skill's estimated duration from `meta.estimated_duration` or `metadata.estimated_duration`."""
    for value in (record.meta.get("estimated_duration"), _nested(record.meta.get("metadata"))):
        if value is not None and not isinstance(value, (dict, list, bool)):
            return str(value)
    return None


def _nested(value: Any) -> Any:
    return value.get("estimated_duration") if isinstance(value, Mapping) else None


def _strings(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(values)


@attrs.frozen(kw_only=True)
class Query:
    """The registry seed's Step 4 query: accepts a source, reads a schema version, takes an input."""

    accepts_from: str | None = None
    schema_version: str | None = None
    inputs: tuple[str, ...] = attrs.field(default=(), converter=_strings)

    def __bool__(self) -> bool:
        return bool(self.accepts_from or self.schema_version or self.inputs)

    def reasons(self, record: SkillRecord) -> list[str]:
        """Why `record` does not match (empty when it does), one sentence per failed condition."""
        found: list[str] = []
        if self.accepts_from and not accepts(record, self.accepts_from):
            found.append(f"does not accept hand-offs from {self.accepts_from} (accepts_from: {_list(record)})")
        if self.schema_version:
            wanted = target_version(record)
            status, note = compatibility(self.schema_version, wanted)
            if status != YES:
                found.append(f"reads schema {wanted}; a {self.schema_version} payload is {status} ({note})")
        missing = [i for i in self.inputs if i not in record.input_requirements]
        if missing:
            declared = ", ".join(record.input_requirements) or "none"
            found.append(f"does not take input {', '.join(missing)} (input_requirements: {declared})")
        return found

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {"accepts_from": self.accepts_from, "schema_version": self.schema_version, "inputs": list(self.inputs)}


DiscoveryQuery = Query  # the name `swarm_handoff.api` gives it: what it queries is discovery's answer


def _list(record: SkillRecord) -> str:
    return ", ".join(accepted_sources(record)) or "none"


@attrs.frozen
class Excluded:
    """A target a query or a known source left out, with the reasons (`--all` lists them)."""

    record: SkillRecord
    reasons: tuple[str, ...]

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form: the record, plus why it was left out."""
        return {**self.record.to_data(), "excluded_because": list(self.reasons)}


def split(records: Iterable[SkillRecord], query: Query) -> tuple[tuple[SkillRecord, ...], tuple[Excluded, ...]]:
    """Divide `records` into those matching `query` and those left out with their reasons."""
    kept: list[SkillRecord] = []
    left: list[Excluded] = []
    for record in records:
        reasons = query.reasons(record)
        if reasons:
            left.append(Excluded(record, tuple(reasons)))
        else:
            kept.append(record)
    return tuple(kept), tuple(left)


def by_category(records: Sequence[SkillRecord], categories: Sequence[str]) -> tuple[SkillRecord, ...]:
    """Keep the records in any of `categories`, case ignored as ranking does (no categories: keep all)."""
    if not categories:
        return tuple(records)
    wanted = {category_key(c) for c in categories}
    return tuple(r for r in records if wanted & {category_key(c) for c in r.categories})
