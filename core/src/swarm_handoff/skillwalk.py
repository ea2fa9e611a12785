"""The one walker for folders of skills: each place a source names, and each skill folder in it.

Every source that reads folders of skills (`.claude/skills`, `.agents/skills`, nested folders,
plugin installs, extra roots) says *where* (a list of `Place`s; the repository root comes from
`reporoot.find_repository`) and hands them to this module, so one rule holds for all of them:

* **Trust** (`skilltrust`): a place, skill folder, SKILL.md or link refused there has its skills
  become records with the problem `SKILLS_OWNER_UNTRUSTED`: listed by `discover --all` and `why`,
  never parsed, never a target. Each folder is opened once and judged by `fstat` of that
  descriptor; its entries are listed and opened relative to it, so a path swapped after the check
  is not what gets read. A refused folder is not marked as read: the same folder reached through a
  trusted place is read there.
* **Each entry** of a skills folder costs only itself: a looping, dangling or forbidden link, a
  folder without SKILL.md, a SKILL.md that is not a regular file (or a kernel pseudo-file) is that
  skill's coded problem; a file in the folder (a README) and hidden folders are not skills; a folder
  reached twice is read once, at its most local place; past `MAX_ENTRIES` entries the rest of the
  folder is skipped with `SKILLS_DIR_TOO_MANY`.

Every folder listed and every SKILL.md path is `watch`ed first, so the cache layer notices a change.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import attrs

from swarm_handoff.cache import read_skills, watch
from swarm_handoff.errors import ErrorCode, Problem, Severity
from swarm_handoff.metadata import record_from_frontmatter
from swarm_handoff.records import Scope, SkillRecord
from swarm_handoff.skillmd import irregular_file, not_a_file, stat_problem
from swarm_handoff.skilltrust import Trust, trust_setting_problems
from swarm_handoff.textfile import PSEUDO_FILE, pseudo_file

SKILLS_DIR_UNREADABLE = "SKILLS_DIR_UNREADABLE"
SKILLS_DIR_TOO_MANY = ErrorCode.SKILLS_DIR_TOO_MANY.value
# A folder of skills holds tens, a large monorepo thousands; past this many entries it is not a skills folder.
MAX_ENTRIES = 100_000


@attrs.frozen
class Place:
    """One folder of skill folders a source hands the walker, with the scope its skills get.

    `vouched`: the user named this folder themself (swarm-handoff-roots.json), so its owner is not
    checked. `untrusted`: the folder is reached only through a repository of another user.
    `prefix`: put before each skill's folder name (`plugin:` for Claude Code plugins).
    `name_check`: a problem for a folder name the source cannot use; that entry is then skipped
    before anything in it is read or counted, the problem said once among the walk's problems.
    """

    folder: Path
    scope: Scope
    vouched: bool = False
    untrusted: Problem | None = None
    prefix: str = ""
    name_check: Callable[[str], Problem | None] | None = None


@attrs.frozen
class Walked:
    """What the walk found: records in the order of the places, the folders' own problems, skills counted."""

    records: tuple[SkillRecord, ...]
    problems: tuple[Problem, ...]
    scanned: int


_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
# Where the system cannot list or open relative to a descriptor, the walk goes by path (same rules).
_BY_DESCRIPTOR = os.open in os.supports_dir_fd and os.stat in os.supports_dir_fd and os.scandir in os.supports_fd


