"""Find the workflows skill packs offer through the `swarm_handoff.skills` entry-point group.

An entry point exposes a workflow in one of two ways:

* it names a `Workflow` object: ``my-skill = "my_pack.skill:WORKFLOW"``;
* it names a module whose `WORKFLOW` attribute is one: ``my-skill = "my_pack.skill"``.

One skill entry point, one workflow. The same group also carries skills that only have SKILL.md
metadata (another part of swarm-handoff reads those); an entry point that yields neither a
`Workflow` nor a module with `WORKFLOW` is skipped quietly. Each entry point is loaded in its own
`try`: a pack that fails to import, or whose workflow is invalid, becomes a `Problem` naming its
distribution, and every other pack still works. Nothing touches `sys.path`, and nothing is loaded
until a command asks for workflows.

The registry sits below the plugin host and never reaches for it: the loader's controls (which
packs to import) come from the caller, who passes the host's settings (`get_host().env`), the one
set for plugins and packs alike. Without settings it reads the process environment, as
`plugins.build_host()` does.
"""

from __future__ import annotations

import os
import types
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from swarm_handoff.entrypoint_records import dist_of
from swarm_handoff.entrypoints import entry_points as scanned
from swarm_handoff.errors import ErrorCode, Problem, SwarmError
from swarm_handoff.isolation import quiet
from swarm_handoff.loader import PACKS, Candidate, load_one
from swarm_handoff.pack_entries import entry_points as pack_entry_points  # the one loader's controls apply
from swarm_handoff.workflow.model import Workflow

WORKFLOW_ATTRIBUTE = "WORKFLOW"


