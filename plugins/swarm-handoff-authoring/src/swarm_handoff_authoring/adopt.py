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
import errno
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
    quoted,
    record_from_frontmatter,
)
from swarm_handoff_authoring.edit import ADOPT_BAD_FRONTMATTER, add_keys, split

ADOPT_NOT_FOUND = "ADOPT_NOT_FOUND"
ADOPT_NOT_OWN_SKILL = "ADOPT_NOT_OWN_SKILL"
ADOPT_SYMLINK = "ADOPT_SYMLINK"
ADOPT_NOT_A_FILE = "ADOPT_NOT_A_FILE"
ADOPT_UNREADABLE = "ADOPT_UNREADABLE"
ADOPT_NOT_UTF8 = "ADOPT_NOT_UTF8"
ADOPT_STILL_INELIGIBLE = "ADOPT_STILL_INELIGIBLE"
ADOPT_WRITE_FAILED = "ADOPT_WRITE_FAILED"  # the system refused a write (full disk, permissions)
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


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_MAX_BACKUPS = 1000  # SKILL.md.bak, .bak.1, ... .bak.999: a folder holding more is a mistake


def _scope_chain(path: Path) -> tuple[Path, tuple[str, ...]]:
    """The folder a skill scope hangs from, and the names from it down to the skill folder.

    The global scope: `$CLAUDE_CONFIG_DIR/skills/NAME/SKILL.md` (or `~/.claude/...`); the config
    folder is the user's own choice, so its own links (dotfiles) are followed, once, to its real
    path, and only the names below it are opened without following. A project or git root:
    `ROOT/.claude/skills/NAME/SKILL.md`, unless ROOT lies in an installed copy (`installed_under`):
    a pip-installed pack, a Claude Code plugin's cached copy, or a registry entry elsewhere is
    someone else's skill.
    """
    from swarm_handoff.api import config_dir

    absolute = Path(os.path.abspath(path))  # never resolved: a link on the way must be seen, not followed
    skill, skills = absolute.parent, absolute.parent.parent
    config = Path(os.path.abspath(config_dir()))
    config_real = Path(os.path.realpath(config))
    if absolute.name == "SKILL.md" and skills in (config / "skills", config_real / "skills"):
        return config_real, ("skills", skill.name)
    installed = installed_under(skill, config_real)
    if absolute.name == "SKILL.md" and skills.name == "skills" and skills.parent.name == ".claude" and not installed:
        return skills.parent.parent, (".claude", "skills", skill.name)
    where = f" (inside {installed})" if installed else ""
    raise SwarmError(
        ADOPT_NOT_OWN_SKILL,
        f"{path}: not a skill of a project, git root or your global skills folder{where}; adopt writes only those",
        details={"path": str(path)},
        hint="an installed pack or plugin's skill belongs to its publisher: copy the skill folder into "
        ".claude/skills/ of your project (or ~/.claude/skills/) and adopt the copy",
    )


_INSTALL_FOLDERS = frozenset({"site-packages", "dist-packages"})


def installed_under(folder: Path, config_real: Path) -> str | None:
    """The installed location `folder` lies in (a site-packages, the interpreter's prefix, the plugin cache), or None.

    Compared by real path, so a link into one of them is caught too.
    """
    import sys

    real = Path(os.path.realpath(folder))
    for part in (folder, real):
        hit = next((p for p in part.parents if p.name in _INSTALL_FOLDERS), None)
        if hit is not None:
            return str(hit)
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, str(config_real / "plugins")}
    for prefix in sorted(prefixes):
        root = Path(os.path.realpath(prefix))
        if real == root or root in real.parents:
            return str(prefix)
    return None


