"""Terminal-safe text, deep documents and unexpected exceptions: what the core prints on its own.

The core's built-ins only (no formatters plugin): `--format text` is the core's fallback
rendering, which must be as terminal-safe as the plugin's.
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swarm_handoff.api import hookimpl
from swarm_handoff.builtin.formatters import YamlFormatter
from swarm_handoff.cli.entry import main
from swarm_handoff.errors import SwarmError
from swarm_handoff.jsonout import JsonFormatter
from swarm_handoff.render import render
from swarm_handoff.termsafe import escape_controls, escape_data, escape_undecodable, has_unsafe, undecodable
from swarm_handoff.textviews import plain_text

OSC_TITLE = "\x1b]0;pwned\x07"
# What a terminal may act on in one field, written out here as the rule (C0, DEL, C1, line and
# paragraph separators, bidi embeddings, overrides and isolates, lone surrogates), so the module's
# own way of finding them is checked against it.
UNSAFE_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
UNSAFE_MULTI_LINE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
CLEAR = "\x1b[2J"


class Doc:
    kind: ClassVar[str] = "sample"

    def __init__(self, data: Any) -> None:
        self.data = data

    def to_data(self) -> Any:
        return self.data


def _deep(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (OSC_TITLE, "\\x1b]0;pwned\\x07"),
        (CLEAR, "\\x1b[2J"),
        ("a\nb\rc\td", "a\\nb\\rc\\td"),
        ("\x00\x7f\x85\x9b", "\\x00\\x7f\\x85\\x9b"),
        ("abc\u202edef\u2066\u2069", "abc\\u202edef\\u2066\\u2069"),
        ("line\u2028sep", "line\\u2028sep"),
        ("bad\udcffbyte", "bad\\xffbyte"),  # the undecodable byte 0xff of a file name
        ("lone\ud800", "lone\\ud800"),
        ("plain ünïcödé 日本 C:\\path", "plain ünïcödé 日本 C:\\path"),
    ],
)
def test_one_line_fields_show_every_control_escaped(raw, shown):
    assert escape_controls(raw) == shown


def _expected(char: str) -> str:
    """The visible escape of one unsafe character, as the rule states it."""
    code = ord(char)
    if char in "\n\r\t":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[char]
    if 0xD800 <= code <= 0xDFFF:
        return undecodable(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def test_every_character_of_the_basic_plane_is_escaped_exactly_as_the_rule_says():
    """Each of the 65,536 characters (and one beyond), alone and between letters, on one line and in a body."""
    for code in [*range(0x10000), 0x1F600]:
        char = chr(code)
        one = _expected(char) if UNSAFE_ONE_LINE.match(char) else char
        body = _expected(char) if UNSAFE_MULTI_LINE.match(char) else char
        assert escape_controls(f"a{char}b") == f"a{one}b", hex(code)
        assert escape_controls(f"a{char}b", multiline=True) == f"a{body}b", hex(code)
        assert has_unsafe(f"a{char}b") is (UNSAFE_ONE_LINE.match(char) is not None), hex(code)
        surrogate = 0xD800 <= code <= 0xDFFF
        assert escape_undecodable(f"\xe9{char}") == f"\xe9{undecodable(char) if surrogate else char}", hex(code)


@given(st.text())
def test_escaping_any_text_matches_the_rule_character_by_character(text):
    one = "".join(_expected(c) if UNSAFE_ONE_LINE.match(c) else c for c in text)
    body = "".join(_expected(c) if UNSAFE_MULTI_LINE.match(c) else c for c in text)
    assert escape_controls(text) == one
    assert escape_controls(text, multiline=True) == body
    assert has_unsafe(text) is (UNSAFE_ONE_LINE.search(text) is not None)
    assert escape_undecodable(text) == "".join(undecodable(c) if "\ud800" <= c <= "\udfff" else c for c in text)


def test_multi_line_bodies_keep_line_breaks_and_tabs_but_nothing_else():
    assert escape_controls("a\n\tb\x1b[31m\r\n", multiline=True) == "a\n\tb\\x1b[31m\\r\n"


@given(st.text())
def test_escaped_text_never_holds_an_unsafe_character_and_escaping_twice_changes_nothing(text):
    once = escape_controls(text)
    assert UNSAFE_ONE_LINE.search(once) is None
    assert escape_controls(once) == once
    assert "\n" not in once
    once.encode("utf-8")  # lone surrogates are gone: printing cannot fail


def test_escape_data_keeps_types_and_multi_line_keys():
    data = {"name\x1b": "x\ny", "actions": ["one\ntwo\x1b"], "n": 3, "ok": True, "none": None}
    assert escape_data(data) == {
        "name\\x1b": "x\\ny",
        "actions": ["one\ntwo\\x1b"],
        "n": 3,
        "ok": True,
        "none": None,
    }


def test_plain_text_escapes_values_and_keys_and_blocks_multi_line_strings():
    text = plain_text({"description": OSC_TITLE, CLEAR: "v", "body": "evil\nforged: line"})
    assert "\x1b" not in text
    assert "description: \\x1b]0;pwned\\x07" in text
    assert "\\x1b[2J: v" in text
    assert "body: |\n    evil\n    forged: line\n" in text  # the forged line stays inside its block


def test_core_text_fallback_is_terminal_safe(swarm_host):
    class WithText(Doc):
        def to_text(self) -> str:
            return f"name: {self.data}\n"

    assert render(WithText(OSC_TITLE), "text", swarm_host) == "name: \\x1b]0;pwned\\x07\n"
    assert "\x1b" not in render(Doc({"d": CLEAR}), "text", swarm_host)


def test_json_output_stays_exact_and_holds_no_raw_terminal_controls():
    data = {"a": OSC_TITLE, "b": "\x9b2J\x7f", "c": "ab\u202ecd", "d": "bad\udcff", "e": "l1\nl2"}
    text = JsonFormatter().render(Doc(data))
    assert json.loads(text) == {**data, "d": "bad\\xff"}  # an undecodable byte is the text `\xff`
    assert UNSAFE_ONE_LINE.search(text.replace("\n", "")) is None
    text.encode("utf-8")


@pytest.mark.parametrize("fmt", ["json", "yaml", "text"])
def test_a_document_deeper_than_any_formatter_can_walk_is_output_too_deep(swarm_host, fmt):
    with pytest.raises(SwarmError) as caught:
        render(Doc({"value": _deep(50_000)}), fmt, swarm_host)  # past every encoder's own limit, C ones included
    assert caught.value.code == "OUTPUT_TOO_DEEP"
    assert fmt in caught.value.message


def test_yaml_formatter_still_renders_reasonable_nesting():
    assert "bottom" in YamlFormatter().render(Doc({"value": _deep(50)}))


class _Boom:
    """A formatter that fails like a buggy plugin would."""

    def render(self, document: object) -> str:
        raise ValueError("formatter bug")


def _run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as caught:
        main(list(argv))
    out, err = capsys.readouterr()
    code = caught.value.code
    return (code if isinstance(code, int) else 0), out, err


def test_an_unexpected_exception_in_a_command_is_a_coded_internal_error(monkeypatch, capsys, swarm_host):
    import swarm_handoff.lint

    def crash(paths: object, **options: object) -> object:
        raise RuntimeError("lint bug \x1b[2J")

    monkeypatch.setattr(swarm_handoff.lint, "lint", crash)
    code, out, err = _run_main(capsys, "lint", "SKILL.md", "--format", "json")
    assert code == 1
    error = json.loads(out)["error"]
    assert error["code"] == "INTERNAL_ERROR"
    assert "RuntimeError" in error["message"]
    assert "report" in error["hint"]
    assert "Traceback" not in err

    code, out, err = _run_main(capsys, "lint", "SKILL.md")
    assert code == 1
    assert out == ""
    assert "INTERNAL_ERROR" in err
    assert "\x1b" not in err  # the exception's message is quoted escaped on stderr too
    assert "Traceback" not in err


def test_debug_variable_adds_the_traceback_on_stderr(monkeypatch, capsys, swarm_host):
    import swarm_handoff.lint

    monkeypatch.setattr(swarm_handoff.lint, "lint", lambda paths, **options: 1 / 0)
    monkeypatch.setenv("SWARM_HANDOFF_DEBUG", "1")
    code, out, err = _run_main(capsys, "lint", "SKILL.md", "--format", "json")
    assert code == 1
    assert json.loads(out)["error"]["code"] == "INTERNAL_ERROR"
    assert "Traceback" in err
    assert "ZeroDivisionError" in err


def test_an_exception_escaping_every_command_is_still_a_coded_document(monkeypatch, capsys, swarm_host):
    from swarm_handoff.cli import output

    def escaping(fmt: str, action: object) -> None:
        raise KeyError("escaped")

    monkeypatch.setattr(output, "run", escaping)  # the commands call it through the module
    monkeypatch.setattr("swarm_handoff.cli.operations_cli.run", escaping)  # the adapter runs every operation
    code, out, err = _run_main(capsys, "why", "x", "--format", "json")
    assert code == 1
    assert json.loads(out)["error"]["code"] == "INTERNAL_ERROR"
    assert "Traceback" not in err


def test_a_formatter_that_crashes_is_reported_on_stderr(register_plugin, capsys):
    class Plugin:
        @hookimpl
        def swarm_handoff_formatters(self, register: Any) -> None:
            register("boom", _Boom)

    assert register_plugin(Plugin(), "boom")
    code, out, err = _run_main(capsys, "plugins", "--format", "boom")
    assert code == 1
    assert out == ""
    assert "INTERNAL_ERROR" in err
    assert "formatter bug" in err
    assert "Traceback" not in err


def test_usage_errors_keep_exit_status_2(capsys, swarm_host):
    code, _, err = _run_main(capsys, "discover", "--no-such-option")
    assert code == 2
    assert "Traceback" not in err


def test_yaml_output_stays_loadable_with_lone_surrogates_and_escapes_controls():
    from ruamel.yaml import YAML

    text = YamlFormatter().render(Doc({"name\udcff": "bad\udcffbyte", "d": OSC_TITLE}))
    assert "\x1b" not in text
    assert YAML(typ="safe").load(text) == {"name\\xff": "bad\\xffbyte", "d": OSC_TITLE}


@pytest.mark.parametrize("fmt", ["json", "xml", "text"])
def test_a_stdout_that_cannot_encode_a_character_gets_escapes_the_format_reads_back(fmt):
    from swarm_handoff.cli.output import encodable

    value = "café 😀 日本"
    if fmt == "json":
        text = encodable(json.dumps({"d": value}, ensure_ascii=False), fmt, "ascii")
        assert json.loads(text) == {"d": value}
    elif fmt == "xml":
        import xml.etree.ElementTree as ET

        text = encodable(f"<d>{value}</d>", fmt, "ascii")
        assert ET.fromstring(text).text == value
    else:
        text = encodable(f"d: {value}\n", fmt, "ascii")
        assert text == "d: caf\\xe9 \\U0001f600 \\u65e5\\u672c\n"
    text.encode("ascii")
    assert encodable(value, fmt, "utf-8") == value