@attrs.frozen
class RegisteredWorkflow:
    """A workflow and the entry point and distribution it came from."""

    workflow: Workflow
    entry_point: str = ""
    distribution: str = ""
    version: str = ""

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready summary used by `workflow list`."""
        return {
            "name": self.workflow.name,
            "description": self.workflow.description,
            "steps": self.workflow.total_steps,
            "entry_point": self.entry_point,
            "distribution": self.distribution,
            "version": self.version,
        }


@attrs.frozen
class WorkflowRegistry:
    """Every workflow found, by name, plus the problems of packs that could not be used."""

    workflows: Mapping[str, RegisteredWorkflow] = attrs.field(factory=dict)
    problems: tuple[Problem, ...] = ()
    skipped: tuple[str, ...] = ()

    @classmethod
    def of(cls, *workflows: Workflow) -> WorkflowRegistry:
        """Build a registry from workflow objects directly (tests, embedding applications)."""
        ordered = sorted(workflows, key=lambda w: w.name)
        return cls({w.name: RegisteredWorkflow(w, distribution="(in-process)") for w in ordered})

    @property
    def names(self) -> list[str]:
        """The registered workflow names, sorted."""
        return sorted(self.workflows)

    def get(self, name: str) -> Workflow:
        """Return the workflow `name`, or raise a structured error listing the known names."""
        found = self.workflows.get(name)
        if found is None:
            broken = [p.path for p in self.problems if p.path == name]
            raise SwarmError(
                ErrorCode.WORKFLOW_NOT_FOUND,
                f"no workflow named {name!r}" + (" (its skill pack failed to load)" if broken else ""),
                details={"workflow": name, "available": self.names},
                hint=f"choose one of: {', '.join(self.names) or '(none installed)'}",
                problems=tuple(p for p in self.problems if p.path == name),
            )
        return found.workflow


def _workflow_of(loaded: Any, attr: str | None) -> tuple[Workflow | None, str | None]:
    """Return (workflow, problem); both None means the entry point carries no workflow."""
    if isinstance(loaded, Workflow):
        return loaded, None
    if isinstance(loaded, types.ModuleType):
        candidate = getattr(loaded, WORKFLOW_ATTRIBUTE, None)
        if candidate is None:
            return None, None
        if isinstance(candidate, Workflow):
            return candidate, None
        return None, f"{loaded.__name__}.{WORKFLOW_ATTRIBUTE} is a {type(candidate).__name__}, not a Workflow"
    if attr is not None and attr.split(".")[-1] == WORKFLOW_ATTRIBUTE:
        return None, f"{attr} is a {type(loaded).__name__}, not a Workflow"
    return None, None


def load_registry(
    entry_points: Iterable[Any] | None = None, *, env: Mapping[str, str] | None = None
) -> WorkflowRegistry:
    """Load every skill entry point on its own and collect the workflows and the problems.

    `env` holds the loader's controls: pass the plugin host's (`host.env`), so that packs obey the
    settings plugins do; without it, the process environment (the host's default too).
    """
    if entry_points is None:
        entry_points = list(pack_entry_points(os.environ if env is None else env, scanned(PACKS.name)))
    found: dict[str, RegisteredWorkflow] = {}
    problems: list[Problem] = []
    skipped: list[str] = []
    seen: set[tuple[str, str]] = set()
    for ep in sorted(entry_points, key=lambda e: e.name):
        if (ep.name, ep.value) in seen:  # the same distribution twice on sys.path
            continue
        seen.add((ep.name, ep.value))
        dist, version = dist_of(ep)
        where = f"entry point {ep.name!r} ({ep.value}) of {dist} {version}"
        try:
            loaded, error = load_one(Candidate(ep.name, ep.value, dist, version, ep))  # isolated, as plugins are
            if error is not None:
                raise error
            # A pack may build its workflow lazily (a module `__getattr__`, so that discovery's
            # import stays cheap): looking `WORKFLOW` up can raise too, so it is inside the `try`.
            with quiet():  # a pack that prints at import must not corrupt a JSON document
                workflow, problem = _workflow_of(loaded, getattr(ep, "attr", None))
        except SwarmError as exc:  # most often WORKFLOW_INVALID, raised while the module builds it
            problems.append(Problem(exc.code, f"{where}: {exc.message}", path=ep.name, hint=exc.hint))
            problems += [attrs.evolve(p, path=ep.name) for p in exc.problems]
            continue
        except (Exception, SystemExit) as exc:
            problems.append(
                Problem(
                    ErrorCode.WORKFLOW_LOAD_FAILED,
                    f"{where} failed to import: {type(exc).__name__}: {exc}",
                    path=ep.name,
                    hint=f"fix or uninstall {dist}",
                )
            )
            continue
        if problem is not None:
            problems.append(Problem(ErrorCode.WORKFLOW_LOAD_FAILED, f"{where}: {problem}", path=ep.name))
            continue
        if workflow is None:
            skipped.append(ep.name)
            continue
        if workflow.name in found:
            first = found[workflow.name]
            problems.append(
                Problem(
                    ErrorCode.WORKFLOW_LOAD_FAILED,
                    f"{where}: workflow {workflow.name!r} is also offered by {first.distribution} "
                    f"({first.entry_point}); keeping that one",
                    path=workflow.name,
                    hint="uninstall one of the two skill packs, or rename one workflow",
                )
            )
            continue
        found[workflow.name] = RegisteredWorkflow(workflow, ep.name, dist, version)
    return WorkflowRegistry(dict(sorted(found.items())), tuple(problems), tuple(skipped))


_REGISTRY: WorkflowRegistry | None = None


def get_registry(env: Mapping[str, str] | None = None) -> WorkflowRegistry:
    """Return the process-wide registry, loading the entry points on first use under `env` (the host's settings)."""
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = load_registry(env=env)
    return _REGISTRY


def set_registry(registry: WorkflowRegistry | None) -> None:
    """Install `registry` as the process-wide one (tests and the testing kit use this)."""
    global _REGISTRY
    _REGISTRY = registry


def reset_registry() -> None:
    """Forget the cached registry so the next use reads the entry points again."""
    set_registry(None)
