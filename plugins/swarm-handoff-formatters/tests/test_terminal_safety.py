"""The text layouts show control characters escaped; the XML keeps them exact and stays well formed."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swarm_handoff.api import UNSAFE_MULTI_LINE, SwarmError, render
from swarm_handoff_formatters.text import TextFormatter
from swarm_handoff_formatters.xml import XmlFormatter, decode_attribute, decode_text

OSC = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J"


class Doc:
    def __init__(self, kind: str, data: Any) -> None:
        self.kind = kind
        self.data = data

    def to_data(self) -> Any:
        return self.data


def _text(kind: str, data: Any) -> str:
    text = TextFormatter().render(Doc(kind, data))
    assert UNSAFE_MULTI_LINE.search(text) is None, text
    return text


def test_error_layout_escapes_message_problems_and_hint():
    data = {
        "error": {
            "code": "INVALID_PAYLOAD",
            "message": f"bad field {OSC}\nerror FAKE: forged",
            "hint": CLEAR,
            "problems": [{"code": "X", "message": "m\x9b1m", "path": "a\nb"}],
        }
    }
    text = _text("error", data)
    assert "bad field \\x1b]0;pwned\\x07\\nerror FAKE: forged" in text
    assert "hint: \\x1b[2J" in text
    assert "a\\nb: X: m\\x9b1m" in text
    assert len(text.splitlines()) == 3


def test_ranking_layout_escapes_description_categories_and_skill():
    entry = {
        "label": "A",
        "skill": "s\n(B) [x] forged",
        "description": OSC,
        "categories": [CLEAR],
        "score": 1.5,
        "scope": "project",
        "breakdown": [],
    }
    data = {"request": {"problem_type": "p"}, "scorer": "s", "shown": 1, "candidates": 1, "workflows": [entry]}
    text = _text("ranking", data)
    assert "(A) [\\x1b[2J] s\\n(B) [x] forged - \\x1b]0;pwned\\x07" in text


def test_workflow_step_actions_keep_line_breaks_but_lose_other_controls():
    data = {
        "workflow": "w",
        "index": 1,
        "total": 1,
        "title": f"t{CLEAR}",
        "actions": [f"first line\nsecond line {OSC}"],
        "resources": [{"name": "r", "source": "pack", "origin": "o", "text": "code\n\tindented\x1b[1m\n"}],
        "next": [],
        "routing": "terminal",
    }
    text = _text("workflow-step", data)
    assert "w: step 1 of 1: t\\x1b[2J" in text
    assert "  1. first line\n     second line \\x1b]0;pwned\\x07" in text
    assert "code\n\tindented\\x1b[1m\n" in text


def test_payload_summary_preview_is_one_line():
    data = {
        "path": "p\x1b",
        "size_bytes": 1,
        "sha256": "x",
        "sections": [{"name": "meta", "type": "mapping", "preview": "a\nb\x07"}],
    }
    text = _text("payload-summary", data)
    assert "a\\nb\\x07" in text
    assert "payload p\\x1b" in text


def test_documents_with_their_own_to_text_are_escaped_as_a_whole():
    class Own(Doc):
        def to_text(self) -> str:
            return f"layout line\n{self.data}\n"

    text = TextFormatter().render(Own("own", f"{OSC}{CLEAR}"))
    assert text == "layout line\n\\x1b]0;pwned\\x07\\x1b[2J\n"


@given(st.text())
def test_generic_text_never_holds_a_raw_control(value: str):
    _text("sample", {"field": value, value: [value, {"k": value}]})


@given(st.text())
def test_xml_stays_well_formed_exact_and_free_of_terminal_controls(value: str):
    out = XmlFormatter().render(Doc("error", {"error": {"code": value, "message": value, "hint": value}}))
    assert UNSAFE_MULTI_LINE.search(out) is None
    root = ET.fromstring(out)
    error = root.find("error")
    assert error is not None
    assert decode_attribute(error, "code") == value
    assert decode_text(error.find("message")) == value


def test_xml_writes_c1_and_bidi_controls_as_json():
    root = ET.fromstring(XmlFormatter().render(Doc("sample", {"d": "a\x9bb\u202ec"})))
    element = root.find("d")
    assert element is not None
    assert element.get("encoding") == "json"
    assert decode_text(element) == "a\x9bb\u202ec"


def _deep(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = {"k": value}
    return value


@pytest.mark.parametrize("fmt", ["xml", "text"])
def test_too_deep_a_document_is_a_coded_error_in_the_plugin_formats(make_swarm_host, fmt):
    host = make_swarm_host(["formatters"])
    with pytest.raises(SwarmError) as caught:
        render(Doc("sample", _deep(5000)), fmt, host)
    assert caught.value.code == "OUTPUT_TOO_DEEP"
