"""The one walker for folders of skills: the repository root, who may be trusted, and each skill folder.

Every source that reads folders of skills (`.claude/skills`, `.agents/skills`, nested folders,
plugin installs, extra roots) says *where* (a list of `Place`s) and hands them to this module, so
one rule holds for all of them:

* **The repository root** is the nearest folder at or above the working directory holding a `.git`
  entry (a folder, or the file of a worktree or submodule), never above `GIT_CEILING_DIRECTORIES`.
  Inside a submodule (its `.git` file points into `<super>/.git/modules/`) the superproject's root
  is used. No `git` process is started.
* **Trust** (as git does since CVE-2022-24765): a repository whose `.git` is owned by another user
  (neither root nor you); a skills folder owned by another user or writable by others (`/tmp`); a
  link on the way to it owned by another user; inside a read folder, a skill folder or SKILL.md (or
  a link to one) of another user or writable by others: none is read unless
  `SWARM_HANDOFF_TRUSTED_FOLDERS` names it. Its skills become records with the problem
  `SKILLS_OWNER_UNTRUSTED`: listed by `discover --all` and `why`, never parsed, never a target.
  Each folder is opened once and judged by `fstat` of that descriptor; its entries are listed and
  opened relative to it, so a path swapped after the check is not what gets read. A refused folder
  is not marked as read: the same folder reached through a trusted place is read there.
* **Each entry** of a skills folder costs only itself: a looping, dangling or forbidden link, a
  folder without SKILL.md, a SKILL.md that is not a regular file (or a kernel pseudo-file) is that
  skill's coded problem; a file in the folder (a README) and hidden folders are not skills; a folder
  reached twice is read once, at its most local place; past `MAX_ENTRIES` entries the rest of the
  folder is skipped with `SKILLS_DIR_TOO_MANY`.

Every folder listed and every SKILL.md path is `watch`ed first, so the cache layer notices a change.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

import attrs

from swarm_handoff.cache import read_skills, watch
from swarm_handoff.errors import ErrorCode, Problem, Severity
from swarm_handoff.records import Scope, SkillRecord
from swarm_handoff.textfile import PSEUDO_FILE, pseudo_file

ENV_TRUSTED = "SWARM_HANDOFF_TRUSTED_FOLDERS"
SKILLS_OWNER_UNTRUSTED = ErrorCode.SKILLS_OWNER_UNTRUSTED.value
SKILLS_DIR_UNREADABLE = "SKILLS_DIR_UNREADABLE"
SKILLS_DIR_TOO_MANY = ErrorCode.SKILLS_DIR_TOO_MANY.value
# A folder of skills holds tens, a large monorepo thousands; past this many entries it is not a skills folder.
MAX_ENTRIES = 100_000
MAX_GIT_FILE = 4096  # a `.git` file is one line: `gitdir: PATH`


def current_uid() -> int | None:
    """The effective user id every ownership decision compares with (None where there are no owners).

    The one place the walker asks, so a test can stand in for another user.
    """
    geteuid = getattr(os, "geteuid", None)
    return geteuid() if geteuid is not None else None


def _sudo_uid(uid: int, env: Mapping[str, str]) -> int | None:
    """Under `sudo` (root with SUDO_UID set), the user who ran it also owns what is theirs, as git allows."""
    raw = env.get("SUDO_UID", "")
    return int(raw) if uid == 0 and raw.isdigit() else None


def trusted_entries(env: Mapping[str, str]) -> tuple[str, ...]:
    """The folders `SWARM_HANDOFF_TRUSTED_FOLDERS` lists (os.pathsep-separated), resolved; `*` trusts all.

    An entry that is a link trusts both the link itself and the folder it leads to.

    `~` is the context's HOME (not this process's); a relative entry is ignored (see `trust_setting_problems`).
    """
    out: list[str] = []
    home = env.get("HOME", "")
    for part in env.get(ENV_TRUSTED, "").split(os.pathsep):
        part = part.strip()
        if part == "*":
            out.append("*")
            continue
        if not part or "\x00" in part:
            continue
        if part == "~" or part.startswith(("~" + os.sep, "~/")):
            if not home:
                continue
            part = home + part[1:]
        if os.path.isabs(part):  # the folder it names, and where it is itself when it is a link
            out.extend(dict.fromkeys((os.path.realpath(part), _location(part, link=True))))
    return tuple(out)


def trust_setting_problems(env: Mapping[str, str]) -> tuple[Problem, ...]:
    """A warning for each SWARM_HANDOFF_TRUSTED_FOLDERS entry that is ignored (relative, or `~` without HOME)."""
    out: list[Problem] = []
    home = env.get("HOME", "")
    for part in env.get(ENV_TRUSTED, "").split(os.pathsep):
        part = part.strip()
        if not part or part == "*" or "\x00" in part:
            continue
        tilde = part == "~" or part.startswith(("~" + os.sep, "~/"))
        if os.path.isabs(part) or (tilde and home):
            continue
        out.append(
            Problem(
                SKILLS_OWNER_UNTRUSTED,
                f"{ENV_TRUSTED} entry {part!r} is not an absolute folder; it was ignored",
                hint=f"list absolute folders in {ENV_TRUSTED} (or ~/... with HOME set), separated by '{os.pathsep}'",
                severity=Severity.WARNING,
            )
        )
    return tuple(out)


def _location(path: str, *, link: bool) -> str:
    """Where `path` is for matching trusted folders: a link's own place (its folder resolved), else its target."""
    if link:
        parent, name = os.path.split(os.path.abspath(path))
        return os.path.join(os.path.realpath(parent), name)
    return os.path.realpath(path)


