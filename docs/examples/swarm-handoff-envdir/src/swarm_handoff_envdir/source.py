"""The `envdir` discovery source: `$SKILLS_ENVDIR/*/SKILL.md`, cached by the core and explained by `why`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from swarm_handoff.api import (
    DiscoveryContext,
    Problem,
    Scope,
    ScopeSpec,
    Severity,
    SourceResult,
    read_skills,
    watch,
)

if TYPE_CHECKING:
    from swarm_handoff.api import Location

ENV_VAR = "SKILLS_ENVDIR"
SOURCE = "envdir"
ENVDIR_UNREADABLE = "ENVDIR_UNREADABLE"
# A scope of its own, between `global` (3) and `installed` (4): a team folder is less local than your
# own ~/.claude/skills, more local than installed packs. `discover` shows it as `[envdir, 3.2]`.
ENVDIR = ScopeSpec("envdir", 3.2)


class EnvDirSource:
    """Skills in the folder named by $SKILLS_ENVDIR, in a scope of its own (`envdir`)."""

    scopes = (ENVDIR,)  # the declaration also places the source: it runs at its most local scope

    def discover(self, context: DiscoveryContext) -> SourceResult:
        """Read every `NAME/SKILL.md` under the folder; an unset variable or absent folder finds nothing."""
        folder = context.env.get(ENV_VAR)
        if not folder:
            return SourceResult()
        # Watch the folder before listing it: adding or removing a skill folder changes its mtime.
        if watch(folder) is None:
            return SourceResult()  # absent: it was watched, so its appearance is noticed
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError as exc:
            problem = Problem(
                ENVDIR_UNREADABLE,
                f"cannot list ${ENV_VAR}: {exc.strerror or exc}",
                path=folder,
                hint=f"check the permissions of {folder}, or unset {ENV_VAR}",
                severity=Severity.WARNING,
            )
            return SourceResult(problems=(problem,))
        scope = Scope(ENVDIR.name)  # declared by now: the core registers `scopes` when it builds the source
        files = [
            (os.path.join(entry.path, "SKILL.md"), entry.name, scope)
            for entry in entries
            if entry.is_dir() and not entry.name.startswith(".")
        ]
        # read_skills watches each SKILL.md before reading it, and reuses unchanged ones.
        records = read_skills(files, source=SOURCE)
        return SourceResult(records=tuple(records), scanned=len(records))

    def cache_key(self, context: DiscoveryContext) -> str:
        """The answer depends on which folder the variable names, besides the files watched."""
        return context.env.get(ENV_VAR, "")

    def locations(self, context: DiscoveryContext, name: str) -> list[Location]:
        """Where `why NAME` looks: one SKILL.md under the folder, when the variable is set."""
        from swarm_handoff.api import Location  # only `why` asks: `discover` need not import it

        folder = context.env.get(ENV_VAR)
        if not folder:
            return []  # nothing to look at: `why` says nothing about this source
        return [Location(ENVDIR.name, str(Path(folder) / name / "SKILL.md"))]