def _open_chain(path: Path) -> int:
    """Open the skill folder one name at a time, O_NOFOLLOW|O_DIRECTORY each: a link anywhere stops it.

    The descriptor returned is the folder that was checked; everything after goes through it, so a
    folder swapped for a link while adopt runs changes nothing it writes.
    """
    anchor, names = _scope_chain(path)
    try:
        fd = os.open(anchor, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise SwarmError(ADOPT_NOT_FOUND, f"{anchor}: {exc.strerror}", details={"path": str(path)}) from None
    where = anchor
    for name in names:
        where = where / name
        try:
            inner = os.open(name, _DIR_FLAGS, dir_fd=fd)
        except OSError as exc:
            os.close(fd)
            raise _chain_error(path, where, name, exc) from None
        os.close(fd)
        fd = inner
    return fd


def _chain_error(path: Path, where: Path, name: str, exc: OSError) -> SwarmError:
    details = {"path": str(path), "link": str(where)}
    if os.path.islink(where) or exc.errno == errno.ELOOP:
        return SwarmError(
            ADOPT_SYMLINK,
            f"{where}: a symbolic link on the way to {path}; adopt writes only files inside the skill folder",
            details=details,
            hint="adopt the skill where it really lives (the link's target), or copy it into your own skills folder",
        )
    return SwarmError(ADOPT_NOT_FOUND, f"{where}: {exc.strerror}", details=details, hint="check the path")


def _guard(folder: int, path: Path) -> os.stat_result:
    """Refuse anything but a regular file inside the skill folder (no link to follow out of it)."""
    where = {"path": str(path)}
    try:
        st = os.stat("SKILL.md", dir_fd=folder, follow_symlinks=False)
    except OSError as exc:
        raise SwarmError(ADOPT_NOT_FOUND, f"{path}: {exc.strerror}", details=where, hint="check the path") from None
    if stat.S_ISLNK(st.st_mode):
        raise SwarmError(
            ADOPT_SYMLINK,
            f"{path}: a symbolic link (the file or its skill folder); adopt writes only files inside the skill folder",
            details=where,
            hint="adopt the skill where it really lives (the link's target), or copy it into your own skills folder",
        )
    if not stat.S_ISREG(st.st_mode):
        raise SwarmError(ADOPT_NOT_A_FILE, f"{path}: not a regular file", details=where, hint="point at a SKILL.md")
    return st


def _read(folder: int, path: Path) -> str:
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open("SKILL.md", flags, dir_fd=folder)
    except OSError as exc:
        raise _unreadable(path, f"cannot read: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise SwarmError(ADOPT_NOT_A_FILE, f"{path}: not a regular file", details={"path": str(path)})
        raw = handle.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        raise _unreadable(path, f"larger than {MAX_BYTES} bytes")
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


def _unreadable(path: Path, why: str) -> SwarmError:
    return SwarmError(
        ADOPT_UNREADABLE,
        f"{path}: {why}",
        details={"path": str(path), "limit_bytes": MAX_BYTES},
        hint="check the file",
    )


def _create(folder: int, name: str, data: bytes, mode: int) -> bool:
    """Create `name` in `folder` holding `data`; False when the name is taken (by anything, a link included)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(name, flags, 0o600, dir_fd=folder)
    except FileExistsError:
        return False
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, name) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
            os.fchmod(handle.fileno(), mode)
    except BaseException as exc:  # a full disk half-way: the half-made file is ours, and goes
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=folder)
        if isinstance(exc, OSError):
            raise OSError(exc.errno, exc.strerror, name) from None
        raise
    return True


def _keep_backup(folder: int, path: Path, data: bytes, mode: int) -> Path:
    """Keep the previous text as `SKILL.md.bak`, or the next free `.bak.N`: an existing backup is never replaced."""
    for n in range(_MAX_BACKUPS):
        name = "SKILL.md" + BACKUP_SUFFIX + (f".{n}" if n else "")
        if _create(folder, name, data, mode):
            return path.with_name(name)
    raise SwarmError(
        ADOPT_UNREADABLE,
        f"{path}: no free backup name after {_MAX_BACKUPS} tries ({path.name}.bak.N)",
        details={"path": str(path)},
        hint="remove the old SKILL.md.bak* files you no longer need",
    )


def _replace(folder: int, data: bytes, mode: int) -> None:
    """Replace SKILL.md in `folder` at once: a temporary in the same folder, then a rename inside it."""
    from swarm_handoff.api import temp_name

    tmp = temp_name("SKILL.md")  # the core's pattern: a leftover of a killed run is recognised and cleaned
    if not _create(folder, tmp, data, mode):  # pragma: no cover - 48 random bits
        raise FileExistsError(errno.EEXIST, "temporary name taken", tmp)
    try:
        os.replace(tmp, "SKILL.md", src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        os.unlink(tmp, dir_fd=folder)
        raise


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
    from swarm_handoff.api import lock_descriptor

    folder = _open_chain(path)
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
    st = _guard(folder, path)
    text = _read(folder, path)
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
        backup = _keep_backup(folder, path, text.encode("utf-8"), mode)
    except OSError as exc:
        raise _write_failed(path, exc, "the backup") from None
    try:
        _replace(folder, new_text.encode("utf-8"), mode)
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