def _listed(path: str, env: Mapping[str, str], *, link: bool = False) -> bool:
    """Whether the user listed `path` or a folder above it as trusted."""
    entries = trusted_entries(env)
    if "*" in entries:
        return True
    real = _location(path, link=link)
    return any(real == entry or real.startswith(entry.rstrip(os.sep) + os.sep) for entry in entries)


def _mine(uid: int, env: Mapping[str, str]) -> set[int]:
    """The owners whose files you trust: root, you, and under sudo the user who ran it."""
    sudo = _sudo_uid(uid, env)
    return {0, uid} | ({sudo} if sudo is not None else set())


@functools.lru_cache(maxsize=64)
def _private_group(gid: int, owners: frozenset[int]) -> bool:
    """Whether group `gid` is one trusted owner's own group (named as the user, no other members)."""
    try:
        import grp
        import pwd
    except ImportError:  # pragma: no cover - no groups on this system
        return False
    try:
        group = grp.getgrgid(gid)
    except KeyError:
        return False
    for uid in owners:
        try:
            user = pwd.getpwuid(uid).pw_name
        except KeyError:
            continue
        if group.gr_name == user and set(group.gr_mem) <= {user}:
            return True
    return False


def writable_by_others(st: os.stat_result, owners: set[int]) -> bool:
    """Whether users other than `owners` may change it: writable by others, or by a group not the owner's own."""
    if st.st_mode & stat.S_IWOTH:
        return True
    return bool(st.st_mode & stat.S_IWGRP) and not _private_group(st.st_gid, frozenset(owners))


def judge(st: os.stat_result, path: str, env: Mapping[str, str], what: str, *, link: bool = False) -> Problem | None:
    """SKILLS_OWNER_UNTRUSTED when what `st` describes belongs to another user or others may write it; else None.

    A link (`link=True`) is judged by its owner only (a link's own mode means nothing) and matched
    in SWARM_HANDOFF_TRUSTED_FOLDERS by its own place; anything else by owner and mode, at its target.
    """
    uid = current_uid()
    if uid is None:
        return None
    owners = _mine(uid, env)
    if st.st_uid not in owners:
        reason = f"{what} is owned by user {st.st_uid}, not by you (user {uid})"
    elif not link and writable_by_others(st, owners):
        reason = f"{what} can be changed by other users (mode {stat.filemode(st.st_mode)})"
    else:
        return None
    if _listed(path, env, link=link):
        return None
    return Problem(
        SKILLS_OWNER_UNTRUSTED,
        f"{reason}; its skills were not read",
        path=path,
        hint=(
            f"if you trust that folder, add it to {ENV_TRUSTED} (folders separated by "
            f"'{os.pathsep}'; a folder trusts everything under it); see docs/where-skills-live.md#trust"
        ),
        severity=Severity.WARNING,
    )


