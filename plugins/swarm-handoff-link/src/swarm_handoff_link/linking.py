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

import contextlib
import enum
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from swarm_handoff.api import Problem, Severity, SwarmError, config_dir, did_you_mean, quoted, working_directory
from swarm_handoff_link.manifest import (
    LINK_MANIFEST_ENTRY_INVALID,
    LINK_MANIFEST_INVALID,
    MANIFEST_NAME,
    SAFE_NAME,
    file_hashes,
    locked,
    read_manifest,
    still_created,
    write_manifest,
)
from swarm_handoff_link.packs import PackSkill, installed_skills, source_files
from swarm_handoff_link.report import LinkEntry, SkillsLinkReport

__all__ = [  # the manifest helpers are re-exported: callers need only this module
    "LINK_MANIFEST_ENTRY_INVALID",
    "LINK_MANIFEST_INVALID",
    "MANIFEST_NAME",
    "LinkScope",
    "PackSkill",
    "installed_skills",
    "link_skills",
    "read_manifest",
    "skills_dir",
    "still_created",
    "unlink_skills",
    "write_manifest",
]


# Stable problem codes (module constants, as the core keeps its own).
LINK_EXISTS = "LINK_EXISTS"  # a folder of that name exists and swarm-handoff did not create it
LINK_MODIFIED = "LINK_MODIFIED"  # what swarm-handoff created was changed since; left alone
LINK_UNKNOWN_SKILL = "LINK_UNKNOWN_SKILL"  # no installed pack provides that skill
LINK_NOT_RECORDED = "LINK_NOT_RECORDED"  # unlink: the manifest does not record that name
LINK_NO_SKILL_FILE = "LINK_NO_SKILL_FILE"  # the pack gives a metadata mapping, no SKILL.md to show
LINK_BAD_NAME = "LINK_BAD_NAME"  # the skill's name cannot be a folder name
LINK_STALE = "LINK_STALE"  # recorded here, but its pack is no longer installed
LINK_FAILED = "LINK_FAILED"  # the file system refused (permissions, disk full)
LINK_FOLDER_OUTSIDE = "LINK_FOLDER_OUTSIDE"  # the project's skills folder is a link out of the project

_SAFE_NAME = SAFE_NAME  # the one rule for names, shared with the manifest's entry check


class LinkScope(str, enum.Enum):
    """Where the folders go: the project's `.claude/skills` or the user's."""

    PROJECT = "project"
    GLOBAL = "global"

    def __str__(self) -> str:
        return self.value


def skills_dir(scope: LinkScope | str, cwd: Path | str | None = None, env: Mapping[str, str] | None = None) -> Path:
    """The folder agents read for `scope`: `{cwd}/.claude/skills`, or the user config folder's `skills`."""
    if LinkScope(scope) is LinkScope.GLOBAL:
        return config_dir(env) / "skills"
    return Path(cwd or working_directory()).resolve() / ".claude" / "skills"


# -- link -----------------------------------------------------------------------------------------


def link_skills(
    folder: Path, names: Sequence[str] = (), *, scope: LinkScope | str = LinkScope.PROJECT, copy: bool = False
) -> SkillsLinkReport:
    """Show installed pack skills as `folder/<name>/`; `names` narrows the set (default: all)."""
    _check_folder(folder, scope)
    skills, problems = installed_skills()
    available = {s.name for s in skills}
    if available & set(names or available):
        folder.mkdir(parents=True, exist_ok=True)  # something will be linked: lock the folder it goes in
    with locked(folder):
        return _link_all(folder, names, skills, problems, scope=scope, copy=copy)


def _check_folder(folder: Path, scope: LinkScope | str) -> None:
    """Refuse a project skills folder that leads out of the project through a symbolic link.

    A cloned repository can make `.claude` or `.claude/skills` a link to any folder of the user's;
    following it, `link` would write links and a manifest there and `unlink` would remove from it.
    The user's own folder (`--scope global`) may be a link wherever they chose.
    """
    if LinkScope(scope) is not LinkScope.PROJECT:
        return
    project = os.path.realpath(folder.parent.parent)
    real = os.path.realpath(folder)
    if real == project or real.startswith(project.rstrip(os.sep) + os.sep):
        return
    message = f"{folder} is a symbolic link out of the project (to {real}); nothing was touched"
    hint = "replace the link with a folder, or use --scope global for your own skills folder"
    problem = Problem(LINK_FOLDER_OUTSIDE, message, path=str(folder), hint=hint)
    raise SwarmError(LINK_FOLDER_OUTSIDE, message, hint=hint, problems=(problem,))


def _link_all(
    folder: Path,
    names: Sequence[str],
    skills: list[PackSkill],
    problems: list[Problem],
    *,
    scope: LinkScope | str,
    copy: bool,
) -> SkillsLinkReport:
    by_name = {s.name: s for s in skills}
    manifest = read_manifest(folder)
    problems = [*problems, *getattr(manifest, "problems", ())]
    entries: list[LinkEntry] = []
    wanted = list(dict.fromkeys(names)) if names else sorted(by_name)
    for name in wanted:
        if name not in by_name:
            entries.append(
                _skip(
                    name,
                    folder,
                    LINK_UNKNOWN_SKILL,
                    f"no installed skill pack provides {quoted(name)}",
                    did_you_mean(name, by_name) or "see `swarm-handoff discover --scope installed` for the names",
                )
            )
            continue
        entries.append(_link_one(folder, by_name[name], manifest, copy=copy))
    if not names:
        problems.extend(_stale(folder, manifest, by_name))
    return SkillsLinkReport("link", str(LinkScope(scope)), str(folder), tuple(entries), tuple(problems))


