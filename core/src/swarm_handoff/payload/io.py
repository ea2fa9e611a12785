"""Read payload files safely, and write new ones atomically under a name of their own.

Writes go through `swarm_handoff.safefs`: a new payload is created exclusively under a name of its
own (`write_new`), so any number of hand-offs at once each keep their file. The one path the user
names (`convert --output`) is written by `payload/output.py`, which keeps what was there.

Payload YAML is parsed with the timestamp resolver switched off: `timestamp: 2026-02-04T19:30:00Z`
loads as the text written, quoted or not, so reformatting the YAML never changes a value (and so
never the hash). Size, alias-bomb and encoding guards are those of `yamlio`.
"""

from __future__ import annotations

import datetime as dt
import errno
import json
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from swarm_handoff import jsonio, safefs
from swarm_handoff.errors import Problem
from swarm_handoff.yamlevents import forget_version
from swarm_handoff.yamlio import MAX_BYTES, YAML_TOO_LARGE, LoadError, check_events, check_size, read_text
from swarm_handoff.yamlout import portable_yaml
from swarm_handoff.yamlrules import YAML_DUPLICATE_KEY, YAML_SYNTAX, check_nesting

_local = threading.local()
MAX_NAME_TRIES = 10_000  # names tried in one series before giving up (a folder holding that many is a mistake)
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

    return forget_version(yaml)  # a `%YAML 1.1` of an earlier file must not stick


def parse_payload_text(text: str, *, path: str | None = None, json_text: bool = False) -> Any:
    """Parse payload text (JSON or YAML) into plain data, or raise a located `LoadError`.

    Both forms get the limits of `yamlio` (size, depth, nodes, number length), explicit YAML tags
    outside the core schema and repeated JSON keys are refused, and every key must be text: a
    payload means the same to every reader, and `1` and `'1'` cannot both be keys of one mapping.
    """
    if json_text:
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


def read_payload_file(path: Path) -> tuple[str, Any]:
    """A payload file's text and the data it parses to: a signed file's text is compared as it was read."""
    text = read_text(path)
    return text, parse_payload_text(text, path=str(path), json_text=path.suffix.lower() == ".json")


def load_payload_file(path: Path) -> Any:
    """Load a payload file: `.json` as JSON, anything else as YAML (JSON is YAML too)."""
    return read_payload_file(path)[1]


def dump_payload(payload: Any, path: Path) -> str:
    """Serialise `payload` for `path`: JSON for `.json`, block YAML that YAML 1.1 and 1.2 readers agree on."""
    if path.suffix.lower() == ".json":
        return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    import io as _io

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


def file_stamp(moment: dt.datetime) -> str:
    """Write a time for a file name: `YYYYMMDDTHHMMSSZ` (no colons, which some systems refuse)."""
    return moment.astimezone(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")


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

    Several writers at once each get their own name: the file is written in full first, then the
    folder is locked just long enough to read the series' highest number once and link the file to
    the next one (`safefs.create_next`). The link is exclusive anyway, so even without the lock
    nothing is replaced. The series only grows, so its highest number is the newest file.
    """
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)

    def series() -> Iterator[str]:
        first = _highest(path) + 1
        return (str(numbered(path, n)) for n in range(first, first + MAX_NAME_TRIES))

    created = safefs.create_next(path, series, text.encode("utf-8"), mode=mode, durable=True)
    if created is None:
        raise FileExistsError(errno.EEXIST, f"no free name after {MAX_NAME_TRIES} tries", str(path))
    return Path(created)
