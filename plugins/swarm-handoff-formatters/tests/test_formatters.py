"""The text and xml formatters: registered by name, well-formed, escaping every value."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swarm_handoff.api import ErrorCode, Kind, Problem, SwarmError
from swarm_handoff_formatters.text import TextFormatter
from swarm_handoff_formatters.xml import XmlFormatter


class Doc:
    kind: ClassVar[str] = "sample"

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def to_data(self) -> dict[str, Any]:
        return self.data


def _value(element: ET.Element) -> str:
    text = element.text or ""
    return json.loads(text) if element.get("encoding") == "json" else text


def test_both_formats_are_registered_by_the_installed_plugin(make_swarm_host):
    host = make_swarm_host(["formatters"])
    formatters = host.components(Kind.FORMATTER)
    assert formatters["xml"].distribution == "swarm-handoff-formatters"
    assert formatters["text"].plugin == "formatters"


def test_xml_escapes_markup_in_values_and_keys():
    doc = Doc({"description": "<script>&\"'</script>]]>", "weird key <x>": "v", "xmlns": "n"})
    root = ET.fromstring(XmlFormatter().render(doc))
    assert root.get("kind") == "sample"
    assert root.find("description").text == "<script>&\"'</script>]]>"
    entries = {e.get("key"): e.text for e in root.findall("entry")}
    assert entries == {"weird key <x>": "v", "xmlns": "n"}


def test_xml_lists_none_and_booleans():
    root = ET.fromstring(XmlFormatter().render(Doc({"items": ["a", "b"], "none": None, "flag": True, "empty": []})))
    assert [i.text for i in root.find("items")] == ["a", "b"]
    assert root.find("none").get("null") == "true"
    assert root.find("flag").text == "true"
    assert list(root.find("empty")) == []


@given(st.text(), st.text())
def test_xml_parses_and_round_trips_any_text(key: str, value: str):
    root = ET.fromstring(XmlFormatter().render(Doc({"field": value, "nested": {key: value}})))
    assert _value(root.find("field")) == value
    [child] = list(root.find("nested"))
    assert _value(child) == value
    if child.tag == "entry":
        raw = child.get("key")
        assert (json.loads(raw) if child.get("key-encoding") == "json" else raw) == key
    else:
        assert child.tag == key


def test_text_renders_the_error_document_with_location_and_fix():
    error = SwarmError(
        ErrorCode.INVALID_PAYLOAD,
        "not a payload",
        hint="pass a YAML mapping",
        problems=(Problem("YAML_SYNTAX", "bad", path="p.yaml", line=3, column=4, hint="quote it"),),
    )
    text = TextFormatter().render(error.to_document())
    assert text.splitlines() == [
        "error INVALID_PAYLOAD: not a payload",
        "  p.yaml:3:4: YAML_SYNTAX: bad",
        "    fix: quote it",
        "hint: pass a YAML mapping",
    ]


def test_text_renders_the_plugins_report(make_swarm_host):
    text = TextFormatter().render(make_swarm_host(["formatters"]).report())
    assert "formatters  (swarm-handoff-formatters 0.1.0)" in text
    assert "  formatter xml - well-formed XML for agents; every value escaped" in text


@pytest.mark.parametrize("fmt", ["text", "xml"])
def test_cli_uses_the_plugin_formats(make_swarm_host, swarm_cli, fmt):
    make_swarm_host(["formatters"])
    result = swarm_cli("plugins", "--format", fmt)
    assert result.exit_code == 0
    if fmt == "xml":
        assert ET.fromstring(result.stdout).get("kind") == "plugins"
    else:
        assert result.stdout.startswith("swarm-handoff-core ")
