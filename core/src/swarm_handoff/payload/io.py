"""Read payload files safely, and write them atomically without losing an earlier one.

Writes go through `swarm_handoff.safefs`: a new payload is created exclusively under a name of its
own (`write_new`), so any number of hand-offs at once each keep their file, and the one path the
user names (`convert --output`) keeps what was there (`write_keeping_earlier`).

Payload YAML is parsed with the timestamp resolver switched off: `timestamp: 2026-02-04T19:30:00Z`
loads as the text written, quoted or not, so reformatting the YAML never changes a value (and so
never the hash). Size, alias-bomb and encoding guards are those of `yamlio`.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import threading
from pathlib import Path
from typing import Any, TextIO

from swarm_handoff import safefs
from swarm_handoff.errors import Problem, SwarmError
from swarm_handoff.yamlio import (
    MAX_BYTES,
    YAML_DUPLICATE_KEY,
    YAML_SYNTAX,
    YAML_TOO_LARGE,
    LoadError,
    check_events,
    check_nesting,
    check_size,
    read_text,
)

_local = threading.local()
_MAX_TRIES = 10_000  # names tried in one series before giving up (a folder holding that many is a mistake)
# Characters a YAML reader refuses or treats as line breaks; JSON-as-YAML writes them as \\uXXXX.
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")


def _yaml() -> Any:
    yaml = getattr(_local, "yaml", None)
    if yaml is None:
        from ruamel.yaml import YAML
        from ruamel.yaml.constructor import SafeConstructor

        class _TimesAsText(SafeConstructor):
            """The safe constructor, except that timestamps stay the text they were written as."""

        _TimesAsText.add_constructor("tag:yaml.org,2002:timestamp", SafeConstructor.construct_yaml_str)
        yaml = YAML(typ="safe", pure=True)
        yaml.Constructor = _TimesAsText
        _local.yaml = yaml
    from swarm_handoff.yamlevents import forget_version

    return forget_version(yaml)  # a `%YAML 1.1` of an earlier file must not stick


def parse_payload_text(text: str, *, path: str | None = None, json_text: bool = False) -> Any:
    """Parse payload text (JSON or YAML) into plain data, or raise a located `LoadError`.

    Both forms get the limits of `yamlio` (size, depth, nodes, number length), explicit YAML tags
    outside the core schema and repeated JSON keys are refused, and every key must be text: a
    payload means the same to every reader, and `1` and `'1'` cannot both be keys of one mapping.
    """
    if json_text:
        from swarm_handoff import jsonio

        return jsonio.loads(text, path=path)  # JSON keys are always text
    if len(text) > MAX_BYTES:
        raise LoadError(Problem(YAML_TOO_LARGE, f"larger than {MAX_BYTES} bytes", path=path, hint="check the path"))
    check_nesting(text, path=path)
    try:
        check_events(text, path=path)
        data = _yaml().load(text)
    except LoadError:
        raise
    except RecursionError:
        raise LoadError(Problem(YAML_SYNTAX, "invalid YAML: nested too deeply", path=path)) from None
    except Exception as exc:  # ruamel raises many types (scanner, constructor, duplicate key, ...)
        mark = getattr(exc, "problem_mark", None)
        duplicate = type(exc).__name__ == "DuplicateKeyError"
        raise LoadError(
            Problem(
                YAML_DUPLICATE_KEY if duplicate else YAML_SYNTAX,
                f"invalid YAML: {getattr(exc, 'problem', None) or exc}".replace("\n", " "),
                path=path,
                line=mark.line + 1 if mark is not None else None,
                column=mark.column + 1 if mark is not None else None,
                hint="check the YAML syntax near that spot",
            )
        ) from None
    check_size(data, path=path, text_keys=True)
    return data


def load_payload_file(path: Path) -> Any:
    """Load a payload file: `.json` as JSON, anything else as YAML (JSON is YAML too)."""
    text = read_text(path)
    return parse_payload_text(text, path=str(path), json_text=path.suffix.lower() == ".json")


def dump_payload(payload: Any, path: Path) -> str:
    """Serialise `payload` for `path`: JSON for `.json`, block YAML that YAML 1.1 and 1.2 readers agree on."""
    if path.suffix.lower() == ".json":
        return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    import io as _io

    from swarm_handoff.yamlout import portable_yaml

    yaml = portable_yaml("rt")  # keeps the builder's key order, which reads like the seed's example
    yaml.width = 4096
    stream = _io.StringIO()
    yaml.dump(payload, stream)
    text = stream.getvalue()
    # A last guard: when the YAML would not load back to the same data, write JSON instead, which
    # every YAML loader reads as is (the portable representer leaves no known case for this).
    try:
        same = parse_payload_text(text) == payload
    except LoadError:
        same = False
    if same:
        return text
    as_json = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    return _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", as_json)


def write_atomic(path: Path, text: str, *, mode: int = 0o600) -> None:
    """Replace `path` with `text` all at once (fsynced), so no reader ever sees half a payload."""
    safefs.atomic_write(path, text.encode("utf-8"), mode=mode, durable=True)


def numbered(path: Path, n: int) -> Path:
    """The `n`-th name of a series: `path` itself for 1, else `stem-N.ext` (`handoff-payload-2.yaml`)."""
    return path if n <= 1 else path.with_name(f"{path.stem}-{n}{path.suffix}")


def _highest(path: Path) -> int:
    """The highest number of the series of `path` present in its folder (0 when there is none)."""
    stem, suffix = path.stem, path.suffix
    highest = 0
    try:
        names = os.listdir(path.parent)
    except OSError:
        return 0
    for name in names:
        if name == path.name:
            highest = max(highest, 1)
        elif name.startswith(f"{stem}-") and name.endswith(suffix):
            number = name[len(stem) + 1 : len(name) - len(suffix)]
            if number.isascii() and number.isdigit() and len(number) < 10:
                highest = max(highest, int(number))
    return highest


def write_new(path: Path, text: str, *, mode: int = 0o600) -> Path:
    """Write `text` as a new file, `path` or the next of its series; never replace anything. Return the name.

    Several writers at once each get their own name: the folder is locked while a name is picked,
    and the file is created exclusively anyway (`safefs.create_new`), so even without the lock
    nothing is replaced. The series only grows, so its highest number is the newest file.
    """
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    with safefs.locked(folder):
        first = _highest(path) + 1
        candidates = [str(numbered(path, n)) for n in range(first, first + _MAX_TRIES)]
        created = safefs.create_first(candidates, data, mode=mode, durable=True)
    if created is None:
        raise FileExistsError(errno.EEXIST, f"no free name after {_MAX_TRIES} tries", str(path))
    return Path(created)


def write_keeping_earlier(path: Path, text: str, *, mode: int = 0o600) -> Path | None:
    """Write `text` to the path the user named; a file already there is first kept as `stem.N.ext`.

    The earlier file gets its new name by a hard link before the new content replaces it, so `path`
    is never missing and never half written; the folder lock keeps two writers from keeping the
    same earlier file twice and losing one of their own. Returns where the earlier file was kept.
    Only a regular file (or nothing) is ever replaced: see `write_output` for the other kinds.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with safefs.locked(path.parent):
        kept = None
        if os.path.lexists(path):
            kept = keep_earlier(path)
        write_atomic(path, text, mode=mode)
    return kept


