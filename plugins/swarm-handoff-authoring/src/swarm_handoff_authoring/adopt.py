"""`adopt SKILL`: make an existing skill a hand-off target by writing hand-off metadata into its SKILL.md.

The file is read and replaced under the skill folder's lock, so two runs at once cannot both
write (the second finds the metadata there and changes nothing); the replacement is atomic and the
previous content is kept next to it as `SKILL.md.bak`. Only a regular file directly inside a folder
that is not itself a link is written: a linked or installed skill belongs to someone else.
"""

from __future__ import annotations

import difflib
import os
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import attrs

from swarm_handoff.api import (
    LoadError,
    Problem,
    Scope,
    SkillRecord,
    SwarmError,
    atomic_write,
    close_names,
    load_skill_md,
    locked,
    quoted,
    read_regular,
    record_from_frontmatter,
)
from swarm_handoff_authoring.edit import ADOPT_BAD_FRONTMATTER, add_keys, split

ADOPT_NOT_FOUND = "ADOPT_NOT_FOUND"
ADOPT_SYMLINK = "ADOPT_SYMLINK"
ADOPT_NOT_A_FILE = "ADOPT_NOT_A_FILE"
ADOPT_UNREADABLE = "ADOPT_UNREADABLE"
ADOPT_NOT_UTF8 = "ADOPT_NOT_UTF8"
ADOPT_STILL_INELIGIBLE = "ADOPT_STILL_INELIGIBLE"
MAX_BYTES = 1024 * 1024  # a SKILL.md larger than this is not a skill file a person edits
BACKUP_SUFFIX = ".bak"


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


def _guard(path: Path) -> os.stat_result:
    """Refuse anything but a regular file inside a real folder (no link to follow out of it)."""
    where = {"path": str(path)}
    if os.path.islink(path.parent) or os.path.islink(path):
        raise SwarmError(
            ADOPT_SYMLINK,
            f"{path}: a symbolic link (the file or its skill folder); adopt writes only files inside the skill folder",
            details=where,
            hint="adopt the skill where it really lives (the link's target), or copy it into your own skills folder",
        )
    try:
        st = os.lstat(path)
    except OSError as exc:
        raise SwarmError(ADOPT_NOT_FOUND, f"{path}: {exc.strerror}", details=where, hint="check the path") from None
    if not stat.S_ISREG(st.st_mode):
        raise SwarmError(ADOPT_NOT_A_FILE, f"{path}: not a regular file", details=where, hint="point at a SKILL.md")
    return st


def _read(path: Path) -> str:
    try:
        raw = read_regular(path, limit=MAX_BYTES, follow=False)
    except LoadError as exc:
        raise SwarmError(
            ADOPT_UNREADABLE,
            f"{path}: {exc.problem.message}",
            details={"path": str(path), "limit_bytes": MAX_BYTES},
            hint=exc.problem.hint or "check the file",
            problems=(exc.problem,),
        ) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SwarmError(
            ADOPT_NOT_UTF8,
            f"{path}: line {line}: not UTF-8 text (byte {exc.start})",
            details={"path": str(path), "line": line},
            hint="save the file as UTF-8 first",
        ) from None


def _diff_name(side: str, path: Path) -> str:
    """`a/PATH` for a relative path (as git and patch -p1 expect), the path itself when absolute."""
    return str(path) if path.is_absolute() else f"{side}/{path}"


def reading(text: str, name: str, path: str) -> tuple[SkillRecord, Any]:
    """The core's reading of `text` as a SKILL.md (record and frontmatter), exactly as discovery reads it."""
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "SKILL.md"
        copy.write_bytes(text.encode("utf-8"))
        front = load_skill_md(str(copy))
    problems = tuple(attrs.evolve(p, path=path) for p in front.problems)
    record = record_from_frontmatter(
        front.data, name=name, scope=Scope.PROJECT, source="adopt", path=path, problems=problems
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
    name = path.parent.resolve().name
    with locked(path.parent):
        _guard(path)
        text = _read(path)
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
        backup = Path(str(path) + BACKUP_SUFFIX)
        atomic_write(backup, text.encode("utf-8"))
        atomic_write(path, new_text.encode("utf-8"))
        return report(changed=True, backup=str(backup), diff=diff)
