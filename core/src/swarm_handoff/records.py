"""The frozen records that flow from discovery to ranking to the hand-off.

Data flows one way: sources produce `SkillRecord`s, scorers turn a record and a request into
`Contribution`s, and the hand-off builds a payload from the chosen record. Records never change
after they are built; functions take records and return new ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from swarm_handoff.errors import Problem
from swarm_handoff.filecache import observe as observe  # re-exported: sources import it from here
from swarm_handoff.scopes import Scope as Scope  # re-exported: `records.Scope` is where plugins met it


def _tuple(value: Any) -> tuple[Any, ...]:
    if value is None:
        return ()
    if isinstance(value, (str, bytes)):
        return (value,)
    return tuple(value)


def _frozen_mapping(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return dict(value or {})


@attrs.frozen(kw_only=True)
class SkillRecord:
    """One skill as a source saw it: identity, where it came from, and its hand-off metadata.

    `name` is the identity used for shadowing and hand-off (the folder name for folder skills);
    `declared_name` is the frontmatter's `name` when it differs. v2.0 fields and v3.0 fields live
    side by side; `legacy` marks a skill that has only v2.0 metadata.
    """

    name: str
    scope: Scope = attrs.field(converter=Scope)
    source: str
    path: str | None = None
    declared_name: str | None = None
    eligible: bool = True
    description: str = ""
    categories: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    trigger: str = "{payload_path}"
    protocol_version: str = "2.0"
    health_check: str | None = None
    requires: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    optional_consumes: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    # v3.0 metadata
    accepts_from: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    provides_to: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    schema_version: str | None = None
    schema_type: str | None = None
    input_requirements: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    output_types: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    legacy: bool = False
    # free-form metadata: estimated_duration, complexity, autonomous, version, custom keys
    meta: Mapping[str, Any] = attrs.field(factory=dict, converter=_frozen_mapping, eq=False, hash=False)
    problems: tuple[Problem, ...] = ()

    @property
    def priority(self) -> float:
        """The scope's precedence (1 = project ... 5 = registry; a declared scope may fall between)."""
        return self.scope.priority

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form, in the seed's cache field order first, then the rest."""
        data: dict[str, Any] = {
            "skill": self.name,
            "scope": self.scope.value,
            "priority": self.priority,
            "categories": list(self.categories),
            "description": self.description,
            "trigger": self.trigger,
            "protocol_version": self.protocol_version,
            "health_check": self.health_check,
            "path": self.path,
            "source": self.source,
            "eligible": self.eligible,
            "legacy": self.legacy,
            "requires": list(self.requires),
            "optional_consumes": list(self.optional_consumes),
            "accepts_from": list(self.accepts_from),
            "provides_to": list(self.provides_to),
            "schema_version": self.schema_version,
            "schema_type": self.schema_type,
            "input_requirements": list(self.input_requirements),
            "output_types": list(self.output_types),
            "meta": dict(self.meta),
        }
        if self.declared_name is not None:
            data["declared_name"] = self.declared_name
        if self.problems:
            data["problems"] = [p.to_data() for p in self.problems]
        return data


@attrs.frozen(kw_only=True)
class DiscoveryContext:
    """Everything a discovery source may look at, resolved once so sources stay pure of `os.environ`."""

    cwd: Path
    config_dir: Path
    env: Mapping[str, str] = attrs.field(factory=dict, eq=False, hash=False)
    refresh: bool = False
    # A parse index (`cache.ParseIndex`) sources may consult; None reads every file afresh.
    index: Any = attrs.field(default=None, eq=False, hash=False)


@attrs.frozen(kw_only=True)
class SourceResult:
    """What one source found: records (eligible or not), problems with skipped inputs, and a count."""

    records: tuple[SkillRecord, ...] = ()
    problems: tuple[Problem, ...] = ()
    scanned: int = 0
    # (path, mtime_ns, size) of everything the answer depends on, observed before reading: every
    # file read, every folder listed, and places whose appearance would change it ((-1, -1) = absent).
    inputs: tuple[tuple[str, int, int], ...] = ()
    # False when the answer must not be cached (a source failed or timed out).
    cacheable: bool = True


@attrs.frozen
class Contribution:
    """One factor of a score: how many points, and a sentence saying why."""

    factor: str
    points: float
    reason: str

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {"factor": self.factor, "points": self.points, "reason": self.reason}
