"""Read payload files safely, and write them atomically without losing an earlier one.

Payload YAML is parsed with the timestamp resolver switched off: `timestamp: 2026-02-04T19:30:00Z`
loads as the text written, quoted or not, so reformatting the YAML never changes a value (and so
never the hash). Size, alias-bomb and encoding guards are those of `yamlio`.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
from pathlib import Path
from typing import Any

from swarm_handoff.errors import Problem
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
    return yaml


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
    """Write `text` to `path` through a temporary file and `os.replace`, with permissions `mode`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def keep_earlier(path: Path) -> Path | None:
    """Move an existing `path` aside (`name.1.ext`, `name.2.ext`, ...) so a new write keeps it."""
    if not path.exists():
        return None
    n = 1
    while True:
        kept = path.with_name(f"{path.stem}.{n}{path.suffix}")
        if not kept.exists():
            break
        n += 1
    os.replace(path, kept)
    return kept


def unique_path(path: Path) -> Path:
    """Return `path`, or `stem-2.ext`, `stem-3.ext`, ... when a file of that name already exists."""
    candidate, n = path, 1
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
    return candidate
