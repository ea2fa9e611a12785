"""Who may be trusted: the owner and mode rules every folder of skills, link and SKILL.md is judged by.

As git does since CVE-2022-24765: a repository whose `.git` is owned by another user (neither root
nor you); a skills folder owned by another user or writable by others (`/tmp`); a link on the way
to it owned by another user; inside a read folder, a skill folder or SKILL.md (or a link to one)
of another user or writable by others: none is read unless `SWARM_HANDOFF_TRUSTED_FOLDERS` names
it. The walker (`skillwalk`) and the repository root (`reporoot`) ask here; this module reads no
skill.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Mapping

import attrs

from swarm_handoff.errors import ErrorCode, Problem, Severity

ENV_TRUSTED = "SWARM_HANDOFF_TRUSTED_FOLDERS"
SKILLS_OWNER_UNTRUSTED = ErrorCode.SKILLS_OWNER_UNTRUSTED.value


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


def _mine(uid: int, env: Mapping[str, str]) -> frozenset[int]:
    """The owners whose files you trust: root, you, and under sudo the user who ran it."""
    sudo = _sudo_uid(uid, env)
    return frozenset({0, uid} | ({sudo} if sudo is not None else set()))


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


def writable_by_others(st: os.stat_result, owners: frozenset[int]) -> bool:
    """Whether users other than `owners` may change it: writable by others, or by a group not the owner's own."""
    if st.st_mode & stat.S_IWOTH:
        return True
    return bool(st.st_mode & stat.S_IWGRP) and not _private_group(st.st_gid, owners)


MAX_LINKS = 40  # as the kernel's own limit on links followed while resolving one path


@attrs.frozen
class Trust:
    """Whose files are trusted, asked once per walk (or repository) rather than for each folder and file."""

    env: Mapping[str, str]
    uid: int | None  # None where there are no owners: nothing is refused
    owners: frozenset[int]

    @classmethod
    def of(cls, env: Mapping[str, str]) -> Trust:
        """Ask who you are (and who ran sudo) once, for every judgement that follows."""
        uid = current_uid()
        return cls(env, uid, _mine(uid, env) if uid is not None else frozenset())

    def judge(self, st: os.stat_result, path: str, what: str, *, link: bool = False) -> Problem | None:
        """SKILLS_OWNER_UNTRUSTED when what `st` describes belongs to another user or others may write it; else None.

        A link (`link=True`) is judged by its owner only (a link's own mode means nothing) and matched
        in SWARM_HANDOFF_TRUSTED_FOLDERS by its own place; anything else by owner and mode, at its target.
        """
        if self.uid is None:
            return None
        if st.st_uid not in self.owners:
            reason = f"{what} is owned by user {st.st_uid}, not by you (user {self.uid})"
        elif not link and writable_by_others(st, self.owners):
            reason = f"{what} can be changed by other users (mode {stat.filemode(st.st_mode)})"
        else:
            return None
        if _listed(path, self.env, link=link):
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

    def owner(self, path: str | os.PathLike[str], what: str) -> Problem | None:
        """SKILLS_OWNER_UNTRUSTED when `path` itself (a link not followed) is another user's and is not listed."""
        text = os.fspath(path)
        try:
            st = os.lstat(text)
        except (OSError, ValueError):
            return None  # absent or unreadable: nothing is read from it, so nothing to trust
        return self.judge(st, text, what, link=True)  # owner only: a `.git` is judged as git judges it

    def links(self, path: str | os.PathLike[str]) -> Problem | None:
        """SKILLS_OWNER_UNTRUSTED for the first link on the way to `path` that another user owns; else None.

        Each link met while resolving the path (and the links its targets lead through) is judged by
        its owner: another user's link could be pointed anywhere, whoever owns what it points at.
        """
        if self.uid is None:
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
            problem = self.judge(st, candidate, f"the link {candidate}", link=True)
            if problem is not None or hops > MAX_LINKS:
                return problem
            target = os.readlink(candidate)
            if os.path.isabs(target):
                current = anchor
            pending.extend(reversed([p for p in target.split(os.sep) if p]))
        return None