def _stale(folder: Path, manifest: Mapping[str, Any], installed: Mapping[str, PackSkill]) -> list[Problem]:
    """Entries link made for packs no longer installed: say so, since only unlink removes them."""
    return [
        Problem(
            LINK_STALE,
            f"{quoted(name)} was linked here but no installed pack provides it now"
            " (uninstalled, failed to load, or hidden by SWARM_HANDOFF_LOAD_PACKS / SWARM_HANDOFF_DISABLE_PACKS)",
            path=str(folder / name),
            hint=f"swarm-handoff skills unlink {name}",
            severity=Severity.WARNING,
        )
        for name in sorted(manifest)
        if name not in installed
    ]


UNKNOWN_NAME_CODES = frozenset({LINK_UNKNOWN_SKILL, LINK_NOT_RECORDED})  # a name given that nothing matched


def unknown_names(report: SkillsLinkReport) -> list[str]:
    """The names the user gave that no pack provides (link) or that link never made here (unlink)."""
    return [e.name for e in report.entries if e.problem is not None and e.problem.code in UNKNOWN_NAME_CODES]


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
            f"{quoted(name)} cannot be a folder name",
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
    try:
        files = None if want_link else source_files(skill)
        if recorded is not None and exists:
            if want_link and recorded.get("kind") == "link" and recorded.get("target") == str(skill.real_folder):
                return LinkEntry(name, "linked", str(dest), target=str(skill.real_folder), status="unchanged", **origin)
            if files is not None and recorded.get("kind") == "copy" and recorded.get("files") == file_hashes(files):
                return LinkEntry(name, "copied", str(dest), status="unchanged", **origin)
            _remove(dest, recorded)  # ours and unedited, but the pack moved or changed: replace it
        status = "updated" if recorded is not None and exists else "created"
        folder.mkdir(parents=True, exist_ok=True)
        note = None
        if want_link:
            # Recorded before it exists: a crash in between leaves a record of nothing (harmless),
            # never an unrecorded link that would then count as the user's forever.
            _record(folder, manifest, name, {"kind": "link", "target": str(skill.real_folder), **origin})
            try:
                os.symlink(str(skill.real_folder), dest, target_is_directory=True)
                return LinkEntry(name, "linked", str(dest), target=str(skill.real_folder), status=status, **origin)
            except (OSError, NotImplementedError) as exc:  # e.g. Windows without the privilege
                if os.path.lexists(dest):
                    raise  # someone created it meanwhile: theirs, not ours
                note = f"symlink failed ({exc}); copied instead"
                files = source_files(skill)
        assert files is not None
        _record(folder, manifest, name, {"kind": "copy", "files": file_hashes(files), **origin})
        _write_copy(dest, files)
    except OSError as exc:
        if recorded is not None and os.path.lexists(dest) and still_created(dest, recorded):
            manifest[name] = recorded  # the old one is still there and still ours
        else:
            manifest.pop(name, None)
        with contextlib.suppress(OSError):
            write_manifest(folder, manifest)
        return _skip(
            name,
            folder,
            LINK_FAILED,
            f"could not create {dest}: {exc}",
            "check the folder's permissions and free space",
            **origin,
        )
    return LinkEntry(name, "copied", str(dest), status=status, note=note, **origin)


def _record(folder: Path, manifest: dict[str, dict[str, Any]], name: str, entry: dict[str, Any]) -> None:
    manifest[name] = entry
    write_manifest(folder, manifest)


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
    _check_folder(folder, scope)
    with locked(folder):
        return _unlink_all(folder, names, scope=scope)


def _unlink_all(folder: Path, names: Sequence[str], *, scope: LinkScope | str) -> SkillsLinkReport:
    # Only entries whose names are plain folder names come back (see `read_manifest`): `dest`
    # below is always a direct child of `folder`, whatever the file says.
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
                    f"swarm-handoff did not create {quoted(name)} here",
                    did_you_mean(name, manifest)
                    or "only folders `skills link` made are removed; remove others yourself",
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
        _save_after_unlink(folder, manifest)
    problems = tuple(getattr(manifest, "problems", ()))
    return SkillsLinkReport("unlink", str(LinkScope(scope)), str(folder), tuple(entries), problems)


def _save_after_unlink(folder: Path, manifest: Mapping[str, Mapping[str, Any]]) -> None:
    """A manifest that cannot be written is a command failure, reported like any other error."""
    try:
        write_manifest(folder, manifest)
    except OSError as exc:
        path = str(folder / MANIFEST_NAME)
        problem = Problem(LINK_FAILED, f"could not update the links manifest: {exc}", path=path)
        raise SwarmError(
            LINK_FAILED, f"could not update {path}: {exc}", hint="check the folder's permissions", problems=(problem,)
        ) from None
