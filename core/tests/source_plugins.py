"""A throwaway discovery source as a plugin, for tests that declare scopes or feed discovery records."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from swarm_handoff.api import ScopeSpec, hookimpl
from swarm_handoff.records import SkillRecord, SourceResult


def source_plugin(
    name: str,
    records: Callable[[], Sequence[SkillRecord]],
    *,
    scopes: Sequence[ScopeSpec] | None = None,
    priority: float | None = None,
) -> Any:
    """A plugin registering source `name`, which declares `scopes`, has `priority` and returns `records()`.

    The records are built when discovery runs, after the source's scopes are declared.
    """

    class Source:
        def discover(self, context: Any) -> SourceResult:
            built = tuple(records())
            return SourceResult(records=built, scanned=len(built))

    if scopes is not None:
        Source.scopes = scopes  # type: ignore[attr-defined]
    if priority is not None:
        Source.priority = priority  # type: ignore[attr-defined]

    class Plugin:
        @hookimpl
        def swarm_handoff_discovery_sources(self, register: Callable[..., None]) -> None:
            register(name, Source)

    return Plugin()
