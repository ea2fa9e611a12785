"""`skills link` / `skills unlink`: show installed packs' skills to agents that only read folders.

Some agents never run `swarm-handoff discover`; they read `.claude/skills/<name>/SKILL.md` and
nothing else. `link` puts each installed pack skill there: a symlink to the pack's skill folder
when its SKILL.md is a real file on disk, else (zip or wheel resources, or a file system that
refuses links) a copy. Everything it creates is recorded in a manifest beside the folders
(`.swarm-handoff-links.json`, written atomically), and that manifest is the only thing `unlink`
acts on.

Safety rules, because these folders sit next to the user's own skills:

* a folder (or link, or file) that the manifest does not record is never replaced or removed;
* a recorded entry is replaced or removed only while it still is what was created: a link still
  pointing at the same target, a copy whose files all still have the recorded hashes. A copy the
  user edited is kept and reported.
"""

from __future__ import annotations

import enum
import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from swarm_handoff.errors import Problem, Severity, SwarmError
from swarm_handoff.linking_report import LinkEntry, SkillsLinkReport

MANIFEST_NAME = ".swarm-handoff-links.json"
MANIFEST_VERSION = 1

# Stable problem codes (module constants, like packs.py's).
LINK_EXISTS = "LINK_EXISTS"  # a folder of that name exists and swarm-handoff did not create it
LINK_MODIFIED = "LINK_MODIFIED"  # what swarm-handoff created was changed since; left alone
LINK_UNKNOWN_SKILL = "LINK_UNKNOWN_SKILL"  # no installed pack provides that skill
LINK_NOT_RECORDED = "LINK_NOT_RECORDED"  # unlink: the manifest does not record that name
LINK_NO_SKILL_FILE = "LINK_NO_SKILL_FILE"  # the pack gives a metadata mapping, no SKILL.md to show
LINK_BAD_NAME = "LINK_BAD_NAME"  # the skill's name cannot be a folder name
LINK_FAILED = "LINK_FAILED"  # the file system refused (permissions, disk full)
LINK_MANIFEST_INVALID = "LINK_MANIFEST_INVALID"

_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_IGNORED = ("__pycache__",)


class LinkScope(str, enum.Enum):
    """Where the folders go: the project's `.claude/skills` or the user's."""

    PROJECT = "project"
    GLOBAL = "global"

    def __str__(self) -> str:
        return self.value


def skills_dir(scope: LinkScope | str, cwd: Path | str | None = None, env: Mapping[str, str] | None = None) -> Path:
    """The folder agents read for `scope`: `{cwd}/.claude/skills`, or the user config folder's `skills`."""
    from swarm_handoff.discovery import config_dir

    if LinkScope(scope) is LinkScope.GLOBAL:
        return config_dir(env) / "skills"
    return Path(cwd or os.getcwd()).resolve() / ".claude" / "skills"


@attrs.frozen
class PackSkill:
    """One installed pack skill as linking sees it: where its SKILL.md and folder are."""

    name: str
    distribution: str
    version: str
    entry_point: str
    skill_md: Any = None  # the SKILL.md resource (path or Traversable); None for a metadata mapping
    folder: Any = None  # the folder to show (path or Traversable) when it has one
    real_folder: Path | None = None  # set when a symlink is possible: the folder on disk


def installed_skills() -> tuple[list[PackSkill], list[Problem]]:
    """Every pack skill the allow/block lists admit, with the problems of packs that did not load."""
    from swarm_handoff.packs import PACK_LOAD_FAILED, _dist_of, _real_path, entry_points, skill_resource

    skills: list[PackSkill] = []
    problems: list[Problem] = []
    for ep in entry_points():
        distribution, version = _dist_of(ep)
        try:
            obj = ep.load()
        except (Exception, SystemExit) as exc:
            message = f"entry point {ep.name!r} ({distribution} {version}) failed to load: {type(exc).__name__}: {exc}"
            problems.append(Problem(PACK_LOAD_FAILED, message, hint=f"fix or uninstall {distribution}"))
            continue
        found = skill_resource(obj)
        if found is None:
            continue  # a workflow-only entry point has no skill to show
        base = {"name": ep.name, "distribution": distribution, "version": version, "entry_point": ep.value}
        kind, value = found
        if kind != "file":
            skills.append(PackSkill(**base))
            continue
        real = _real_path(value)
        folder: Any = None
        real_folder = None
        if real is not None and os.path.basename(real) == "SKILL.md":
            real_folder = Path(real).resolve().parent
            folder = real_folder
        elif real is None and os.path.basename(str(getattr(value, "name", ""))) == "SKILL.md":
            folder = getattr(value, "parent", None)  # zipfile.Path has one; other Traversables may not
        skills.append(PackSkill(**base, skill_md=value, folder=folder, real_folder=real_folder))
    return skills, problems


# -- the manifest ---------------------------------------------------------------------------------