# The names of the standard streams: never files, whatever the file system says they point to.
_STREAM_NAMES = {"-": 1, "/dev/stdout": 1, "/dev/fd/1": 1, "/proc/self/fd/1": 1, "/dev/stderr": 2, "/dev/fd/2": 2}
_STREAM_NAMES["/proc/self/fd/2"] = 2
OUTPUT_REFUSED = "OUTPUT_REFUSED"
_WRITE_FLAGS = os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def standard_stream(name: str) -> int | None:
    """1 or 2 when `name` means standard output or error (`-`, `/dev/stdout`, ...), else None."""
    return _STREAM_NAMES.get(name)


def _refused(path: str, why: str, hint: str) -> SwarmError:
    return SwarmError(OUTPUT_REFUSED, f"{path}: {why}; nothing was written", hint=hint, recoverable=True)


def _streamable(mode: int) -> bool:
    """A character device or a FIFO takes a stream of bytes and has no content to replace."""
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def write_output(path: str | Path, text: str, *, mode: int = 0o600, stdout: TextIO | None = None) -> Path | None:
    """Write `text` where the user said (`--output`), never replacing anything but a regular file.

    * `-`, `/dev/stdout`, `/dev/stderr` (and their `/dev/fd/N` spellings): that standard stream;
    * nothing there, or a regular file: `write_keeping_earlier` (the earlier file kept as `stem.N.ext`);
    * a character device or a FIFO: written as a stream, as a shell's `>` would, never replaced;
    * a symbolic link: written through only when it ends at a character device or a FIFO; a link
      to a file (or to nothing) is refused, since following it would replace a file elsewhere;
    * anything else (a folder, a block device, a socket): refused.

    Refusals are `OUTPUT_REFUSED` naming the path and what it is. Returns where an earlier file was kept.
    `stdout` is the standard output to use (the caller's, when it moved `sys.stdout` elsewhere).
    """
    name = os.fspath(path)
    stream = standard_stream(name)
    if stream is not None:
        _write_stream(stream, text.encode("utf-8"), stdout)
        return None
    try:
        st = os.lstat(name)
    except FileNotFoundError:
        return write_keeping_earlier(Path(name), text, mode=mode)
    if stat.S_ISREG(st.st_mode):
        return write_keeping_earlier(Path(name), text, mode=mode)
    if stat.S_ISLNK(st.st_mode):
        target = os.path.realpath(name)
        try:
            final = os.stat(name).st_mode
        except OSError:
            raise _refused(
                name,
                f"a symbolic link to {target}, which does not exist; not followed",
                f"name the file to write yourself (--output {target}), or remove the link",
            ) from None
        if not _streamable(final):
            raise _refused(
                name,
                f"a symbolic link to {target} ({_kind(final)}); not followed, so no file elsewhere is replaced",
                f"write the link's target explicitly: --output {target}",
            )
        _write_to(name, text.encode("utf-8"), follow=True)
        return None
    if not _streamable(st.st_mode):
        raise _refused(name, f"{_kind(st.st_mode)}, not a file", "name a regular file, or - for standard output")
    _write_to(name, text.encode("utf-8"), follow=False)
    return None


