"""Where `adopt` may write: a skill of a project, a git root or the global skills folder, reached link-free.

A linked or installed skill (a pip-installed pack, a Claude Code plugin's cached copy) belongs to
someone else. The skill folder is opened one name at a time with `O_NOFOLLOW`, and the descriptor
returned is the folder that was checked: everything after goes through it (`skill_file`), so a
folder swapped for a link during the run is not written through.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from swarm_handoff.api import SwarmError, config_dir

ADOPT_NOT_FOUND = "ADOPT_NOT_FOUND"
ADOPT_NOT_OWN_SKILL = "ADOPT_NOT_OWN_SKILL"
ADOPT_SYMLINK = "ADOPT_SYMLINK"

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def _scope_chain(path: Path) -> tuple[Path, tuple[str, ...]]:
    """The folder a skill scope hangs from, and the names from it down to the skill folder.

    The global scope: `$CLAUDE_CONFIG_DIR/skills/NAME/SKILL.md` (or `~/.claude/...`); the config
    folder is the user's own choice, so its own links (dotfiles) are followed, once, to its real
    path, and only the names below it are opened without following. A project or git root:
    `ROOT/.claude/skills/NAME/SKILL.md`, unless ROOT lies in an installed copy (`installed_under`):
    a pip-installed pack, a Claude Code plugin's cached copy, or a registry entry elsewhere is
    someone else's skill.
    """
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


def open_skill_folder(path: Path) -> int:
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
