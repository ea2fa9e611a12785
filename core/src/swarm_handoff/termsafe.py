"""Make text from skills, payloads and folder names safe to print on a terminal.

Skill folders come from repositories strangers wrote, and payloads from peer agents: a description
holding `ESC ] 0 ; ... BEL` retitles the user's terminal, `ESC [ 2 J` clears it, a newline in a
folder name forges a line of output, and a right-to-left override makes the displayed text differ
from the bytes (Trojan Source). Every text layout, and the CLI's messages on stderr, pass what they
print through `escape_controls`, so such characters are shown as visible escapes (`\\x1b`, `\\n`,
`\\u202e`) and never interpreted. Machine formats (JSON, YAML, XML) keep the exact value instead.

Backslashes are not escaped: Windows paths stay readable, at the price that a literal `\\x1b`
typed in a description looks the same as an escaped ESC. The text format is for people; the exact
value is always in `--format json`.
"""

from __future__ import annotations

import os
import re
from typing import Any

# C0 controls, DEL, C1 controls (0x9b is a one-byte CSI, 0x9d a one-byte OSC), the bidi embeddings,
# overrides and isolates that can reorder what a reader sees (U+202A-202E, U+2066-2069), the line
# and paragraph separators that some tools treat as line breaks, and lone surrogates (undecodable
# bytes of a file name, which would make printing itself fail). A multi-line body (a step's
# instructions, an embedded file) keeps its line breaks and tabs; a one-line field escapes those two
# as well, with `str.replace` after this pattern. One pattern, not two: its class reaches past
# Latin-1, which the regex compiler expands into a 64 Ki map at import (every command, `--help`
# included; docs/performance.md).
# The part past C0, as a regex class body, is also what the JSON writer escapes (JSON escapes C0 itself).
UNSAFE_PAST_C0 = "\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
UNSAFE_MULTI_LINE = re.compile(f"[\x00-\x08\x0b-\x1f{UNSAFE_PAST_C0}]")