def _kind(mode: int) -> str:
    from swarm_handoff.textfile import file_kind

    return "a regular file" if stat.S_ISREG(mode) else file_kind(mode)


def _write_to(name: str, data: bytes, *, follow: bool) -> None:
    """Open an existing device or FIFO for writing (no create, no truncate) and stream `data` into it.

    The opened descriptor is checked again (`fstat`): a name swapped for a regular file meanwhile is
    refused before a byte is written, and without O_TRUNC it has not been changed.
    """
    flags = _WRITE_FLAGS | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(name, flags)
    except OSError as exc:
        raise _refused(name, f"cannot open it for writing: {exc.strerror or exc}", "check the path") from None
    try:
        st = os.fstat(fd)
        if not _streamable(st.st_mode):
            raise _refused(name, f"changed into {_kind(st.st_mode)} while being opened", "run the command again")
        _write_all(fd, data)
    finally:
        os.close(fd)


def _write_stream(stream: int, data: bytes, stdout: TextIO | None) -> None:
    import sys

    handle = (stdout or sys.stdout) if stream == 1 else sys.stderr
    handle.flush()
    buffer = getattr(handle, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    else:  # a text-only stream (an embedding host replaced it)
        handle.write(data.decode("utf-8"))
        handle.flush()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def keep_earlier(path: Path) -> Path | None:
    """Give an existing `path` a second name, `name.1.ext`, `name.2.ext`, ..., never taking a used one.

    The name is made with a hard link (exclusive: it fails rather than replace), so `path` itself
    stays; call this under `safefs.locked(path.parent)` and replace `path` next.
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):  # a device, FIFO or link linked aside would be the node itself
        raise _refused(
            str(path), f"{_kind(st.st_mode)}, not a regular file", "name a regular file, or - for standard output"
        )
    for n in range(1, _MAX_TRIES + 1):
        kept = path.with_name(f"{path.stem}.{n}{path.suffix}")
        try:
            os.link(path, kept, follow_symlinks=False)
        except FileExistsError:
            continue
        return kept
    raise FileExistsError(errno.EEXIST, f"no free name to keep the earlier file after {_MAX_TRIES} tries", str(path))
