"""`ResourceProvider`: how a step reaches reference material by name, never by guessing paths.

Five kinds of access, one method family each:

1. shared conventions: `.claude/conventions/NAME.md` in the project wins over the packaged
   default, and the returned `Resource` says which one was used;
2. file I/O confined to the session directory (a path that escapes it is refused);
3. a pack's packaged files through `importlib.resources`, so they load from a wheel or a zip;
4. other registered `Workflow` objects, by name;
5. step data: JSON records that steps of one session hand to each other (the state a sub-agent
   saves before it stops to ask the user a question, and reads back when it is started again).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from importlib import resources as importlib_resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import attrs

from swarm_handoff import jsonio, safefs
from swarm_handoff.errors import ErrorCode, SwarmError
from swarm_handoff.plugins import get_host
from swarm_handoff.workflow.registry import get_registry
from swarm_handoff.yamlio import LoadError, read_text

if TYPE_CHECKING:
    from swarm_handoff.workflow.model import Workflow
    from swarm_handoff.yamlio import LoadError

DEFAULT_CONVENTIONS_PACKAGE = "swarm_handoff.workflow.conventions"
PROJECT_CONVENTIONS_DIR = Path(".claude") / "conventions"
SESSION_DIR = Path(".swarm-handoff") / "session"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*\Z")


@attrs.frozen
class Resource:
    """A piece of reference text and where it came from (`project` or `package`)."""

    name: str
    text: str
    source: str
    origin: str

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form embedded in step documents."""
        return {"name": self.name, "source": self.source, "origin": self.origin, "text": self.text}


@runtime_checkable
class ResourceProvider(Protocol):
    """Everything a step may read or write besides its parameters and state."""

    def convention(self, name: str) -> Resource:
        """Return the convention `name`, preferring the project's copy over the packaged one."""

    def read_file(self, relative: str) -> str:
        """Read a text file inside the session directory."""

    def write_file(self, relative: str, text: str) -> Path:
        """Write a text file inside the session directory and return its path."""

    def package_resource(self, package: str, path: str) -> Resource:
        """Read a file shipped inside the import package `package`."""

    def workflow(self, name: str) -> Workflow:
        """Return another registered workflow (to name its steps or embed its commands)."""

    def step_data(self, step_id: str) -> Mapping[str, Any]:
        """Return what `save_step_data` stored for `step_id` in this session ({} when nothing)."""

    def save_step_data(self, step_id: str, data: Mapping[str, Any]) -> Path:
        """Store JSON-ready data for `step_id` so a later step (or a restarted agent) can read it."""


def _not_found(message: str, **details: Any) -> SwarmError:
    return SwarmError(ErrorCode.RESOURCE_NOT_FOUND, message, details=details)


def _invalid(exc: LoadError) -> SwarmError:
    problem = exc.problem
    return SwarmError(
        ErrorCode.RESOURCE_INVALID,
        f"{problem.path}: {problem.message}",
        details={"path": problem.path, "code": str(problem.code), "line": problem.line},
        hint=problem.hint or "fix or remove the file",
        problems=(problem,),
    )


def _read(path: Path) -> str:
    """Read a session or project file as bounded UTF-8 text: a FIFO, a device or a huge file is refused."""
    try:
        return read_text(path)
    except LoadError as exc:
        raise _invalid(exc) from None


def _write(path: Path, text: str) -> None:
    """Replace a session file at once (another step or agent may be reading it), never through a symlink."""
    safefs.atomic_write(path, text.encode("utf-8"))


def _check_name(kind: str, name: str) -> None:
    if not _NAME_RE.match(name) or ".." in name:
        raise _not_found(f"{kind} name {name!r} must be a plain name (letters, digits, '.', '_', '-')", name=name)


