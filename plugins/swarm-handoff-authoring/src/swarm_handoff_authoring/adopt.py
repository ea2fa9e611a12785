"""`adopt SKILL`: make an existing skill a hand-off target by writing hand-off metadata into its SKILL.md.

The file is read and replaced under the skill folder's lock, so two runs at once cannot both
write (the second finds the metadata there and changes nothing); the replacement is atomic and the
previous content is kept next to it as `SKILL.md.bak` (or the next free `SKILL.md.bak.N`: a backup
already there is never replaced). Only the skills of a project, a git root or the global folder are
written, and only through folders opened one by one without following a link (`O_NOFOLLOW`), every
later step relative to the skill folder's descriptor: a linked or installed skill belongs to someone
else, and a folder swapped for a link during the run is not written through.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import attrs

from swarm_handoff.api import (
    Problem,
    Scope,
    SkillRecord,
    SwarmError,
    close_names,
    load_skill_resource,
    lock_descriptor,
    quoted,
    record_from_frontmatter,
)
from swarm_handoff_authoring.adopt_place import ADOPT_NOT_FOUND, ADOPT_NOT_OWN_SKILL, ADOPT_SYMLINK, open_skill_folder
from swarm_handoff_authoring.edit import ADOPT_BAD_FRONTMATTER, add_keys, split
from swarm_handoff_authoring.skill_file import (
    ADOPT_NOT_A_FILE,
    ADOPT_NOT_UTF8,
    ADOPT_UNREADABLE,
    BACKUP_SUFFIX,
    MAX_BYTES,
    guard,
    keep_backup,
    read_text,
    replace,
)

__all__ = [
    "ADOPT_NOT_A_FILE",
    "ADOPT_NOT_FOUND",
    "ADOPT_NOT_OWN_SKILL",
    "ADOPT_NOT_UTF8",
    "ADOPT_STILL_INELIGIBLE",
    "ADOPT_SYMLINK",
    "ADOPT_UNREADABLE",
    "ADOPT_WRITE_FAILED",
    "BACKUP_SUFFIX",
    "MAX_BYTES",
    "AdoptReport",
    "adopt",
    "reading",
    "resolve",
]

ADOPT_STILL_INELIGIBLE = "ADOPT_STILL_INELIGIBLE"
ADOPT_WRITE_FAILED = "ADOPT_WRITE_FAILED"  # the system refused a write (full disk, permissions)


@attrs.frozen(kw_only=True)
class AdoptReport:
    """The `adopt` document: what was (or, with --dry-run, would be) written, and where the backup is."""

    kind: ClassVar[str] = "adopt"
    skill: str
    path: str
    form: str
    changed: bool
    dry_run: bool
    already_target: bool = False
    backup: str | None = None
    diff: str = ""

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return attrs.asdict(self)

    def to_text(self) -> str:
        """The diff for a dry run, else one line saying what happened."""
        if self.already_target:
            return f"{self.skill} already accepts hand-offs ({self.path}); nothing written\n"
        if self.dry_run:
            return self.diff or "no change\n"
        return (
            f"adopted {self.skill}: hand-off metadata ({self.form} form) written to {self.path} "
            f"(backup: {self.backup})\n"
        )


def resolve(skill: str, records: Sequence[SkillRecord] = ()) -> Path:
    """The SKILL.md that `skill` names: a path to it or to its folder, else a discovered skill's name."""
    given = Path(skill)
    if os.path.lexists(given):
        return given / "SKILL.md" if given.is_dir() and not given.is_symlink() else given
    for record in records:
        if record.path and skill in (record.name, record.declared_name):
            return Path(record.path)
    close = close_names(skill, (r.name for r in records))
    raise SwarmError(
        ADOPT_NOT_FOUND,
        f"no file and no discovered skill named {quoted(skill)}",
        details={"skill": skill, "did_you_mean": close},
        hint=(f"did you mean {', '.join(close)}? " if close else "")
        + "give the path of a skill folder or its SKILL.md, or a name `swarm-handoff discover --all` lists",
    )


def _diff_name(side: str, path: Path) -> str:
    """`a/PATH` for a relative path (as git and patch -p1 expect), the path itself when absolute."""
    return str(path) if path.is_absolute() else f"{side}/{path}"


@attrs.frozen
class _InMemory:
    """A SKILL.md's text as the core's resource reader takes it: opened as bytes, named by its path."""

    data: bytes
    path: str

    def open(self, mode: str) -> io.BytesIO:
        """The text as a binary stream (the reader asks for "rb")."""
        return io.BytesIO(self.data)

    def __str__(self) -> str:
        return self.path


