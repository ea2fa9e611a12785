"""The repository root: the nearest folder at or above the working directory holding a `.git` entry.

A `.git` folder, or the file of a worktree or submodule; never above `GIT_CEILING_DIRECTORIES`.
Inside a submodule (its `.git` file points into `<super>/.git/modules/`) the superproject's root
is used. No `git` process is started. A root whose `.git` belongs to another user is found but
marked untrusted (`skilltrust`): the sources then list the skills above the working directory
without reading them.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

import attrs

from swarm_handoff.cache import watch
from swarm_handoff.errors import Problem
from swarm_handoff.skilltrust import Trust
from swarm_handoff.textfile import LoadError, read_regular

MAX_GIT_FILE = 4096  # a `.git` file is one line: `gitdir: PATH`


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
        trust = Trust.of(env)
        problem = trust.owner(root / ".git", f"the repository {root} (its .git)")
        if problem is None and root != folder:
            problem = trust.owner(marker, f"the repository {folder} (its .git)")
        if problem is not None:
            return Repository(tuple(chain), root, "the repository belongs to another user", problem)
        return Repository(tuple(chain), root, note)
    return Repository((cwd,), None, "not in a git repository")
