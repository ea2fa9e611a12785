"""The xml formatter: registered by name, well-formed, escaping every value (text is the core's)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swarm_handoff.api import Kind
from swarm_handoff_formatters.xml_formatter import XmlFormatter


class Doc:
    kind: ClassVar[str] = "sample"

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def to_data(self) -> dict[str, Any]:
        return self.data


def _value(element: ET.Element) -> str:
    text = element.text or ""
    return json.loads(text) if element.get("encoding") == "json" else text


def test_the_plugin_registers_xml_and_leaves_text_to_the_core(make_swarm_host):
    host = make_swarm_host(["formatters"])
    formatters = host.components(Kind.FORMATTER)
    assert formatters["xml"].distribution == "swarm-handoff-formatters"
    assert formatters["text"].distribution == "swarm-handoff-core"
    assert not host.failures  # no PLUGIN_NAME_CONFLICT over `text`


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


@pytest.mark.parametrize("fmt", ["text", "xml"])
def test_cli_uses_the_plugin_formats(make_swarm_host, swarm_cli, fmt):
    make_swarm_host(["formatters"])
    result = swarm_cli("plugins", "--format", fmt)
    assert result.exit_code == 0
    if fmt == "xml":
        assert ET.fromstring(result.stdout).get("kind") == "plugins"
    else:
        assert result.stdout.startswith("swarm-handoff-core ")