def owner_problem(
    path: str | os.PathLike[str], env: Mapping[str, str], what: str, *, follow: bool = True
) -> Problem | None:
    """SKILLS_OWNER_UNTRUSTED when `path` belongs to another user (not root, not you) and is not listed; else None."""
    uid = current_uid()
    text = os.fspath(path)
    if uid is None:
        return None
    try:
        st = os.stat(text) if follow else os.lstat(text)
    except (OSError, ValueError):
        return None  # absent or unreadable: nothing is read from it, so nothing to trust
    if st.st_uid in _mine(uid, env) or _listed(text, env, link=not follow):
        return None
    return Problem(
        SKILLS_OWNER_UNTRUSTED,
        f"{what} is owned by user {st.st_uid}, not by you (user {uid}); its skills were not read",
        path=text,
        hint=(
            f"if you trust that user's folder, add it to {ENV_TRUSTED} (folders separated by "
            f"'{os.pathsep}'; a folder trusts everything under it); see docs/where-skills-live.md#trust"
        ),
        severity=Severity.WARNING,
    )


MAX_LINKS = 40  # as the kernel's own limit on links followed while resolving one path


def link_problem(path: str | os.PathLike[str], env: Mapping[str, str]) -> Problem | None:
    """SKILLS_OWNER_UNTRUSTED for the first link on the way to `path` that another user owns; else None.

    Each link met while resolving the path (and the links its targets lead through) is judged by
    its owner: another user's link could be pointed anywhere, whoever owns what it points at.
    """
    if current_uid() is None:
        return None
    text = os.path.abspath(os.fspath(path))
    anchor = os.path.splitdrive(text)[0] + os.sep
    pending = list(reversed([p for p in text[len(anchor) :].split(os.sep) if p]))
    current = anchor
    hops = 0
    while pending:
        part = pending.pop()
        if part == ".":
            continue
        if part == "..":
            current = os.path.dirname(current) or anchor
            continue
        candidate = os.path.join(current, part)
        try:
            st = os.lstat(candidate)
        except (OSError, ValueError):
            return None  # absent or unreadable: opening it fails too
        if not stat.S_ISLNK(st.st_mode):
            current = candidate
            continue
        hops += 1
        problem = judge(st, candidate, env, f"the link {candidate}", link=True)
        if problem is not None or hops > MAX_LINKS:
            return problem
        target = os.readlink(candidate)
        if os.path.isabs(target):
            current = anchor
        pending.extend(reversed([p for p in target.split(os.sep) if p]))
    return None


@attrs.frozen
class Repository:
    """The walk from the working directory up to the repository root, and whether that root is trusted."""

    chain: tuple[Path, ...]  # the working directory, then each folder above it up to the root (only cwd without one)
    root: Path | None  # the repository root (the superproject's inside a submodule), None outside one
    note: str
    untrusted: Problem | None = None  # the root's `.git` belongs to another user: nothing above cwd is read

    def folders(self) -> list[tuple[Path, Problem | None]]:
        """Each folder of the walk, with the problem a folder above the cwd inherits from an untrusted root."""
        return [(folder, self.untrusted if index else None) for index, folder in enumerate(self.chain)]


def _ceilings(env: Mapping[str, str]) -> set[str]:
    return {os.path.realpath(p) for p in env.get("GIT_CEILING_DIRECTORIES", "").split(os.pathsep) if p}


def _superproject(folder: Path, marker: Path) -> Path | None:
    """The superproject of a submodule whose `.git` file points into `<super>/.git/modules/`, else None."""
    try:
        from swarm_handoff.textfile import LoadError, read_regular

        raw = read_regular(marker, limit=MAX_GIT_FILE)
    except (LoadError, OSError):
        return None
    text = raw.decode("utf-8", errors="replace").strip()
    if not text.startswith("gitdir:"):
        return None
    gitdir = Path(text[len("gitdir:") :].strip())
    if not gitdir.is_absolute():
        gitdir = folder / gitdir
    parts = Path(os.path.normpath(gitdir)).parts
    for index in range(len(parts) - 1, 0, -1):
        if parts[index] == "modules" and parts[index - 1] == ".git":
            sup = Path(*parts[: index - 1])
            if sup in folder.parents:
                return sup
    return None


