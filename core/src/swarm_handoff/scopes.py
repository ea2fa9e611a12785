"""Scopes as data: a name, a place in the one ordering, and a merge role, declared by the sources.

A scope says where a skill was found. The core knows the five of today (`project`, `git-root`,
`global`, `installed`, `registry`, precedence 1 to 5) so that `Scope.PROJECT` and the JSON
`priority` field stay as they were; a discovery source adds more by declaring them in its `scopes`
attribute (`ScopeSpec`), without touching the core. Precedence is the one ordering of discovery:
lower is more local; it decides which record wins a name, the order of the `discover` list, and
the order sources run in (a source runs at its most local scope). The role says what a record
does to a more local record of the same name: `shadow` (it loses, kept as shadowed) or `overlay`
(it fills in the fields the winner left empty).

`Scope` is an open set of interned strings: `Scope("project") is Scope.PROJECT`, a scope equals
its name, and `Scope("typo")` is a ValueError, as it was for the closed enum.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import attrs

SHADOW = "shadow"
OVERLAY = "overlay"
ROLES = (SHADOW, OVERLAY)

SCOPE_CONFLICT = "SCOPE_CONFLICT"
SCOPE_INVALID = "SCOPE_INVALID"

_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*\Z")
_TABLE: dict[str, Scope] = {}


class _ScopeType(type):
    """Make the class behave like the enum it replaces: `Scope(name)`, `Scope["PROJECT"]`, `list(Scope)`."""

    def __call__(cls, value: object) -> Scope:
        if type(value) is Scope:  # the hot path: records built from records
            return value
        found = _TABLE.get(value) if isinstance(value, str) else None
        if found is None:
            known = ", ".join(s.value for s in _ordered())
            raise ValueError(f"{value!r} is not a declared scope (known: {known})")
        return found

    def __getitem__(cls, name: str) -> Scope:
        found = next((s for s in _TABLE.values() if s.name == name), None)
        if found is None:
            raise KeyError(name)
        return found

    def __iter__(cls) -> Iterator[Scope]:
        return iter(_ordered())

    def __len__(cls) -> int:
        return len(_TABLE)


class Scope(str, metaclass=_ScopeType):
    """Where a skill was found; `priority` orders scopes (most local first), `role` says how it merges."""

    PROJECT: ClassVar[Scope]
    GIT_ROOT: ClassVar[Scope]
    GLOBAL: ClassVar[Scope]
    INSTALLED: ClassVar[Scope]
    REGISTRY: ClassVar[Scope]

    value: str
    name: str
    priority: float  # the precedence: 1 for project ... 5 for registry; lower wins shadowing and ties
    role: str
    declared_by: str
    read_by: tuple[str, ...]  # the agents that load skills from this scope (`claude-code`, `codex`, ...)

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return f"<Scope.{self.name}: {self.value!r}>"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Scope, (self.value,))

    def __copy__(self) -> Scope:
        return self

    def __deepcopy__(self, memo: Mapping[int, Any]) -> Scope:
        return self


def _ordered() -> list[Scope]:
    return sorted(_TABLE.values(), key=lambda s: (s.priority, s.value))


def _make(name: str, priority: float, role: str, by: str, read_by: tuple[str, ...] = ()) -> Scope:
    scope = str.__new__(Scope, name)
    scope.value = name
    scope.name = name.upper().replace("-", "_").replace(".", "_")
    scope.priority = priority
    scope.role = role
    scope.declared_by = by
    scope.read_by = tuple(read_by)
    _TABLE[name] = scope
    return scope


CORE = "swarm-handoff-core"
# Agents by the names the listing uses: Claude Code reads `.claude/skills` (project, git root, user) and
# its plugins' skills; Codex and the Agent Skills client guide read `.agents/skills`.
CLAUDE_CODE = "claude-code"
CODEX = "codex"
AGENT_SKILLS = "agent-skills"
AGENT_NAMES = {CLAUDE_CODE: "Claude Code", CODEX: "Codex", AGENT_SKILLS: "Agent Skills clients"}
Scope.PROJECT = _make("project", 1, SHADOW, CORE, (CLAUDE_CODE,))
Scope.GIT_ROOT = _make("git-root", 2, SHADOW, CORE, (CLAUDE_CODE,))
Scope.GLOBAL = _make("global", 3, SHADOW, CORE, (CLAUDE_CODE,))
Scope.INSTALLED = _make("installed", 4, SHADOW, CORE)
Scope.REGISTRY = _make("registry", 5, OVERLAY, CORE)
_BUILTIN = frozenset(_TABLE)


@attrs.frozen
class ScopeSpec:
    """One scope a source's records carry: its name, its precedence (lower = more local) and its role."""

    name: str
    precedence: float
    role: str = SHADOW
    # The agents that load skills from this scope themselves (`claude-code`, `codex`, `agent-skills`, or
    # another agent's own name): `discover` says which agent loads which copy. Empty: only swarm-handoff.
    read_by: tuple[str, ...] = ()

    def problem(self) -> str | None:
        """Say what is wrong with this declaration, or None when it is usable."""
        if not isinstance(self.name, str) or not _NAME_RE.match(self.name):
            return f"scope name {self.name!r} is not lower-case letters, digits, '-', '.' or '_'"
        readers: Any = self.read_by  # a plugin's declaration: any object until checked
        if isinstance(readers, str) or not isinstance(readers, (tuple, list)) or len(readers) > 16:
            return f"scope {self.name!r} has read_by {readers!r}, not a tuple of at most 16 agent names"
        bad = [r for r in readers if not isinstance(r, str) or not _NAME_RE.match(r) or len(r) > 64]
        if bad:
            return (
                f"scope {self.name!r} has read_by {bad[0]!r}: agent names are lower-case letters, digits, '-', "
                "'.' or '_', at most 64 characters"
            )
        p = self.precedence
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not math.isfinite(p):
            return f"scope {self.name!r} has precedence {p!r}, not a finite number"
        if self.role not in ROLES:
            return f"scope {self.name!r} has role {self.role!r}, not one of {', '.join(ROLES)}"
        return None


