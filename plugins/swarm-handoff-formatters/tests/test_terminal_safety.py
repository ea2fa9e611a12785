"""The XML keeps control characters exact and stays well formed; too deep a document is a coded error."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swarm_handoff.api import UNSAFE_MULTI_LINE, SwarmError, render
from swarm_handoff_formatters.xml import decode_attribute, decode_text
from swarm_handoff_formatters.xml_formatter import XmlFormatter

OSC = "\x1b]0;pwned\x07"


class Doc:
    def __init__(self, kind: str, data: Any) -> None:
        self.kind = kind
        self.data = data

    def to_data(self) -> Any:
        return self.data


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