def find_repository(cwd: Path, env: Mapping[str, str]) -> Repository:
    """Walk up from `cwd` to the repository root; every `.git` looked at is watched.

    Without a repository, only `cwd` is in the chain. A root whose `.git` belongs to another user
    (and is not listed in SWARM_HANDOFF_TRUSTED_FOLDERS) comes with its problem in `untrusted`:
    the sources then list the skills of every folder above `cwd` without reading them.
    """
    stop = _ceilings(env)
    chain: list[Path] = []
    for folder in (cwd, *cwd.parents):
        if chain and os.path.realpath(folder) in stop:
            break
        chain.append(folder)
        marker = folder / ".git"
        st = watch(marker)
        if st is None and not os.path.islink(marker):
            continue
        root, note = folder, "repository root found"
        if st is not None and stat.S_ISREG(st.st_mode):
            sup = _superproject(folder, marker)
            if sup is not None:
                root, note = sup, "inside a submodule: using the superproject's root"
                chain.extend(p for p in folder.parents if p == sup or sup in p.parents)
                watch(sup / ".git")
        problem = owner_problem(root / ".git", env, f"the repository {root} (its .git)", follow=False)
        if problem is None and root != folder:
            problem = owner_problem(marker, env, f"the repository {folder} (its .git)", follow=False)
        if problem is not None:
            return Repository(tuple(chain), root, "the repository belongs to another user", problem)
        return Repository(tuple(chain), root, note)
    return Repository((cwd,), None, "not in a git repository")


@attrs.frozen
class Place:
    """One folder of skill folders a source hands the walker, with the scope its skills get.

    `vouched`: the user named this folder themself (swarm-handoff-roots.json), so its owner is not
    checked. `untrusted`: the folder is reached only through a repository of another user.
    `prefix`: put before each skill's folder name (`plugin:` for Claude Code plugins).
    """

    folder: Path
    scope: Scope
    vouched: bool = False
    untrusted: Problem | None = None
    prefix: str = ""


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
    env: Mapping[str, str]
    source: str
    limit: int
    seen: set[tuple[int, int]] = attrs.field(factory=set)  # (device, inode) of each folder read
    records: list[SkillRecord | None] = attrs.field(factory=list)
    problems: list[Problem] = attrs.field(factory=list)
    scanned: int = 0
    pending: list[tuple[int, tuple[str, str, Scope]]] = attrs.field(factory=list)
    checked: dict[str, tuple[int, int]] = attrs.field(factory=dict)  # SKILL.md path -> (device, inode) judged

    def record(self, name: str, scope: Scope, path: str, problem: Problem, *, counted: bool = True) -> None:
        from swarm_handoff.metadata import record_from_frontmatter

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
            untrusted = link_problem(place.folder, self.env)
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
                untrusted = judge(opened, os.fspath(place.folder), self.env, f"the skills folder {place.folder}")
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
        from swarm_handoff.skillmd import stat_problem

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
        if not entry.is_dir():  # follows a link: a looping or forbidden one raises (see `place`)
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
            problem = judge(
                os.stat(here, dir_fd=at, follow_symlinks=False), folder, self.env, f"the link {folder}", link=True
            )
            if problem is not None:
                self.refused(name, place, path, problem)
                return
        sub = os.open(here, _DIR_FLAGS | (0 if is_link else _NOFOLLOW), dir_fd=at)
        try:
            opened = os.fstat(sub)
            if trust:
                problem = judge(opened, folder, self.env, f"the skill folder {folder}")
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
            from swarm_handoff.skillmd import stat_problem

            # A folder without SKILL.md is not a skill; kept visible (info) for --all.
            missing = attrs.evolve(stat_problem(path, exc), severity=Severity.INFO)
            self.record(name, place.scope, path, missing, counted=False)
            return
        problem: Problem | None
        if stat.S_ISLNK(st.st_mode):
            problem = judge(st, path, self.env, f"the link {path}", link=True) if trust else None
            if problem is not None:
                self.refused(name, place, path, problem)
                return
            try:
                st = os.stat(here, dir_fd=sub)
            except OSError as exc:  # dangling, looping or forbidden
                self.broken(os.path.basename(os.path.dirname(path)), place, path, exc)
                return
        if not stat.S_ISREG(st.st_mode) or pseudo_file(path, st):
            from swarm_handoff.skillmd import irregular_file, not_a_file

            regular = stat.S_ISREG(st.st_mode)
            odd = not_a_file(path, PSEUDO_FILE) if regular else irregular_file(path, st.st_mode)
            self.record(name, place.scope, path, odd)
            return
        problem = judge(st, path, self.env, f"the file {path}") if trust else None
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
    state = _Walk(env=env, source=source, limit=limit)
    state.problems.extend(trust_setting_problems(env))
    for place in places:
        state.place(place)
    state.flush(jobs, min_parallel)
    records = tuple(r for r in state.records if r is not None)
    return Walked(records, tuple(state.problems), state.scanned)


# The names plugins import (`swarm_handoff.api`): what they mean there, not what they are here.
SkillsPlace = Place
walk_skills = walk
