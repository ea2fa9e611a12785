"""One loader for both entry-point groups: plugins (`swarm_handoff`) and skill packs (`swarm_handoff.skills`).

Both go through the same three steps, so they obey the same controls and fail the same way:

1. `select`: the group's entry points its caller found (`entrypoints.entry_points`, the cached
   scan; the loader reads nothing itself), each once (a distribution seen twice on sys.path counts
   once), minus the names a block list names and, when an allow list is set, the names it does
   not name; each one left out is a `SkippedPlugin` saying which variable left it out. Nothing is
   imported yet.
2. `load_one`: import one entry point, with its prints sent to stderr; any exception (SystemExit
   included) is caught and returned, so one broken distribution never stops the rest.
3. `failure`: the coded `LoadFailure` naming the entry point, its distribution and version.

The controls: `SWARM_HANDOFF_LOAD_PLUGINS` (allow list; empty: none) and
`SWARM_HANDOFF_DISABLE_PLUGINS` (block list) apply to both groups; for packs,
`SWARM_HANDOFF_LOAD_PACKS`, when set, takes the place of the plugin allow list and
`SWARM_HANDOFF_DISABLE_PACKS` adds to the block list (the older names, kept as aliases).
`SWARM_HANDOFF_STRICT_PLUGINS=1` makes any failure of either group an error.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from swarm_handoff.entrypoint_records import dist_of
from swarm_handoff.isolation import quiet, short_error
from swarm_handoff.plugin_records import LoadFailure, SkippedPlugin

ENTRY_POINT_GROUP = "swarm_handoff"
SKILLS_ENTRY_POINT_GROUP = "swarm_handoff.skills"

ENV_STRICT = "SWARM_HANDOFF_STRICT_PLUGINS"
ENV_DISABLE = "SWARM_HANDOFF_DISABLE_PLUGINS"
ENV_LOAD = "SWARM_HANDOFF_LOAD_PLUGINS"
ENV_LOAD_PACKS = "SWARM_HANDOFF_LOAD_PACKS"
ENV_DISABLE_PACKS = "SWARM_HANDOFF_DISABLE_PACKS"

PLUGIN_IMPORT_FAILED = "PLUGIN_IMPORT_FAILED"
PACK_LOAD_FAILED = "PACK_LOAD_FAILED"


@attrs.frozen
class Group:
    """One entry-point group: its name, what its members are called, and the variables that filter it."""

    name: str
    kind: str  # "plugin" or "pack": what reports call a member
    allow: tuple[str, ...]  # allow-list variables, the first one set wins
    block: tuple[str, ...]  # block-list variables, all apply
    failed_code: str


PLUGINS = Group(ENTRY_POINT_GROUP, "plugin", (ENV_LOAD,), (ENV_DISABLE,), PLUGIN_IMPORT_FAILED)
PACKS = Group(
    SKILLS_ENTRY_POINT_GROUP, "pack", (ENV_LOAD_PACKS, ENV_LOAD), (ENV_DISABLE, ENV_DISABLE_PACKS), PACK_LOAD_FAILED
)


def strict_requested(env: Mapping[str, str]) -> bool:
    """Say whether `SWARM_HANDOFF_STRICT_PLUGINS` asks for plugin and pack failures to be errors."""
    return env.get(ENV_STRICT, "").strip().lower() in {"1", "true", "yes", "on"}


def env_list(value: str | None) -> frozenset[str] | None:
    """Parse a comma-separated allow or block list; None (unset) means no list at all."""
    if value is None:
        return None
    return frozenset(part.strip() for part in value.split(",") if part.strip())


@attrs.frozen
class Candidate:
    """An entry point the controls let through, with the distribution that ships it."""

    name: str
    value: str
    distribution: str
    version: str
    entry_point: Any = attrs.field(eq=False, repr=False)


def policy_key(group: Group, env: Mapping[str, str]) -> str:
    """The variables that decide what `select` keeps, as one string (a cache key part)."""
    return "|".join(f"{var}={env.get(var)!r}" for var in (*group.allow, *group.block))


def select(group: Group, env: Mapping[str, str], found: Iterable[Any]) -> tuple[list[Candidate], list[SkippedPlugin]]:
    """Of the group's entry points `found` (the scan's), the ones the controls admit and the ones they leave out.

    Nothing is imported; pass `entrypoints.entry_points(group.name)`.
    """
    allow_var = next((var for var in group.allow if env.get(var) is not None), None)
    allow = env_list(env.get(allow_var)) if allow_var else None
    blocked_by = {name: var for var in reversed(group.block) for name in env_list(env.get(var)) or ()}
    kept: list[Candidate] = []
    skipped: list[SkippedPlugin] = []
    seen: set[tuple[str, str]] = set()
    for ep in found:
        if (ep.name, ep.value) in seen:  # the same distribution twice on sys.path
            continue
        seen.add((ep.name, ep.value))
        distribution, version = dist_of(ep)
        if ep.name in blocked_by:
            skipped.append(
                SkippedPlugin(ep.name, distribution, version, f"blocked by {blocked_by[ep.name]}", group.kind)
            )
        elif allow is not None and ep.name not in allow:
            skipped.append(SkippedPlugin(ep.name, distribution, version, f"not in {allow_var}", group.kind))
        else:
            kept.append(Candidate(ep.name, ep.value, distribution, version, ep))
    return kept, skipped


def load_one(candidate: Candidate) -> tuple[object, BaseException | None]:
    """Import one entry point; its exception is returned, never raised (SystemExit included)."""
    try:
        with quiet():  # a plugin or pack that prints at import must not corrupt a JSON document
            return candidate.entry_point.load(), None
    except (Exception, SystemExit) as exc:
        return None, exc


def failure(group: Group, candidate: Candidate, exc: BaseException, *, code: str | None = None) -> LoadFailure:
    """The coded report of an entry point that could not be used, with the way out."""
    block = group.block[0]
    return LoadFailure(
        candidate.name,
        candidate.distribution,
        candidate.version,
        code or group.failed_code,
        short_error(exc),
        f"fix or uninstall {candidate.distribution}, or set {block}={candidate.name}",
        group.kind,
    )
