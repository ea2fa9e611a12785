"""The folder scan: `.claude/skills/*/SKILL.md` under the project, the git root and the user's config folder.

Order and scopes follow the discovery seed: project (1) > git root (2) > global (3). The git root
is skipped when it is the working directory; inside a submodule the superproject's root is used.
A folder reached twice (the working directory is the home directory, or a symbolic link points
into another root) is scanned once, at its most local scope. Hidden folders are skipped. Every
folder that holds (or should hold) a SKILL.md becomes a record, eligible or not, with its problems.

The walk only lists and stats; the SKILL.md files are turned into records after it, in one call
to `read_skills`, which reuses the record of every unchanged file while discovery runs and parses
the rest (in forked processes when there are many: `SWARM_HANDOFF_JOBS`); the records keep their
places, so the answer is the one a serial scan gives. Every folder listed and file read is
`watch`ed first, so the core can cache the answer (`CachedSource`) without this module knowing how.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from stat import S_ISREG
from typing import TYPE_CHECKING

import attrs

from swarm_handoff.api import (
    DiscoveryContext,
    Frontmatter,
    Problem,
    Scope,
    ScopeSpec,
    Severity,
    SkillRecord,
    SourceResult,
    irregular_file,
    not_cacheable,
    read_skills,
    record_from_frontmatter,
    stat_problem,
    watch,
)

if TYPE_CHECKING:
    from swarm_handoff.api import Location

SOURCE = "frontmatter"
GIT_TIMEOUT = "GIT_TIMEOUT"
SKILLS_DIR_UNREADABLE = "SKILLS_DIR_UNREADABLE"
GIT_TIMEOUT_SECONDS = 5.0
_GIT_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "PATH")


def _debug(message: str, *args: object) -> None:
    """Log at debug level; importing `logging` costs each `discover` ~4 ms, so only when loaded.

    A process that never imported `logging` has configured no handler, so the record would go
    nowhere anyway; any process that set logging up (an application, pytest's caplog) gets it.
    """
    logging = sys.modules.get("logging")
    if logging is not None:
        logging.getLogger(__name__).debug(message, *args)


@attrs.frozen
class Root:
    """One place skills are looked for, with its scope; `note` says why it was skipped, if it was."""

    scope: Scope
    path: Path
    note: str | None = None


def git_root(cwd: Path, env: Mapping[str, str], timeout: float = GIT_TIMEOUT_SECONDS) -> tuple[Path | None, str]:
    """Return the repository root (the superproject's inside a submodule) and a note on what happened."""
    import subprocess  # deferred: a warm run answers from the cache and never starts git

    command = ["git", "rev-parse", "--show-toplevel", "--show-superproject-working-tree"]
    try:
        done = subprocess.run(
            command, cwd=cwd, env=dict(env) or None, capture_output=True, text=True, timeout=timeout, check=False
        )
    except FileNotFoundError:
        return None, "git command not available, skipping git-root discovery"
    except subprocess.TimeoutExpired:
        return None, f"git root detection timed out after {timeout:g} seconds"
    except OSError as exc:
        return None, f"git could not run ({exc}), skipping git-root discovery"
    if done.returncode != 0:
        return None, "not in a git repository, skipping git-root discovery"
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    if not lines:
        return None, "git printed no repository root"
    # With both flags git prints the top level, then the superproject only when inside a submodule.
    if len(lines) > 1:
        return Path(lines[1]), "inside a submodule: using the superproject's root"
    return Path(lines[0]), "git root found"


def skill_roots(context: DiscoveryContext) -> tuple[list[Root], list[Problem]]:
    """List the three places in priority order, marking the ones that are skipped and why."""
    cwd = context.cwd
    roots = [Root(Scope.PROJECT, cwd / ".claude" / "skills")]
    problems: list[Problem] = []
    root, note = git_root(cwd, context.env)
    if root is None:
        _debug("git root: %s", note)
        if "timed out" in note:
            problems.append(
                Problem(GIT_TIMEOUT, note, hint="check for a slow or locked repository", severity=Severity.WARNING)
            )
        roots.append(Root(Scope.GIT_ROOT, Path(), note))
    elif _same(root, cwd):
        roots.append(Root(Scope.GIT_ROOT, root / ".claude" / "skills", "the git root is the working directory"))
    else:
        roots.append(Root(Scope.GIT_ROOT, root / ".claude" / "skills"))
    roots.append(Root(Scope.GLOBAL, context.config_dir / "skills"))
    return roots, problems


def _watch_git_markers(cwd: Path, roots: list[Root]) -> None:
    """Watch `.git` from cwd up to the repository root (or /): a repository appearing or vanishing moves it."""
    top = next((r.path.parent.parent for r in roots if r.scope is Scope.GIT_ROOT and r.path != Path()), None)
    for folder in (cwd, *cwd.parents):
        watch(folder / ".git")
        if top is not None and folder == top:
            break


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


@attrs.define
class Scan:
    """Mutable state of one scan: folders already visited, so each is read once at its best scope."""

    seen: set[str] = attrs.field(factory=set)
    records: list[SkillRecord | None] = attrs.field(factory=list)
    problems: list[Problem] = attrs.field(factory=list)
    scanned: int = 0
    jobs: int | None = None  # processes for parsing; None: `SWARM_HANDOFF_JOBS` of the discovery run
    min_parallel: int | None = None  # None: the core's threshold (`read_skills`)
    # SKILL.md files still to read: (place in `records`, (path, skill name, scope)).
    pending: list[tuple[int, tuple[str, str, Scope]]] = attrs.field(factory=list)

    def root(self, root: Root) -> None:
        """Scan one skills folder; a missing folder is normal and says nothing."""
        if root.note is not None:
            return
        real_root = os.path.realpath(root.path)
        if real_root in self.seen:
            _debug("%s already scanned at a more local scope", root.path)
            return
        self.seen.add(real_root)
        watch(root.path)  # its mtime changes when a skill folder is added or removed
        try:
            entries = sorted(os.scandir(root.path), key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            return
        except OSError as exc:
            self.problems.append(
                Problem(
                    SKILLS_DIR_UNREADABLE,
                    f"cannot list skills folder: {exc.strerror or exc}",
                    path=str(root.path),
                    hint="check the folder's permissions",
                    severity=Severity.WARNING,
                )
            )
            return
        for entry in entries:
            if not entry.name.startswith("."):
                try:
                    self.entry(entry, root.scope, real_root)
                except OSError as exc:  # whatever one entry does, it costs that skill and no other
                    self._unusable(entry, root.scope, exc)

    def _unusable(self, entry: os.DirEntry[str], scope: Scope, exc: OSError) -> None:
        """Record an entry that cannot even be looked into (a looping, dangling or forbidden link)."""
        watch(entry.path)  # stat fails while it is broken; a fix changes that
        self.scanned += 1
        self.records.append(self._broken(entry.name, scope, entry.path, exc))

    def entry(self, entry: os.DirEntry[str], scope: Scope, real_root: str) -> None:
        """Read one skill folder (or report the link that should have been one)."""
        is_link = entry.is_symlink()
        if not entry.is_dir():  # follows a link: a looping or forbidden one raises (see `root`)
            if is_link:  # a dangling link where a skill folder should be
                try:
                    os.stat(entry.path)
                except OSError as exc:
                    self._unusable(entry, scope, exc)
            return
        real = os.path.realpath(entry.path) if is_link else os.path.join(real_root, entry.name)
        if real in self.seen:
            return
        self.seen.add(real)
        path = entry.path + os.sep + "SKILL.md"  # join() costs more than the stat at 10,000 skills
        st = watch(path)  # before reading: an edit while we read makes a stored answer stale, not wrong
        if st is None:
            try:
                os.stat(path)  # for the reason: watch only says it is not there
            except OSError as exc:
                if isinstance(exc, FileNotFoundError) and not os.path.islink(path):
                    # A folder without SKILL.md is not a skill (the seed skips it); keep it visible for --all.
                    problem = attrs.evolve(stat_problem(path, exc), severity=Severity.INFO)
                    self.records.append(_record(entry.name, scope, path, Frontmatter(None, (problem,))))
                    return
                self.scanned += 1
                self.records.append(self._broken(entry.name, scope, path, exc))
                return
            st = os.stat(path)  # it appeared just now: read it as any other
        self.scanned += 1
        if not S_ISREG(st.st_mode):  # a folder, FIFO, socket or device named SKILL.md: never opened
            problem = irregular_file(path, st.st_mode)
            self.records.append(_record(entry.name, scope, path, Frontmatter(None, (problem,))))
            return
        self.pending.append((len(self.records), (path, entry.name, scope)))
        self.records.append(None)  # `flush` puts the record in its place

    def flush(self) -> None:
        """Read the SKILL.md files `entry` left pending, all at once (reused, or parsed in `jobs` processes)."""
        pending, self.pending = self.pending, []
        if not pending:
            return
        found = read_skills(
            [file for _, file in pending], source=SOURCE, jobs=self.jobs, min_parallel=self.min_parallel
        )
        for (place, _), record in zip(pending, found, strict=True):
            self.records[place] = record

    def done(self) -> tuple[SkillRecord, ...]:
        """The records, in the walk's order (after `flush`)."""
        return tuple(r for r in self.records if r is not None)

    def _broken(self, name: str, scope: Scope, path: str, exc: OSError) -> SkillRecord:
        return _record(name, scope, path, Frontmatter(None, (stat_problem(path, exc),)))


def _record(name: str, scope: Scope, path: str, front: Frontmatter) -> SkillRecord:
    return record_from_frontmatter(
        front.data, name=name, scope=scope, source=SOURCE, path=path, problems=front.problems
    )


class FrontmatterSource:
    """The `frontmatter` discovery source: scans the three skills folders in precedence order."""

    # The one ordering (docs/plugins.md#scopes): the source runs at its most local scope.
    scopes = (ScopeSpec("project", 1), ScopeSpec("git-root", 2), ScopeSpec("global", 3))

    def discover(self, context: DiscoveryContext) -> SourceResult:
        """Scan project, git root and global skills folders; a folder reached twice is read once."""
        roots, problems = skill_roots(context)
        if problems:  # git timed out: the git-root scope may be missing, and nothing we watch says when it returns
            not_cacheable("git timed out")
        scan = Scan()
        scan.problems.extend(problems)
        _watch_git_markers(context.cwd, roots)
        for root in roots:
            scan.root(root)
        scan.flush()
        return SourceResult(records=scan.done(), problems=tuple(scan.problems), scanned=scan.scanned)

    def cache_key(self, context: DiscoveryContext) -> str:  # CachedSource
        """The environment git reads to find the repository root (it changes the git-root scope)."""
        return "|".join(f"{k}={context.env.get(k, '')}" for k in _GIT_ENV)

    def locations(self, context: DiscoveryContext, name: str) -> list[Location]:  # LocatingSource
        """Where a skill called `name` would be, in priority order (for `why`)."""
        from swarm_handoff.api import Location  # only `why` asks; `discover` need not import it

        roots, _ = skill_roots(context)
        out: list[Location] = []
        seen: dict[str, Scope] = {}
        for root in roots:
            if root.note is not None:
                where = str(root.path / name / "SKILL.md") if str(root.path) != "." else "(no git root)"
                out.append(Location(root.scope, where, root.note))
                continue
            real = os.path.realpath(root.path)
            where = str(root.path / name / "SKILL.md")
            if real in seen:
                out.append(Location(root.scope, where, f"same folder as the {seen[real].value} scope"))
            else:
                seen[real] = root.scope
                out.append(Location(root.scope, where))
        return out


def scan_folder(
    path: Path | str,
    scope: Scope | str = Scope.GLOBAL,
    *,
    jobs: int | None = None,
    min_parallel: int | None = None,
) -> SourceResult:
    """Scan one skills folder on its own (lint, tests, benchmarks): every skill folder becomes a record.

    `jobs` defaults to `SWARM_HANDOFF_JOBS` (else the usable CPUs), as discovery has it.
    """
    scan = Scan(jobs=jobs, min_parallel=min_parallel)
    scan.root(Root(Scope(scope), Path(path)))
    scan.flush()
    return SourceResult(records=scan.done(), problems=tuple(scan.problems), scanned=scan.scanned)
