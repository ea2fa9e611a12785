"""Resources: each discovered skill's SKILL.md (`skill://`) and each known session's payloads (`handoff://`).

Discovery is the core's, called on every listing: its caches are checked by `stat` on each call,
so a SKILL.md edited while the server runs is served fresh on the next request, exactly as the CLI
would see it. Session payloads are only served from folders this server handed off into (or was
started with), and only regular files directly inside them: a URI never walks the disk.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import threading
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import mcp_types as types
from mcp.shared.exceptions import MCPError

from swarm_handoff.api import ErrorCode, PluginHost, SkillRecord, SwarmError

MAX_RESOURCE_BYTES = 4 << 20  # a SKILL.md or payload larger than this is refused, not streamed
MAX_SESSION_FILES = 1000
PAYLOAD_SUFFIXES = (".yaml", ".yml", ".json")
RESOURCE_NOT_FOUND = -32002  # the MCP spec's code for an unknown resource


class SessionIndex:
    """The session folders this server knows, by a short key (the folder's name, made unique)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_key: dict[str, Path] = {}

    def add(self, folder: str | os.PathLike[str]) -> str:
        """Remember a session folder; return its key in `handoff://{key}/...`."""
        path = Path(folder).expanduser().resolve()
        with self._lock:
            for key, known in self._by_key.items():
                if known == path:
                    return key
            base = path.name or "session"
            key, n = base, 1
            while key in self._by_key:
                n += 1
                key = f"{base}-{n}"
            self._by_key[key] = path
            return key

    def items(self) -> list[tuple[str, Path]]:
        """A snapshot, so a hand-off adding a session never disturbs a listing."""
        with self._lock:
            return list(self._by_key.items())

    def get(self, key: str) -> Path | None:
        """The folder for `key`, if this server knows it."""
        with self._lock:
            return self._by_key.get(key)


def skill_uri(record: SkillRecord) -> str:
    """`skill://{scope}/{name}`."""
    return f"skill://{record.scope.value}/{quote(record.name, safe='')}"


def _skill_file(record: SkillRecord) -> Path | None:
    if not record.path:
        return None
    path = Path(record.path)
    return path / "SKILL.md" if path.is_dir() else path


def _read_limited(path: Path) -> bytes:
    """Read a regular file of bounded size; anything else is a coded error naming the file."""
    try:
        # O_NONBLOCK: a FIFO planted in place of a file must not hang the server (symlinked skill
        # folders are normal, `skills link` makes them; session payloads never come here)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise SwarmError(ErrorCode.RESOURCE_NOT_FOUND, f"cannot read {path}: {exc.strerror}") from None
    return _read_fd(fd, path)


def _read_fd(fd: int, path: Path) -> bytes:
    """Read an open descriptor (closed here) if it is a regular file of bounded size."""
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise SwarmError(ErrorCode.RESOURCE_NOT_FOUND, f"{path} is not a regular file")
        data = handle.read(MAX_RESOURCE_BYTES + 1)
    if len(data) > MAX_RESOURCE_BYTES:
        raise SwarmError(
            ErrorCode.RESOURCE_NOT_FOUND,
            f"{path} is larger than {MAX_RESOURCE_BYTES} bytes",
            hint="read the file directly",
        )
    return data


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def _read_in_session(uri: str, folder: Path, name: str) -> bytes:
    """Read `folder/name` through the folder's descriptor, following no link at either step.

    A check of the name followed by an open of the path could be raced (a peer swaps the file for a
    link in between): here the folder is opened with O_NOFOLLOW|O_DIRECTORY, the file relative to it
    with O_NOFOLLOW, and the open descriptor must be a regular file (`fstat`), so what is served is
    what was checked.
    """
    outside = SwarmError(
        ErrorCode.RESOURCE_OUTSIDE_SESSION,
        f"{uri}: is a symbolic link (or its session folder is); not followed",
        hint="serve only files written into the session folder itself",
    )
    if os.open not in os.supports_dir_fd:  # pragma: no cover - Windows: no descriptor-relative open
        if (folder / name).is_symlink() or folder.is_symlink():
            raise outside
        return _read_limited(folder / name)
    try:
        dir_fd = os.open(folder, os.O_RDONLY | _DIRECTORY | _NOFOLLOW)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise outside from None
        raise SwarmError(ErrorCode.RESOURCE_NOT_FOUND, f"cannot read {folder}: {exc.strerror}") from None
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _NOFOLLOW, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise outside from None
        raise SwarmError(ErrorCode.RESOURCE_NOT_FOUND, f"cannot read {folder / name}: {exc.strerror}") from None
    finally:
        os.close(dir_fd)
    return _read_fd(fd, folder / name)


def _discovered(host: PluginHost) -> tuple[SkillRecord, ...]:
    from swarm_handoff.api import discover, make_context

    return discover(make_context(), host).workflows


def _skill_resource(record: SkillRecord) -> types.Resource | None:
    path = _skill_file(record)
    if path is None:
        return None
    meta: dict[str, Any] = {"path": str(path), "source": record.source}
    try:
        meta["sha256"] = hashlib.sha256(_read_limited(path)).hexdigest()
    except SwarmError:
        return None
    return types.Resource(
        name=record.name,
        title=f"{record.name} ({record.scope.value})",
        uri=skill_uri(record),
        description=record.description[:1000] or None,
        mime_type="text/markdown",
        _meta=meta,
    )


def _payloads(folder: Path) -> list[Path]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
    found = []
    for entry in entries[: MAX_SESSION_FILES * 4]:
        if entry.name.endswith(PAYLOAD_SUFFIXES) and entry.is_file(follow_symlinks=False):
            found.append(Path(entry.path))
        if len(found) >= MAX_SESSION_FILES:
            break
    return found


def list_all(host: PluginHost, sessions: SessionIndex) -> list[types.Resource]:
    """Every discovered skill, then every payload of every known session."""
    listed = [r for r in (_skill_resource(record) for record in _discovered(host)) if r is not None]
    for key, folder in sessions.items():
        for path in _payloads(folder):
            listed.append(
                types.Resource(
                    name=f"{key}/{path.name}",
                    uri=f"handoff://{quote(key, safe='')}/{quote(path.name, safe='')}",
                    mime_type="application/json" if path.suffix == ".json" else "application/yaml",
                    _meta={"path": str(path)},
                )
            )
    return listed


def templates() -> list[types.ResourceTemplate]:
    """The templates: one skill by name (the most local wins), by scope and name, one session payload."""
    return [
        types.ResourceTemplate(
            name="skill",
            uri_template="skill://{name}",
            description="One skill's SKILL.md by name: the copy discovery would use (most local scope wins).",
            mime_type="text/markdown",
        ),
        types.ResourceTemplate(
            name="skill-in-scope",
            uri_template="skill://{scope}/{name}",
            description="One skill's SKILL.md in a given scope (project, git-root, global, installed, ...).",
            mime_type="text/markdown",
        ),
        types.ResourceTemplate(
            name="handoff-payload",
            uri_template="handoff://{session}/{file}",
            description="A payload file of a session this server handed off into.",
        ),
    ]


def _not_found(uri: str, why: str) -> SwarmError:
    return SwarmError(ErrorCode.RESOURCE_NOT_FOUND, f"{uri}: {why}", hint="list the resources (resources/list)")


def read(uri: str, host: PluginHost, sessions: SessionIndex) -> types.TextResourceContents:
    """Resolve a `skill://` or `handoff://` URI to its text, with its path and hash in the metadata."""
    if uri.startswith("skill://"):
        parts = [unquote(p) for p in uri[len("skill://") :].split("/")]
        if len(parts) == 1:
            matches = [r for r in _discovered(host) if r.name == parts[0]]
        elif len(parts) == 2:
            matches = [r for r in _discovered(host) if r.scope.value == parts[0] and r.name == parts[1]]
        else:
            raise _not_found(uri, "expected skill://{name} or skill://{scope}/{name}")
        path = _skill_file(matches[0]) if matches else None
        if path is None:
            raise _not_found(uri, "no discovered skill by that name (see the `why` tool)")
        mime = "text/markdown"
        data = _read_limited(path)
    elif uri.startswith("handoff://"):
        parts = [unquote(p) for p in uri[len("handoff://") :].split("/")]
        folder = sessions.get(parts[0]) if len(parts) == 2 else None
        if folder is None:
            raise _not_found(uri, "not a payload of a session this server knows (handoff://{session}/{file})")
        name = parts[1]
        if not name or name in {".", ".."} or "/" in name or "\\" in name or "\0" in name:
            raise SwarmError(ErrorCode.RESOURCE_OUTSIDE_SESSION, f"{uri}: names a file outside the session")
        path = folder / name
        mime = "application/json" if path.suffix == ".json" else "application/yaml"
        data = _read_in_session(uri, folder, name)
    else:
        raise _not_found(uri, "unknown scheme (use skill:// or handoff://)")
    return types.TextResourceContents(
        uri=uri,
        mime_type=mime,
        text=data.decode("utf-8", errors="replace"),
        _meta={"path": str(path), "sha256": hashlib.sha256(data).hexdigest()},
    )


def protocol_error(error: SwarmError) -> MCPError:
    """A resource or prompt failure as a JSON-RPC error whose data is the structured error."""
    code = RESOURCE_NOT_FOUND if error.code == ErrorCode.RESOURCE_NOT_FOUND.value else types.INVALID_PARAMS
    return MCPError(code, str(error), data=error.to_document().to_data())
