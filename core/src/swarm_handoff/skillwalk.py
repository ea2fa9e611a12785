"""The one walker for folders of skills: the repository root, who may be trusted, and each skill folder.

Every source that reads folders of skills (`.claude/skills`, `.agents/skills`, nested folders,
plugin installs, extra roots) says *where* (a list of `Place`s) and hands them to this module, so
one rule holds for all of them:

* **The repository root** is the nearest folder at or above the working directory holding a `.git`
  entry (a folder, or the file of a worktree or submodule), never above `GIT_CEILING_DIRECTORIES`.
  Inside a submodule (its `.git` file points into `<super>/.git/modules/`) the superproject's root
  is used. No `git` process is started.
* **Trust** (as git does since CVE-2022-24765): a repository whose `.git` is owned by another user
  (neither root nor you), or a skills folder owned by another user, is not read unless
  `SWARM_HANDOFF_TRUSTED_FOLDERS` names it. Its skills become records with the problem
  `SKILLS_OWNER_UNTRUSTED`: listed by `discover --all` and `why`, never parsed, never a target.
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
    """The folders `SWARM_HANDOFF_TRUSTED_FOLDERS` lists (os.pathsep-separated), resolved; `*` trusts all."""
    out: list[str] = []
    for part in env.get(ENV_TRUSTED, "").split(os.pathsep):
        part = part.strip()
        if part == "*":
            out.append("*")
        elif part and "\x00" not in part:
            out.append(os.path.realpath(os.path.expanduser(part)))
    return tuple(out)


def _listed(path: str, env: Mapping[str, str]) -> bool:
    """Whether the user listed `path` or a folder above it as trusted."""
    entries = trusted_entries(env)
    if "*" in entries:
        return True
    real = os.path.realpath(path)
    return any(real == entry or real.startswith(entry.rstrip(os.sep) + os.sep) for entry in entries)


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
    if st.st_uid in (0, uid) or st.st_uid == _sudo_uid(uid, env) or _listed(text, env):
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


@attrs.define
class _Walk:
    env: Mapping[str, str]
    source: str
    limit: int
    seen: set[str] = attrs.field(factory=set)
    records: list[SkillRecord | None] = attrs.field(factory=list)
    problems: list[Problem] = attrs.field(factory=list)
    scanned: int = 0
    pending: list[tuple[int, tuple[str, str, Scope]]] = attrs.field(factory=list)

    def record(self, name: str, scope: Scope, path: str, problem: Problem, *, counted: bool = True) -> None:
        from swarm_handoff.metadata import record_from_frontmatter

        if counted:
            self.scanned += 1
        self.records.append(
            record_from_frontmatter(None, name=name, scope=scope, source=self.source, path=path, problems=(problem,))
        )

    def place(self, place: Place) -> None:
        real_root = os.path.realpath(place.folder)
        if real_root in self.seen:
            return  # read already, at a more local place
        self.seen.add(real_root)
        st = watch(place.folder)  # its mtime changes when a skill folder is added or removed
        if st is None or not stat.S_ISDIR(st.st_mode):
            return  # an absent place is normal and says nothing
        untrusted = place.untrusted
        if untrusted is None and not place.vouched:
            untrusted = owner_problem(place.folder, self.env, f"the skills folder {place.folder}")
        try:
            entries = sorted(os.scandir(place.folder), key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            return
        except OSError as exc:
            self.problems.append(
                Problem(
                    SKILLS_DIR_UNREADABLE,
                    f"cannot list skills folder: {exc.strerror or exc}",
                    path=str(place.folder),
                    hint="check the folder's permissions",
                    severity=Severity.WARNING,
                )
            )
            return
        entries = [e for e in entries if not e.name.startswith(".")]
        if len(entries) > self.limit:
            self.problems.append(too_many(place.folder, self.limit))
            entries = entries[: self.limit]
        if untrusted is not None and untrusted not in self.problems:  # one untrusted root: said once
            self.problems.append(untrusted)
        for entry in entries:
            try:
                self.entry(entry, place, real_root, untrusted)
            except OSError as exc:  # whatever one entry does, it costs that skill and no other
                self.broken(entry.name, place, entry.path, exc)

    def broken(self, name: str, place: Place, path: str, exc: OSError) -> None:
        from swarm_handoff.skillmd import stat_problem

        watch(path)  # stat fails while it is broken; a fix changes that
        self.record(place.prefix + name, place.scope, path, stat_problem(path, exc))

    def entry(self, entry: os.DirEntry[str], place: Place, real_root: str, untrusted: Problem | None) -> None:
        is_link = entry.is_symlink()
        if not entry.is_dir():  # follows a link: a looping or forbidden one raises (see `place`)
            if is_link:  # a dangling link where a skill folder should be
                try:
                    os.stat(entry.path)
                except OSError as exc:
                    self.broken(entry.name, place, entry.path, exc)
            return
        name = place.prefix + entry.name
        path = entry.path + os.sep + "SKILL.md"  # join() costs more than the stat at 10,000 skills
        if untrusted is not None:
            if os.path.lexists(path):  # listed, never read: the folder belongs to someone else
                self.record(name, place.scope, path, attrs.evolve(untrusted, path=path, severity=Severity.ERROR))
            return
        real = os.path.realpath(entry.path) if is_link else os.path.join(real_root, entry.name)
        if real in self.seen:
            return
        self.seen.add(real)
        st = watch(path)  # before reading: an edit while we read makes a stored answer stale, not wrong
        if st is None:
            try:
                os.stat(path)  # for the reason: watch only says it is not there
            except OSError as exc:
                if isinstance(exc, FileNotFoundError) and not os.path.islink(path):
                    from swarm_handoff.skillmd import stat_problem

                    # A folder without SKILL.md is not a skill; kept visible (info) for --all.
                    problem = attrs.evolve(stat_problem(path, exc), severity=Severity.INFO)
                    self.record(name, place.scope, path, problem, counted=False)
                    return
                self.broken(entry.name, place, path, exc)
                return
            st = os.stat(path)  # it appeared just now: read it as any other
        if not stat.S_ISREG(st.st_mode) or pseudo_file(path, st):
            from swarm_handoff.skillmd import irregular_file, not_a_file

            regular = stat.S_ISREG(st.st_mode)
            problem = not_a_file(path, PSEUDO_FILE) if regular else irregular_file(path, st.st_mode)
            self.record(name, place.scope, path, problem)
            return
        self.scanned += 1
        self.pending.append((len(self.records), (path, name, place.scope)))
        self.records.append(None)  # `flush` puts the record in its place

    def flush(self, jobs: int | None, min_parallel: int | None) -> None:
        pending, self.pending = self.pending, []
        if not pending:
            return
        found = read_skills([f for _, f in pending], source=self.source, jobs=jobs, min_parallel=min_parallel)
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
    for place in places:
        state.place(place)
    state.flush(jobs, min_parallel)
    records = tuple(r for r in state.records if r is not None)
    return Walked(records, tuple(state.problems), state.scanned)


# The names plugins import (`swarm_handoff.api`): what they mean there, not what they are here.
SkillsPlace = Place
walk_skills = walk