_SHORT = {"\r": "\\r"}  # a line break and a tab never match: a one-line field escapes them with str.replace


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    short = _SHORT.get(char)
    if short is not None:
        return short
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        return undecodable(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def undecodable(char: str) -> str:
    """The visible form of one lone surrogate: `\\xff` for the undecodable byte 0xff, else `\\udXXX`.

    On POSIX, Python reads the byte 0xNN of a file name that is not UTF-8 as U+DCNN
    (`surrogateescape`), so `\\xNN` names the very byte on disk (what `os.fsencode` gives back).
    """
    code = ord(char)
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def escape_undecodable(text: str) -> str:
    """Write every lone surrogate as `\\xNN` / `\\udXXX` text, so the string is valid Unicode.

    Every output format uses it: a lone surrogate is not valid UTF-8 raw, and escaped in JSON
    (`"\\udcff"`) strict parsers reject the whole document (serde_json) or replace it (Go, jq).
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")  # only a lone surrogate cannot be encoded
    except UnicodeEncodeError:
        return UNSAFE_MULTI_LINE.sub(_undecodable_only, text)
    return text


def _undecodable_only(match: re.Match[str]) -> str:
    char = match.group()
    return undecodable(char) if "\ud800" <= char <= "\udfff" else char


# In a repr(): `\\udcNN` (a lone surrogate written as an escape) after an even run of backslashes,
# so a name that holds a literal backslash followed by "udcff" is left as it is.
_REPR_SURROGATE = re.compile(r"(?<!\\)((?:\\\\)*)\\u(d[89a-f][0-9a-f]{2})")


def quoted(value: object) -> str:
    """`repr()` of a name or path for a message, an undecodable byte shown as `\\xNN` as everywhere else.

    `repr()` writes the byte 0xff of a folder name as `\\udcff`, which names no byte the user has;
    every other place (text, JSON, YAML) shows it as `\\xff`, what `ls -b` shows too.
    """
    text = repr(os.fspath(value) if isinstance(value, os.PathLike) else value)  # a Path as its text
    if "\\ud" not in text:
        return text
    return _REPR_SURROGATE.sub(lambda m: m.group(1) + undecodable(chr(int(m.group(2), 16))), text)


def escape_controls(value: object, *, multiline: bool = False) -> str:
    """Show control, bidi and undecodable characters as visible escapes, so printing can't drive a terminal.

    `multiline=False` (a name, a category, a path, a one-line message) escapes line breaks and tabs
    too, so one field is always one line; `multiline=True` keeps `\\n` and `\\t` for bodies that are
    legitimately several lines, and for a whole rendered page whose line breaks the layout put there.
    """
    text = UNSAFE_MULTI_LINE.sub(_escape, value if isinstance(value, str) else str(value))
    return text if multiline else text.replace("\n", "\\n").replace("\t", "\\t")


def has_unsafe(value: str) -> bool:
    """True when `value` holds a character `escape_controls` would escape on one line."""
    return "\n" in value or "\t" in value or UNSAFE_MULTI_LINE.search(value) is not None


# Keys whose strings are bodies of several lines in the documents the text layouts show: a
# workflow step's actions, an embedded resource's text and a sub-agent's prompt.
MULTI_LINE_KEYS = frozenset({"actions", "text", "prompt"})


def escape_data(data: Any, multiline_keys: frozenset[str] = MULTI_LINE_KEYS, *, _multiline: bool = False) -> Any:
    """Escape every string (keys too) of JSON-ready data before a text layout interpolates it.

    Strings directly under a key in `multiline_keys` (or items of a list there) keep their line
    breaks; numbers, booleans and None stay as they are so layouts can still format them.
    """
    if isinstance(data, dict):
        return {
            escape_controls(key): escape_data(value, multiline_keys, _multiline=str(key) in multiline_keys)
            for key, value in data.items()
        }
    if isinstance(data, (list, tuple)):
        return [escape_data(item, multiline_keys, _multiline=_multiline) for item in data]
    if data is None or isinstance(data, (bool, int, float)):
        return data
    return escape_controls(data, multiline=_multiline)


# How much of a value read from a file an error message echoes: a payload or a SKILL.md can hold a
# 4 MiB string, and a message is for a person (the file itself has the rest).
MAX_SHOWN = 200
# A whole error message or problem message, however it was built, is cut here as a last resort.
MAX_MESSAGE = 4000
ELLIPSIS = "\u2026"


def shown(value: object, limit: int = MAX_SHOWN) -> str:
    """A value from a file as an error message quotes it: `repr()`-style, at most `limit` characters of it.

    Longer text is cut, marked with an ellipsis and its length (`'aaa…' (5000 characters)`);
    control, bidi and undecodable characters are visible escapes, as `repr()` and `quoted` write them.
    """
    if isinstance(value, str):
        if len(value) <= limit:
            return escape_controls(quoted(value))
        return f"{escape_controls(quoted(value[:limit]))}{ELLIPSIS} ({len(value)} characters)"
    text = escape_controls(quoted(value))
    return text if len(text) <= limit else text[:limit] + ELLIPSIS


def shown_name(value: object, limit: int = MAX_SHOWN) -> str:
    """A key or name from a file as a message names it, unquoted: escaped and at most `limit` characters."""
    text = escape_controls(escape_undecodable(value if isinstance(value, str) else str(value)))
    return text if len(text) <= limit else text[:limit] + ELLIPSIS


def bounded_message(message: str) -> str:
    """The last-resort bound on an error message: controls escaped (line breaks kept), cut at `MAX_MESSAGE`."""
    text = escape_controls(escape_undecodable(message), multiline=True)
    if len(text) <= MAX_MESSAGE:
        return text
    return f"{text[:MAX_MESSAGE]}{ELLIPSIS} ({len(text) - MAX_MESSAGE} more characters)"
