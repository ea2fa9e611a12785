"""`SWARM_HANDOFF_JSON_INDENT`: a value it cannot use is ignored like any other junk, never a crash."""

from __future__ import annotations

import json

import pytest

from swarm_handoff.jsonout import ENV_JSON_INDENT, MAX_JSON_INDENT, json_text

DATA = {"skills": [{"name": "a"}]}


@pytest.mark.parametrize("setting", ["0", "2", "4", str(MAX_JSON_INDENT)])
def test_an_indent_in_range_is_used(monkeypatch, setting):
    monkeypatch.setenv(ENV_JSON_INDENT, setting)
    indent = int(setting)
    expected = json.dumps(DATA, indent=indent or None, separators=None if indent else (",", ":"))
    assert json_text(DATA) == expected + "\n"


@pytest.mark.parametrize(
    "setting",
    [
        "²",  # a digit to str.isdigit, not to int()
        "٣",  # an Arabic-Indic three: int() reads it, the option says N spaces in ASCII digits
        "9" * 30,  # past what an index can hold
        "9" * 5000,  # past the digits int() converts
        str(MAX_JSON_INDENT + 1),  # an output many times the data's size
        "-2",
        "two",
    ],
)
def test_an_indent_it_cannot_use_is_ignored(monkeypatch, setting):
    monkeypatch.setenv(ENV_JSON_INDENT, setting)
    text = json_text(DATA)  # pytest captures stdout: not a terminal, so the default is compact
    assert text == json.dumps(DATA, separators=(",", ":")) + "\n"
