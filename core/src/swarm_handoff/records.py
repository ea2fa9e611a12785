"""The frozen records that flow from discovery to ranking to the hand-off.

Data flows one way: sources produce `SkillRecord`s, scorers turn a record and a request into
`Contribution`s, and the hand-off builds a payload from the chosen record. Records never change
after they are built; functions take records and return new ones.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import attrs

from swarm_handoff.errors import Problem, Severity
from swarm_handoff.scopes import Scope as Scope  # re-exported: `records.Scope` is where plugins met it


def _tuple(value: Any) -> tuple[Any, ...]:
    if value is None:
        return ()
    if isinstance(value, (str, bytes)):
        return (value,)
    return tuple(value)


def _frozen_mapping(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return dict(value or {})


def category_key(category: str) -> str:
    """The form every category comparison uses (filters, ranking): case and surrounding space ignored."""
    return category.strip().casefold()


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
        """Give the JSON-ready form (output, session file), in the seed's cache field order first, then the rest.

        Written out field by field, in `RECORD_FIELDS` order (a test checks both stay in step): it runs
        once per record on every printed or stored answer, where a loop over the table is the slower
        form (docs/performance.md gives the cost).
        """
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

    def to_row(self) -> tuple[Any, ...]:
        """Give the compact form the caches store: the same fields as `to_data`, as a marshal-able tuple."""
        return (
            self.name,
            self.scope.value,
            self.categories,
            self.description,
            self.trigger,
            self.protocol_version,
            self.health_check,
            self.path,
            self.source,
            self.eligible,
            self.legacy,
            self.requires,
            self.optional_consumes,
            self.accepts_from,
            self.provides_to,
            self.schema_version,
            self.schema_type,
            self.input_requirements,
            self.output_types,
            dict(self.meta),
            self.declared_name,
            tuple(p.to_data() for p in self.problems),
        )

    @classmethod
    def from_data(cls, data: Mapping[str, Any], *, source: str = "cache") -> SkillRecord:
        """Rebuild a record from `to_data()` (a session file, a workflows file); `source` when it names none.

        Unknown keys (`priority`, `relevance_score`) are ignored and a missing or null field takes
        its default, so a hand-written entry needs only `skill` and `scope`.
        """
        fields: dict[str, Any] = {}
        for attr, key, kind in RECORD_FIELDS:
            value = data.get(key)
            if kind == "derived" or value is None:
                continue
            if kind == "problems":
                value = tuple(problem_from_data(p) for p in value)
            elif kind == "text" and attr == "protocol_version":
                value = str(value)
            fields[attr] = value
        fields.setdefault("source", source)
        return cls(**fields)

    @classmethod
    def from_row(cls, row: Sequence[Any], scope: Scope | None = None) -> SkillRecord:
        """Rebuild a record from `to_row()` (optionally in another scope: the same file seen from elsewhere).

        Rows were built from valid records, so the attrs converters are skipped: setting the slots
        directly halves the cost, which dominates a repeated discovery of thousands of skills.
        """
        if len(row) != _ROW_LENGTH or not isinstance(row[_META_AT], dict):
            raise ValueError("not a record row")
        record = _NEW(cls)
        for set_slot, index in _PLAIN_SETTERS:
            set_slot(record, row[index])
        _SET_SCOPE(record, scope or _SCOPES.get(row[_SCOPE_AT]) or Scope(row[_SCOPE_AT]))  # a plugin's scope too
        problems = row[_PROBLEMS_AT]
        _SET_PROBLEMS(record, tuple(problem_from_data(p) for p in problems) if problems else ())
        return record


# The one description of a record's serialised form: (attribute, data key, kind), in the order of
# the JSON form. `from_data`, `from_row` and the workflows file's checks are built from it;
# `to_data` and `to_row` spell the same fields out in this order (tests check they agree).
# Kinds: text, text? (may be None), bool, strings (a tuple; a list in data), scope, mapping,
# problems, derived (output only: computed from other fields, never read back).
RECORD_FIELDS: tuple[tuple[str, str, str], ...] = (
    ("name", "skill", "text"),
    ("scope", "scope", "scope"),
    ("priority", "priority", "derived"),
    ("categories", "categories", "strings"),
    ("description", "description", "text"),
    ("trigger", "trigger", "text"),
    ("protocol_version", "protocol_version", "text"),
    ("health_check", "health_check", "text?"),
    ("path", "path", "text?"),
    ("source", "source", "text"),
    ("eligible", "eligible", "bool"),
    ("legacy", "legacy", "bool"),
    ("requires", "requires", "strings"),
    ("optional_consumes", "optional_consumes", "strings"),
    ("accepts_from", "accepts_from", "strings"),
    ("provides_to", "provides_to", "strings"),
    ("schema_version", "schema_version", "text?"),
    ("schema_type", "schema_type", "text?"),
    ("input_requirements", "input_requirements", "strings"),
    ("output_types", "output_types", "strings"),
    ("meta", "meta", "mapping"),
    ("declared_name", "declared_name", "text?"),  # in data only when set
    ("problems", "problems", "problems"),  # in data only when there are some
)
_SCOPES = {s.value: s for s in Scope}  # the core's scopes, looked up without a call
_NEW = object.__new__
# Each stored field's own slot setter (past the frozen `__setattr__`, about twice as fast as
# `object.__setattr__`) and its place in a row; scope and problems are rebuilt, the rest set as stored.
_STORED = [(index, attr, kind) for index, (attr, _, kind) in enumerate(f for f in RECORD_FIELDS if f[2] != "derived")]
_ROW_LENGTH = len(_STORED)
_PLAIN_SETTERS = tuple(
    (SkillRecord.__dict__[attr].__set__, index) for index, attr, kind in _STORED if kind not in ("scope", "problems")
)
_SCOPE_AT, _PROBLEMS_AT, _META_AT = (
    next(i for i, _, k in _STORED if k == kind) for kind in ("scope", "problems", "mapping")
)
_SET_SCOPE = SkillRecord.__dict__["scope"].__set__
_SET_PROBLEMS = SkillRecord.__dict__["problems"].__set__
# Every field's slot setter, all the fields read at once (in C), and the converters (`evolved`).
_SLOTS = {field.name: SkillRecord.__dict__[field.name].__set__ for field in attrs.fields(SkillRecord)}
_SETTERS = tuple(_SLOTS.values())
_FIELDS_OF = operator.attrgetter(*_SLOTS)
_CONVERTERS: dict[str, Callable[[Any], Any]] = {
    field.name: cast("Callable[[Any], Any]", field.converter)  # plain functions (Scope, _tuple, ...)
    for field in attrs.fields(SkillRecord)
    if field.converter is not None
}


def evolved(record: SkillRecord, **changes: Any) -> SkillRecord:
    """`attrs.evolve(record, **changes)`, running the converters of the changed fields only.

    The other fields were converted when the record was built (converting them again gives the
    same values), so they are copied slot by slot: a quarter of the cost of `evolve`, which
    `rank` and `route` pay for every undeclared skill of a large tree (docs/performance.md).
    """
    if type(record) is not SkillRecord:
        raise TypeError(f"evolved copies a SkillRecord, not a {type(record).__name__}")
    new = _NEW(SkillRecord)
    for set_slot, value in zip(_SETTERS, _FIELDS_OF(record), strict=True):
        set_slot(new, value)
    for name, value in changes.items():
        set_slot = _SLOTS.get(name)
        if set_slot is None:
            raise TypeError(f"SkillRecord has no field {name!r}")
        convert = _CONVERTERS.get(name)
        set_slot(new, value if convert is None else convert(value))
    return new


def problem_from_data(data: Mapping[str, Any]) -> Problem:
    """Rebuild a problem from `Problem.to_data()` (the form records carry in every serialisation)."""
    return Problem(
        data["code"],
        data["message"],
        data.get("path"),
        data.get("line"),
        data.get("column"),
        data.get("hint"),
        Severity(data["severity"]),
    )


@attrs.frozen(kw_only=True)
class DiscoveryContext:
    """Everything a discovery source may look at, resolved once so sources stay pure of `os.environ`."""

    cwd: Path
    config_dir: Path
    env: Mapping[str, str] = attrs.field(factory=dict, eq=False, hash=False)
    refresh: bool = False


@attrs.frozen(kw_only=True)
class SourceResult:
    """What one source found: records (eligible or not), problems with skipped inputs, and a count."""

    records: tuple[SkillRecord, ...] = ()
    problems: tuple[Problem, ...] = ()
    scanned: int = 0


@attrs.frozen
class Location:
    """One place a source looks for a skill of a given name; `note` says why it was not searched."""

    scope: Scope = attrs.field(converter=Scope)
    where: str
    note: str | None = None


@attrs.frozen
class Contribution:
    """One factor of a score: how many points, and a sentence saying why."""

    factor: str
    points: float
    reason: str

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {"factor": self.factor, "points": self.points, "reason": self.reason}