@attrs.define
class _Walk:
    trust: Trust  # who you are, asked once for the whole walk
    source: str
    limit: int
    seen: set[tuple[int, int]] = attrs.field(factory=set)  # (device, inode) of each folder read
    records: list[SkillRecord | None] = attrs.field(factory=list)
    problems: list[Problem] = attrs.field(factory=list)
    scanned: int = 0
    pending: list[tuple[int, tuple[str, str, Scope]]] = attrs.field(factory=list)
    checked: dict[str, tuple[int, int]] = attrs.field(factory=dict)  # SKILL.md path -> (device, inode) judged

    def record(self, name: str, scope: Scope, path: str, problem: Problem, *, counted: bool = True) -> None:
        if counted:
            self.scanned += 1
        self.records.append(
            record_from_frontmatter(None, name=name, scope=scope, source=self.source, path=path, problems=(problem,))
        )

    def said(self, problem: Problem) -> None:
        if problem not in self.problems:  # one untrusted root or folder: said once
            self.problems.append(problem)

    def place(self, place: Place) -> None:
        st = watch(place.folder)  # its mtime changes when a skill folder is added or removed
        if st is None or not stat.S_ISDIR(st.st_mode):
            return  # an absent place is normal and says nothing
        untrusted = place.untrusted
        if untrusted is None and not place.vouched:
            untrusted = self.trust.links(place.folder)
        try:
            # Opened once: the owner and mode judged, the entries listed and each skill opened all
            # through this descriptor, so a link or folder swapped meanwhile changes nothing read.
            fd = os.open(place.folder, _DIR_FLAGS)
        except (FileNotFoundError, NotADirectoryError):
            return
        except OSError as exc:
            self.unreadable(place.folder, exc)
            return
        try:
            opened = os.fstat(fd)
            key = (opened.st_dev, opened.st_ino)
            if key in self.seen:
                return  # read already, at a more local place
            if untrusted is None and not place.vouched:
                untrusted = self.trust.judge(opened, os.fspath(place.folder), f"the skills folder {place.folder}")
            try:
                entries = sorted(os.scandir(fd if _BY_DESCRIPTOR else place.folder), key=lambda e: e.name)
            except OSError as exc:
                self.unreadable(place.folder, exc)
                return
            if untrusted is None:
                self.seen.add(key)  # only a folder trusted and read hides its later places
            entries = [e for e in entries if not e.name.startswith(".")]
            if len(entries) > self.limit:
                self.problems.append(too_many(place.folder, self.limit))
                entries = entries[: self.limit]
            if untrusted is not None:
                self.said(untrusted)
            for entry in entries:
                path = os.path.join(place.folder, entry.name)
                try:
                    self.entry(entry, place, fd, untrusted)
                except OSError as exc:  # whatever one entry does, it costs that skill and no other
                    self.broken(entry.name, place, path, exc)
        finally:
            os.close(fd)

    def unreadable(self, folder: Path, exc: OSError) -> None:
        self.problems.append(
            Problem(
                SKILLS_DIR_UNREADABLE,
                f"cannot list skills folder: {exc.strerror or exc}",
                path=str(folder),
                hint="check the folder's permissions",
                severity=Severity.WARNING,
            )
        )

    def broken(self, name: str, place: Place, path: str, exc: OSError) -> None:
        watch(path)  # stat fails while it is broken; a fix changes that
        self.record(place.prefix + name, place.scope, path, stat_problem(path, exc))

    def refused(self, name: str, place: Place, path: str, problem: Problem) -> None:
        self.said(problem)
        self.record(name, place.scope, path, attrs.evolve(problem, path=path, severity=Severity.ERROR))

    def entry(self, entry: os.DirEntry[str], place: Place, fd: int, untrusted: Problem | None) -> None:
        folder = os.path.join(place.folder, entry.name)
        at = fd if _BY_DESCRIPTOR else None
        here = entry.name if _BY_DESCRIPTOR else folder
        is_link = entry.is_symlink()
        is_dir = entry.is_dir()  # follows a link: a looping or forbidden one raises (see `place`)
        if (is_dir or is_link) and place.name_check is not None:
            misnamed = place.name_check(entry.name)
            if misnamed is not None:
                self.said(misnamed)
                return
        if not is_dir:
            if is_link:  # a dangling link where a skill folder should be
                try:
                    os.stat(here, dir_fd=at)
                except OSError as exc:
                    self.broken(entry.name, place, folder, exc)
            return
        name = place.prefix + entry.name
        path = folder + os.sep + "SKILL.md"  # join() costs more than the stat at 10,000 skills
        if untrusted is not None:
            if os.path.lexists(path):  # listed, never read: the folder belongs to someone else
                self.record(name, place.scope, path, attrs.evolve(untrusted, path=path, severity=Severity.ERROR))
            return
        trust = not place.vouched
        problem = None
        if is_link and trust:  # a link to a skill folder is followed only if its owner is trusted
            problem = self.trust.judge(
                os.stat(here, dir_fd=at, follow_symlinks=False), folder, f"the link {folder}", link=True
            )
            if problem is not None:
                self.refused(name, place, path, problem)
                return
        sub = os.open(here, _DIR_FLAGS | (0 if is_link else _NOFOLLOW), dir_fd=at)
        try:
            opened = os.fstat(sub)
            if trust:
                problem = self.trust.judge(opened, folder, f"the skill folder {folder}")
                if problem is not None:
                    self.refused(name, place, path, problem)
                    return
            key = (opened.st_dev, opened.st_ino)
            if key in self.seen:
                return
            self.seen.add(key)
            self.skill_md(name, place, sub if _BY_DESCRIPTOR else None, path, trust)
        finally:
            os.close(sub)

    def skill_md(self, name: str, place: Place, sub: int | None, path: str, trust: bool) -> None:
        here = "SKILL.md" if sub is not None else path
        watch(path)  # before reading: an edit while we read makes a stored answer stale, not wrong
        try:
            st = os.stat(here, dir_fd=sub, follow_symlinks=False)
        except FileNotFoundError as exc:
            # A folder without SKILL.md is not a skill; kept visible (info) for --all.
            missing = attrs.evolve(stat_problem(path, exc), severity=Severity.INFO)
            self.record(name, place.scope, path, missing, counted=False)
            return
        problem: Problem | None
        if stat.S_ISLNK(st.st_mode):
            problem = self.trust.judge(st, path, f"the link {path}", link=True) if trust else None
            if problem is not None:
                self.refused(name, place, path, problem)
                return
            try:
                st = os.stat(here, dir_fd=sub)
            except OSError as exc:  # dangling, looping or forbidden
                self.broken(os.path.basename(os.path.dirname(path)), place, path, exc)
                return
        if not stat.S_ISREG(st.st_mode) or pseudo_file(path, st):
            regular = stat.S_ISREG(st.st_mode)
            odd = not_a_file(path, PSEUDO_FILE) if regular else irregular_file(path, st.st_mode)
            self.record(name, place.scope, path, odd)
            return
        problem = self.trust.judge(st, path, f"the file {path}") if trust else None
        if problem is not None:
            self.refused(name, place, path, problem)
            return
        self.checked[path] = (st.st_dev, st.st_ino)
        self.scanned += 1
        self.pending.append((len(self.records), (path, name, place.scope)))
        self.records.append(None)  # `flush` puts the record in its place

    def flush(self, jobs: int | None, min_parallel: int | None) -> None:
        pending, self.pending = self.pending, []
        if not pending:
            return
        files = [f for _, f in pending]
        found = read_skills(files, source=self.source, jobs=jobs, min_parallel=min_parallel, checked=self.checked)
        for (place, _), record in zip(pending, found, strict=True):
            self.records[place] = record


def too_many(folder: Path | str, limit: int) -> Problem:
    """SKILLS_DIR_TOO_MANY: a folder with more entries than the walker reads; the rest are skipped."""
    return Problem(
        SKILLS_DIR_TOO_MANY,
        f"the folder has more than {limit} entries; only the first {limit} (by name) were read",
        path=str(folder),
        hint="a skills folder holds skill folders only; split it, or point at the skills folder itself",
        severity=Severity.WARNING,
    )


def walk(
    places: Iterable[Place],
    *,
    source: str,
    env: Mapping[str, str],
    limit: int = MAX_ENTRIES,
    jobs: int | None = None,
    min_parallel: int | None = None,
) -> Walked:
    """Turn every skill folder of `places` into a record, in order (SKILL.md files read by `read_skills`)."""
    state = _Walk(trust=Trust.of(env), source=source, limit=limit)
    state.problems.extend(trust_setting_problems(env))
    for place in places:
        state.place(place)
    state.flush(jobs, min_parallel)
    records = tuple(r for r in state.records if r is not None)
    return Walked(records, tuple(state.problems), state.scanned)


# The names plugins import (`swarm_handoff.api`): what they mean there, not what they are here.
SkillsPlace = Place
walk_skills = walk