def read_manifest(folder: Path) -> dict[str, dict[str, Any]]:
    """The entries recorded in `folder`'s manifest; a manifest that cannot be read stops the command."""
    path = folder / MANIFEST_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise _manifest_error(path, f"cannot be read: {exc}") from None
    entries = data.get("entries") if isinstance(data, dict) else None
    if not isinstance(entries, dict) or not all(isinstance(e, dict) for e in entries.values()):
        raise _manifest_error(path, "is not a swarm-handoff links manifest")
    return entries


def _manifest_error(path: Path, why: str) -> SwarmError:
    problem = Problem(LINK_MANIFEST_INVALID, f"the links manifest {why}", path=str(path))
    # Guessing would risk removing a user's folder, so nothing is touched until it is fixed.
    return SwarmError(
        LINK_MANIFEST_INVALID,
        f"{path} {why}",
        hint="restore it, or delete it (swarm-handoff then treats every folder there as the user's)",
        problems=(problem,),
    )


def write_manifest(folder: Path, entries: Mapping[str, Mapping[str, Any]]) -> None:
    """Record `entries` atomically; an empty record removes the manifest, leaving no trace."""
    from swarm_handoff.cache import atomic_write

    path = folder / MANIFEST_NAME
    if not entries:
        if path.exists():
            path.unlink()
        return
    document = {"version": MANIFEST_VERSION, "entries": {k: dict(entries[k]) for k in sorted(entries)}}
    atomic_write(path, (json.dumps(document, indent=2, sort_keys=True) + "\n").encode("utf-8"))


# -- what a folder holds --------------------------------------------------------------------------