@attrs.define
class SessionResources:
    """The standard provider: a project folder, a session folder inside it, and the registry."""

    project: Path = attrs.field(converter=Path)
    session: Path | None = None
    conventions_package: str = DEFAULT_CONVENTIONS_PACKAGE
    find_workflow: Callable[[str], Workflow] | None = None

    @property
    def session_dir(self) -> Path:
        """The folder session files live in (`.swarm-handoff/session` in the project by default)."""
        return Path(self.session) if self.session is not None else self.project / SESSION_DIR

    # 1. conventions ---------------------------------------------------------------------------

    def convention(self, name: str) -> Resource:
        """Return the convention `name`, preferring the project's copy over the packaged one."""
        _check_name("convention", name)
        local = self.project / PROJECT_CONVENTIONS_DIR / f"{name}.md"
        if local.is_file():
            return Resource(f"convention:{name}", _read(local), "project", str(local))
        try:
            packaged = self.package_resource(self.conventions_package, f"{name}.md")
        except SwarmError:
            raise _not_found(
                f"no convention {name!r} in {local} or in {self.conventions_package}",
                name=name,
                searched=[str(local), f"{self.conventions_package}/{name}.md"],
            ) from None
        return attrs.evolve(packaged, name=f"convention:{name}")

    # 2. session files -------------------------------------------------------------------------

    def _inside(self, relative: str) -> Path:
        base = self.session_dir.resolve()
        candidate = Path(relative)
        target = (base / candidate).resolve()
        if candidate.is_absolute() or not target.is_relative_to(base):
            raise SwarmError(
                ErrorCode.RESOURCE_OUTSIDE_SESSION,
                f"{relative!r} is outside the session directory {base}",
                details={"path": relative, "session": str(base)},
                hint="use a path relative to the session directory, without '..'",
            )
        return target

    def read_file(self, relative: str) -> str:
        """Read a text file inside the session directory."""
        path = self._inside(relative)
        if not path.exists():
            raise _not_found(f"no session file {relative!r} in {self.session_dir}", path=relative)
        return _read(path)  # a folder, FIFO or device is RESOURCE_INVALID, never read (or waited on)

    def write_file(self, relative: str, text: str) -> Path:
        """Write a text file inside the session directory and return its path."""
        path = self._inside(relative)
        _write(path, text)
        return path

    # 3. packaged resources --------------------------------------------------------------------

    def package_resource(self, package: str, path: str) -> Resource:
        """Read a file shipped inside `package` (works when the package is a wheel or a zip)."""
        parts = [p for p in path.split("/") if p]
        if not parts or any(p in ("..", ".") for p in parts):
            raise _not_found(f"resource path {path!r} must stay inside the package", package=package, path=path)
        try:
            node = importlib_resources.files(package)
            for part in parts:
                node = node.joinpath(part)
            text = node.read_text(encoding="utf-8")
        except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError, IsADirectoryError, TypeError) as exc:
            raise _not_found(
                f"no resource {path!r} in package {package!r} ({type(exc).__name__})", package=package, path=path
            ) from None
        return Resource(f"resource:{path}", text, "package", f"{package}/{path}")

    # 4. workflows -----------------------------------------------------------------------------

    def workflow(self, name: str) -> Workflow:
        """Return another registered workflow by name (by default from the registry, under the host's settings)."""
        if self.find_workflow is not None:
            return self.find_workflow(name)
        return get_registry(get_host().env).get(name)

    # 5. step data -----------------------------------------------------------------------------

    def _step_path(self, step_id: str) -> Path:
        _check_name("step", step_id)
        return self._inside(f"steps/{step_id}.json")

    def step_data(self, step_id: str) -> Mapping[str, Any]:
        """Return what `save_step_data` stored for `step_id` in this session ({} when nothing)."""
        path = self._step_path(step_id)
        if not path.exists():
            return {}

        try:
            data = jsonio.loads(_read(path), path=str(path))
        except LoadError as exc:
            raise _invalid(exc) from None
        return data if isinstance(data, dict) else {"value": data}

    def save_step_data(self, step_id: str, data: Mapping[str, Any]) -> Path:
        """Store JSON-ready data for `step_id` so a later step (or a restarted agent) can read it."""
        path = self._step_path(step_id)
        _write(path, json.dumps(dict(data), indent=2, ensure_ascii=False) + "\n")
        return path


def embed(provider: ResourceProvider, workflow: Workflow, ref: str) -> Resource:
    """Resolve one `StepDef.embed` reference (`convention:NAME` or `resource:PATH`)."""
    kind, _, target = ref.partition(":")
    if kind == "convention":
        return provider.convention(target)
    if kind == "resource" and workflow.package is not None:
        return provider.package_resource(workflow.package, target)
    raise _not_found(f"workflow {workflow.name!r}: cannot embed {ref!r}", ref=ref)