def reading(text: str, name: str, path: str) -> tuple[SkillRecord, Any]:
    """The core's reading of `text` as a SKILL.md (record and frontmatter), exactly as discovery reads it."""
    front = load_skill_resource(_InMemory(text.encode("utf-8"), path))  # the same delimiter scan and parser
    record = record_from_frontmatter(
        front.data, name=name, scope=Scope.PROJECT, source="adopt", path=path, problems=front.problems
    )
    return record, front.data


def adopt(
    path: Path,
    *,
    form: str = "metadata",
    accepts_from: Sequence[str] = ("*",),
    categories: Sequence[str] = (),
    dry_run: bool = False,
) -> AdoptReport:
    """Write hand-off metadata into one SKILL.md (or show the diff), atomically, keeping a backup."""
    if os.open not in os.supports_dir_fd:  # pragma: no cover - Windows has no descriptor-relative open
        raise SwarmError(ADOPT_NOT_A_FILE, "adopt needs descriptor-relative file access (POSIX)")
    name = Path(os.path.abspath(path)).parent.name

    folder = open_skill_folder(path)
    try:
        lock_descriptor(folder, os.path.dirname(os.path.abspath(path)))  # released when `folder` is closed
        return _adopt_in(folder, path, name, form, accepts_from, categories, dry_run)
    finally:
        os.close(folder)


def _adopt_in(
    folder: int,
    path: Path,
    name: str,
    form: str,
    accepts_from: Sequence[str],
    categories: Sequence[str],
    dry_run: bool,
) -> AdoptReport:
    """The body of `adopt`, holding the skill folder's descriptor (locked)."""
    st = guard(folder, path)
    text = read_text(folder, path)
    before, data = reading(text, name, str(path))

    def report(**outcome: Any) -> AdoptReport:
        return AdoptReport(skill=name, path=str(path), form=form, dry_run=dry_run, **outcome)

    if before.eligible:
        return report(changed=False, already_target=True)
    if data is None:
        first = before.problems[0] if before.problems else Problem(ADOPT_BAD_FRONTMATTER, "unreadable")
        raise SwarmError(
            ADOPT_BAD_FRONTMATTER,
            f"{path}: line {first.line or 1}: {first.message}",
            details={"path": str(path), "line": first.line},
            hint=first.hint or "fix the frontmatter first (swarm-handoff lint PATH)",
            problems=before.problems,
        )
    parts = split(text, str(path))
    new_text = parts.join(add_keys(parts, data, form, list(accepts_from), list(categories), str(path)))
    after, _ = reading(new_text, name, str(path))
    if not after.eligible:
        raise SwarmError(
            ADOPT_STILL_INELIGIBLE,
            f"{path}: the skill would still not accept hand-offs after adopt",
            details={"path": str(path)},
            hint="; ".join(p.message for p in after.problems) or "run swarm-handoff lint on it",
            problems=after.problems,
        )
    diff = "".join(
        difflib.unified_diff(
            text.splitlines(keepends=True),
            new_text.splitlines(keepends=True),
            fromfile=_diff_name("a", path),
            tofile=_diff_name("b", path),
        )
    )
    if dry_run:
        return report(changed=False, diff=diff)
    mode = stat.S_IMODE(st.st_mode)
    try:
        backup = keep_backup(folder, path, text.encode("utf-8"), mode)
    except OSError as exc:
        raise _write_failed(path, exc, "the backup") from None
    try:
        replace(folder, new_text.encode("utf-8"), mode)
    except OSError as exc:
        with contextlib.suppress(OSError):  # SKILL.md is unchanged: a backup of no change would mislead
            os.unlink(backup.name, dir_fd=folder)
        raise _write_failed(path, exc, "the new SKILL.md") from None
    return report(changed=True, backup=str(backup), diff=diff)


def _write_failed(path: Path, exc: OSError, what: str) -> SwarmError:
    """ADOPT_WRITE_FAILED naming the file the system refused; SKILL.md is left as it was."""
    culprit = path.parent / exc.filename if isinstance(exc.filename, str) else path
    if isinstance(exc.filename, str) and exc.filename.endswith(".tmp"):
        culprit = path  # the temporary stands for SKILL.md itself
    return SwarmError(
        ADOPT_WRITE_FAILED,
        f"{culprit}: cannot write {what}: {exc.strerror or exc}; {path} is unchanged and nothing else was left",
        details={"path": str(path), "file": str(culprit), "errno": exc.errno},
        hint="free some space or fix the folder's permissions, then run adopt again",
    )