def _walk(root: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Yield (relative posix path, entry) for every file under a path or Traversable, sorted."""
    for child in sorted(root.iterdir(), key=lambda c: c.name):
        if child.name in _IGNORED or child.name.endswith(".pyc"):
            continue
        rel = f"{prefix}{child.name}"
        if child.is_dir():
            yield from _walk(child, rel + "/")
        elif child.is_file():
            yield rel, child


def _source_files(skill: PackSkill) -> dict[str, bytes]:
    """The files a copy of `skill` holds: its folder's files, or only SKILL.md when it has no folder."""
    if skill.folder is not None:
        return {rel: entry.read_bytes() for rel, entry in _walk(skill.folder)}
    return {"SKILL.md": skill.skill_md.read_bytes() if hasattr(skill.skill_md, "read_bytes") else b""}


def _hashes(files: Mapping[str, bytes]) -> dict[str, str]:
    return {rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()}


def _disk_hashes(folder: Path) -> dict[str, str] | None:
    """Hash every file of a copy on disk (nothing ignored: a file the user added is a change)."""
    if folder.is_symlink() or not folder.is_dir():
        return None
    found: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() or not (path.is_file() or path.is_dir()):
            return None
        if path.is_file():
            found[path.relative_to(folder).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def still_created(dest: Path, entry: Mapping[str, Any]) -> bool:
    """Is `dest` still exactly what swarm-handoff created (same link target, or unedited copy)?"""
    if entry.get("kind") == "link":
        return dest.is_symlink() and os.readlink(dest) == entry.get("target")
    if entry.get("kind") == "copy":
        return _disk_hashes(dest) == entry.get("files")
    return False


# -- link -----------------------------------------------------------------------------------------


def link_skills(
    folder: Path, names: Sequence[str] = (), *, scope: LinkScope | str = LinkScope.PROJECT, copy: bool = False
) -> SkillsLinkReport:
    """Show installed pack skills as `folder/<name>/`; `names` narrows the set (default: all)."""
    skills, problems = installed_skills()
    by_name = {s.name: s for s in skills}
    manifest = read_manifest(folder)
    entries: list[LinkEntry] = []
    wanted = list(dict.fromkeys(names)) if names else sorted(by_name)
    for name in wanted:
        if name not in by_name:
            entries.append(
                _skip(
                    name,
                    folder,
                    LINK_UNKNOWN_SKILL,
                    f"no installed skill pack provides {name!r}",
                    "see `swarm-handoff discover --scope installed` for the names",
                )
            )
            continue
        entries.append(_link_one(folder, by_name[name], manifest, copy=copy))
        write_manifest(folder, manifest)  # after each one: an interrupted run still knows what it made
    return SkillsLinkReport("link", str(LinkScope(scope)), str(folder), tuple(entries), tuple(problems))


def _skip(name: str, folder: Path, code: str, message: str, hint: str, **extra: Any) -> LinkEntry:
    path = str(folder / name) if _SAFE_NAME.match(name) else None
    problem = Problem(code, message, path=path, hint=hint, severity=Severity.WARNING)
    return LinkEntry(name=name, action="skipped", path=path or "", problem=problem, **extra)


def _link_one(folder: Path, skill: PackSkill, manifest: dict[str, dict[str, Any]], *, copy: bool) -> LinkEntry:
    """Apply the rules to one skill; the manifest is updated in place."""
    name, dest = skill.name, folder / skill.name
    origin: dict[str, Any] = {"distribution": skill.distribution, "version": skill.version}
    if not _SAFE_NAME.match(name):
        return _skip(
            name,
            folder,
            LINK_BAD_NAME,
            f"{name!r} cannot be a folder name",
            "rename the entry point in the pack",
            **origin,
        )
    if skill.skill_md is None:
        return _skip(
            name,
            folder,
            LINK_NO_SKILL_FILE,
            "the pack gives metadata only, no SKILL.md to show",
            "ship a SKILL.md and point SKILL_MD at it",
            **origin,
        )
    recorded = manifest.get(name)
    exists = os.path.lexists(dest)
    if recorded is None and exists:
        return _skip(
            name,
            folder,
            LINK_EXISTS,
            f"{dest} exists and swarm-handoff did not create it; left alone",
            "rename or remove that folder to link the pack's skill, or use the other --scope",
            **origin,
        )
    if recorded is not None and exists and not still_created(dest, recorded):
        return _skip(
            name,
            folder,
            LINK_MODIFIED,
            f"{dest} changed since swarm-handoff created it; left alone",
            "keep your changes, or remove the folder and link again",
            **origin,
        )
    want_link = skill.real_folder is not None and not copy
    files = None if want_link else _source_files(skill)
    if recorded is not None and exists:
        if want_link and recorded.get("kind") == "link" and recorded.get("target") == str(skill.real_folder):
            return LinkEntry(name, "linked", str(dest), target=str(skill.real_folder), status="unchanged", **origin)
        if files is not None and recorded.get("kind") == "copy" and recorded.get("files") == _hashes(files):
            return LinkEntry(name, "copied", str(dest), status="unchanged", **origin)
        _remove(dest, recorded)  # ours and unedited, but the pack moved or changed: replace it
    status = "updated" if recorded is not None and exists else "created"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        note = None
        if want_link:
            try:
                os.symlink(str(skill.real_folder), dest, target_is_directory=True)
                manifest[name] = {"kind": "link", "target": str(skill.real_folder), **origin}
                return LinkEntry(name, "linked", str(dest), target=str(skill.real_folder), status=status, **origin)
            except (OSError, NotImplementedError) as exc:  # e.g. Windows without the privilege
                note = f"symlink failed ({exc}); copied instead"
                files = _source_files(skill)
        assert files is not None
        _write_copy(dest, files)
    except OSError as exc:
        manifest.pop(name, None)
        return _skip(
            name,
            folder,
            LINK_FAILED,
            f"could not create {dest}: {exc}",
            "check the folder's permissions and free space",
            **origin,
        )
    manifest[name] = {"kind": "copy", "files": _hashes(files), **origin}
    return LinkEntry(name, "copied", str(dest), status=status, note=note, **origin)


def _write_copy(dest: Path, files: Mapping[str, bytes]) -> None:
    """Build the copy in a temporary folder, then rename it into place (which fails if dest exists)."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent))
    try:
        for rel, data in files.items():
            target = tmp / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        os.chmod(tmp, 0o755)  # mkdtemp's 0700 would hide the skill from other users' agents
        os.rename(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _remove(dest: Path, entry: Mapping[str, Any]) -> None:
    if entry.get("kind") == "link":
        dest.unlink()
    else:
        shutil.rmtree(dest)


# -- unlink ---------------------------------------------------------------------------------------


def unlink_skills(
    folder: Path, names: Sequence[str] = (), *, scope: LinkScope | str = LinkScope.PROJECT
) -> SkillsLinkReport:
    """Remove what `link` recorded in `folder` (default: every entry) while it is still unchanged."""
    manifest = read_manifest(folder)
    entries: list[LinkEntry] = []
    for name in list(dict.fromkeys(names)) if names else sorted(manifest):
        recorded = manifest.get(name)
        if recorded is None:
            entries.append(
                _skip(
                    name,
                    folder,
                    LINK_NOT_RECORDED,
                    f"swarm-handoff did not create {name!r} here",
                    "only folders `skills link` made are removed; remove others yourself",
                )
            )
            continue
        dest = folder / name
        origin: dict[str, Any] = {
            "distribution": recorded.get("distribution", ""),
            "version": recorded.get("version", ""),
        }
        action = "unlinked" if recorded.get("kind") == "link" else "removed"
        if not os.path.lexists(dest):
            manifest.pop(name)
            entries.append(LinkEntry(name, action, str(dest), status="already-gone", **origin))
        elif still_created(dest, recorded):
            try:
                _remove(dest, recorded)
            except OSError as exc:
                entries.append(
                    _skip(
                        name,
                        folder,
                        LINK_FAILED,
                        f"could not remove {dest}: {exc}",
                        "check the folder's permissions",
                        **origin,
                    )
                )
                continue
            manifest.pop(name)
            entries.append(
                LinkEntry(name, action, str(dest), target=recorded.get("target"), status="removed", **origin)
            )
        else:
            # Changed by someone else: it is theirs now. Keep it, and stop tracking it.
            manifest.pop(name)
            entries.append(
                _skip(
                    name,
                    folder,
                    LINK_MODIFIED,
                    f"{dest} changed since swarm-handoff created it; kept",
                    "it is no longer tracked; remove it yourself if you do not need it",
                    **origin,
                )
            )
        write_manifest(folder, manifest)
    return SkillsLinkReport("unlink", str(LinkScope(scope)), str(folder), tuple(entries), ())