def specs_of(source: object) -> tuple[ScopeSpec, ...] | None:
    """The source's `scopes` declaration as a tuple, or None when it declares none (a legacy source)."""
    declared = getattr(source, "scopes", None)
    if declared is None:
        return None
    if isinstance(declared, ScopeSpec):
        return (declared,)
    if isinstance(declared, (str, bytes, Mapping)):
        raise TypeError(f"scopes is {type(declared).__name__}, not a sequence of ScopeSpec")
    return tuple(declared)


@attrs.frozen
class Refusal:
    """A scope declaration that was not applied: a code, a message naming the source, a hint."""

    code: str
    message: str
    hint: str


def declare(owners: dict[str, tuple[str, ScopeSpec]], source: str, specs: tuple[object, ...]) -> list[Refusal]:
    """Apply one source's declarations; refuse (never raise) a bad one or one that conflicts.

    `owners` is the host's memory of who declared what, so a conflict names both sources. A core
    scope keeps its core precedence and role; a scope a source of an earlier host declared (a test's
    throwaway plugin) is taken over by this host's first declaration.
    """
    refused: list[Refusal] = []
    for spec in specs:
        if not isinstance(spec, ScopeSpec):
            hint = "declare scopes as swarm_handoff.api.ScopeSpec(name, precedence, role)"
            refused.append(Refusal(SCOPE_INVALID, f"source {source!r}: {spec!r} is not a ScopeSpec", hint))
            continue
        bad = spec.problem()
        if bad is not None:
            refused.append(Refusal(SCOPE_INVALID, f"source {source!r}: {bad}", "see docs/plugins.md#scopes"))
            continue
        current = _TABLE.get(spec.name)
        first = owners.get(spec.name)
        if spec.name in _BUILTIN or first is not None:
            assert current is not None
            if (current.priority, current.role) != (spec.precedence, spec.role):
                by = f"source {first[0]!r}" if first is not None else f"the core ({CORE})"
                refused.append(
                    Refusal(
                        SCOPE_CONFLICT,
                        f"source {source!r} declares scope {spec.name!r} with precedence {spec.precedence} "
                        f"and role {spec.role}, but {by} declares precedence {current.priority} and role "
                        f"{current.role}; the earlier declaration is kept",
                        f"declare {spec.name!r} as {by} does, or give your scope another name",
                    )
                )
                continue
            owners.setdefault(spec.name, (source, spec))
            continue
        owners[spec.name] = (source, spec)
        if current is None:
            _make(spec.name, spec.precedence, spec.role, source, tuple(spec.read_by))
        else:
            current.priority, current.role, current.declared_by = spec.precedence, spec.role, source
            current.read_by = tuple(spec.read_by)
    return refused


def precedence_of(specs: tuple[object, ...]) -> float | None:
    """Where a source that declares `specs` runs in the one ordering: at its most local scope."""
    known = [_TABLE[s.name].priority for s in specs if isinstance(s, ScopeSpec) and s.name in _TABLE]
    return min(known) if known else None
