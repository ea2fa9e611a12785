"""YAML the tool writes reads back the same under YAML 1.1 (PyYAML) and under the project's own loaders."""

from __future__ import annotations

import io
import math

import pytest
import yaml as pyyaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swarm_handoff import fastyaml
from swarm_handoff.payload.io import dump_payload, parse_payload_text
from swarm_handoff.yamlout import float_text, needs_quotes, portable_yaml

# Strings a YAML 1.1 or 1.2 reader would turn into something else when written plain.
TRICKY = [
    *[
        "y",
        "Y",
        "n",
        "N",
        "yes",
        "Yes",
        "YES",
        "no",
        "No",
        "NO",
        "on",
        "On",
        "ON",
        "off",
        "Off",
        "OFF",
        "true",
        "True",
        "TRUE",
        "false",
        "False",
        "FALSE",
    ],
    *[
        "~",
        "null",
        "Null",
        "NULL",
        "=",
        "<<",
        "!",
        "&",
        "*",
        "-",
        "?",
        ":",
        ",",
        "[",
        "]",
        "{",
        "}",
        "#",
        "|",
        ">",
        "@",
        "`",
        "%",
        "'",
    ],
    *[
        "1:20",
        "-1:20",
        "190:20:30",
        "1_000",
        "0b101",
        "0o17",
        "017",
        "0755",
        "0x1F",
        "+1",
        "-0",
        ".5",
        "1.",
        "1e3",
        "1.0e+3",
        "6.8523015e+5",
    ],
    *[".inf", "-.inf", "+.Inf", ".nan", ".NaN", "1:20.5", "685_230.15", "2026-01-01", "2001-12-14t21:59:43.10-05:00"],
    "2001-12-14 21:59:43.10 -5",
    "2026-02-04T19:30:00Z",
    "",
    " lead",
    "trail ",
    "a: b",
    "a #b",
    "line\nbreak",
    "tab\tinside",
    "cr\rinside",
    "nel\x85inside",
    "ls\u2028ps\u2029",
    "bom\ufeff",
    "nul\x00bel\x07",
    "del\x7f",
    "é ü 漢字 🙂",
]

numberish = st.from_regex(r"[-+]?[0-9._:eExXoObB]{1,10}", fullmatch=True)
dateish = st.from_regex(
    r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ][0-9]{1,2}:[0-9]{2}:[0-9]{2}(\.[0-9]*)?( ?(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?)?",
    fullmatch=True,
)
texts = st.one_of(st.sampled_from(TRICKY), numberish, dateish, st.text(max_size=30))
scalars = st.one_of(
    texts,
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False),
    st.booleans(),
    st.none(),
)
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(texts, inner, max_size=4)),
    max_leaves=25,
)


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(texts, documents, max_size=5))
def test_payload_yaml_reads_the_same_in_yaml_11_and_in_our_loaders(tmp_path_factory, data):
    payload = {"handoff": data}
    text = dump_payload(payload, tmp_path_factory.getbasetemp() / "p.yaml")
    assert text.startswith("handoff:")  # YAML, never the JSON fallback
    assert pyyaml.load(text, Loader=pyyaml.SafeLoader) == payload  # YAML 1.1
    assert parse_payload_text(text) == payload  # the payload loader (YAML 1.2, times as text)
    assert fastyaml.load(text) == payload  # discovery's loader


@settings(max_examples=50, deadline=None)
@given(st.dictionaries(texts, documents, max_size=5))
def test_every_portable_dumper_reads_the_same_in_yaml_11(data):
    for typ, pure in (("rt", True), ("safe", True), ("safe", False)):
        stream = io.StringIO()
        portable_yaml(typ, pure=pure).dump(data, stream)
        assert pyyaml.load(stream.getvalue(), Loader=pyyaml.SafeLoader) == data, (typ, pure, stream.getvalue())


@pytest.mark.parametrize("word", ["yes", "no", "on", "off", "y", "n", "1:20", "0755", "2026-01-01", "=", "<<", "~"])
def test_yaml_11_words_are_quoted(word):
    assert needs_quotes(word)
    text = dump_payload({"handoff": {"value": word}}, __import__("pathlib").Path("p.yaml"))
    assert f"'{word}'" in text
    assert pyyaml.safe_load(text)["handoff"]["value"] == word


@pytest.mark.parametrize("value", [1e16, 1e-5, -2.5e300, 0.1, -0.0, math.inf, -math.inf])
def test_floats_are_written_so_yaml_11_reads_a_float(value):
    assert pyyaml.safe_load(float_text(value)) == value
    assert isinstance(pyyaml.safe_load(float_text(value)), float)


def test_the_yaml_output_format_quotes_yaml_11_words():
    from swarm_handoff.builtin.formatters import YamlFormatter

    class Document:
        kind = "example"

        def to_data(self) -> dict[str, object]:
            return {"answers": ["yes", "no", "on", "1:20", "2026-01-01"], "off": 1e16, "n": None}

    text = YamlFormatter().render(Document())  # type: ignore[arg-type]
    assert pyyaml.safe_load(text) == Document().to_data()


def test_the_session_file_reads_the_same_in_yaml_11():
    from swarm_handoff.discovery import DiscoveryResult
    from swarm_handoff.records import SkillRecord
    from swarm_handoff.session import render_session

    record = SkillRecord(name="yes", scope="project", source="t", description="no", categories=("on", "1:20"))
    text = render_session(DiscoveryResult(workflows=(record,), scanned=1))
    [entry] = pyyaml.safe_load(text)["workflows"]
    assert fastyaml.load(text)["workflows"] == [entry]
    assert (entry["skill"], entry["description"], entry["categories"]) == ("yes", "no", ["on", "1:20"])
