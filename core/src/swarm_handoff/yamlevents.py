"""YAML parser events at no per-document set-up cost: the C parser looked up once, the pure one reused.

Discovery parses thousands of small documents, so what is paid per document matters more than
what is paid once. The C parser (`ruamel.yaml.clib`, the extension module `_ruamel_yaml`) is
imported once per process and a missing one is remembered too (a failed import is not retried).
The pure parser is built once per thread (building one is not free, and one is not safe to share
between threads) and reset after each document, so that no document leaves objects
in reference cycles for the collector. `libyaml`'s parser takes its input when it is created, so a
C parser object per document is the only option; it is freed (not collected) after `dispose()`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

_UNSET: Any = object()
_c_parser: Any = _UNSET
_local = threading.local()


def c_parser() -> Any:
    """The C parser class, or None without `ruamel.yaml.clib`: looked up once, a failure included."""
    global _c_parser
    if _c_parser is _UNSET:
        try:
            from _ruamel_yaml import CParser  # type: ignore[import-not-found]
        except ImportError:
            CParser = None
        _c_parser = CParser
    return _c_parser


def parser_name() -> str:
    """Say which YAML parser discovery uses here ("C" or "pure"), for `--version --verbose` and benchmarks."""
    return "C" if c_parser() is not None else "pure"


def forget_version(yaml: Any) -> Any:
    """Make a reused `YAML` read YAML 1.2 again: a `%YAML 1.1` directive sticks to its scanner otherwise.

    ruamel keeps the version of the last directive it met (on the loader and its scanner), so without
    this one file starting with `%YAML 1.1` would change how every later file on the thread reads
    (`[a?]`, `yes`, `0777`).
    """
    if getattr(yaml, "version", None) is not None:
        yaml.version = None  # the directive's version, copied onto the loader (the resolver follows it)
    scanner = getattr(yaml, "_scanner", None)
    if scanner is not None:
        scanner.yaml_version = None
    return yaml


def forget_documents(yaml: Any) -> None:
    """Drop the `DocInfo` a reused `YAML` keeps per parse (ruamel 0.18.0 has no such list)."""
    infos = getattr(yaml, "doc_infos", None)
    if infos is not None:
        del infos[:]


def _pure_yaml() -> Any:
    """This thread's pure-parser `YAML`, or a new one while it is busy (a parse inside a parse)."""
    yaml = getattr(_local, "yaml", None)
    if yaml is None:
        from ruamel.yaml import YAML

        yaml = YAML(typ="safe", pure=True)
        _local.yaml = yaml
    if getattr(_local, "busy", False):
        from ruamel.yaml import YAML

        return YAML(typ="safe", pure=True)
    return forget_version(yaml)


def feed_events(text: str, feed: Callable[[Any], None], *, pure: bool = False) -> None:
    """Call `feed` with each event of `text` up to (not including) the stream's end.

    The C parser runs when installed and `pure` is false; the pure one otherwise. Either way the
    parser is released before this returns, even when `feed` or the parser raises.
    """
    from ruamel.yaml.events import StreamEndEvent

    parser_class = None if pure else c_parser()
    if parser_class is not None:
        parser = parser_class(text)
        try:
            get_event = parser.get_event
            while True:
                event = get_event()
                if event is None or event.__class__ is StreamEndEvent:
                    return
                feed(event)
        finally:
            parser.dispose()
    yaml = _pure_yaml()
    mine = yaml is getattr(_local, "yaml", None)
    if mine:
        _local.busy = True
    events = yaml.parse(text)
    try:
        for event in events:
            if event.__class__ is StreamEndEvent:
                return
            feed(event)
    finally:
        events.close()  # resets the reader and scanner now, not when the generator is collected
        forget_documents(yaml)
        yaml.tags = {}
        if mine:
            _local.busy = False
