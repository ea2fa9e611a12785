"""Every input parser has depth, size, number and tag limits that give a coded error, never a traceback."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swarm_handoff import fastyaml, jsonio
from swarm_handoff.payload.build3 import build_v3
from swarm_handoff.payload.io import dump_payload, load_payload_file, parse_payload_text
from swarm_handoff.payload.v2 import build_v2
from swarm_handoff.records import SkillRecord
from swarm_handoff.synthesis import SYNTHESIS_MAX_DEPTH, load_synthesis, parse_synthesis
from swarm_handoff.yamlio import MAX_DEPTH, LoadError, load_file, parse_yaml

TARGET = SkillRecord(name="lit-pm", scope="global", source="test", categories=("research",))
SYNTHESIS = parse_synthesis({"original_prompt": "Why?", "problem_type": "analytical", "synthesis_summary": "Because."})


def block_list(depth: int) -> str:
    """A block sequence `depth` levels deep under `field:` (`- - - leaf`: block nesting on one line)."""
    return "field:\n  " + "- " * depth + "leaf\n"


def payload_yaml(text: str) -> object:
    return parse_payload_text(text)


def payload_json(text: str) -> object:
    return parse_payload_text(text, json_text=True)


YAML_LOADERS = [fastyaml.load, parse_yaml, payload_yaml]


def code_of(load, text: str) -> str:
    with pytest.raises(LoadError) as caught:
        load(text)
    return caught.value.problem.code


@pytest.mark.parametrize("load", YAML_LOADERS)
def test_block_nesting_is_limited_like_flow_nesting(load):
    assert load(block_list(MAX_DEPTH - 1)) is not None  # the field plus MAX_DEPTH - 1 lists
    assert code_of(load, block_list(1000)) == "YAML_TOO_DEEP"


@pytest.mark.parametrize("load", YAML_LOADERS)
def test_aliases_cannot_nest_deeper_than_the_text(load):
    text = "a0: &a0 " + "[" * 60 + "]" * 60 + "\n"
    text += "".join(f"a{i}: &a{i} " + "[" * 30 + f"*a{i - 1}" + "]" * 30 + "\n" for i in range(1, 4))
    assert code_of(load, text) == "YAML_TOO_DEEP"


@pytest.mark.parametrize("load", YAML_LOADERS)
@pytest.mark.parametrize(
    "text",
    [
        "a: !!set {x, y}",
        "a: !!binary aGVsbG8=",
        "a: !!python/object/apply:os.system [echo hi]",
        "a: !!omap [{b: 1}]",
        "a: !local x",
        "a: !!timestamp 2026-01-01",
        "!!set\n? a\n",
    ],
)
def test_tags_outside_the_core_schema_are_refused(load, text):
    assert code_of(load, text) == "YAML_UNSAFE_TAG"


@pytest.mark.parametrize("load", YAML_LOADERS)
def test_core_tags_still_load(load):
    assert load("a: !!str 1\nb: !!int '2'\nc: !!map {d: !!seq [x]}")["a"] == "1"


@pytest.mark.parametrize("load", YAML_LOADERS)
@pytest.mark.parametrize("number", ["1" * 5000, "0x" + "f" * 2000, "-" + "9" * 101, "1." + "5" * 200])
def test_long_numbers_are_refused(load, number):
    assert code_of(load, f"a: {number}\n") == "NUMBER_TOO_LONG"


@pytest.mark.parametrize("load", YAML_LOADERS)
def test_long_quoted_digits_and_long_words_are_text(load):
    text = f"a: '{'1' * 5000}'\nb: {'1' * 150}x{'2' * 150}\n"
    assert load(text) == {"a": "1" * 5000, "b": "1" * 150 + "x" + "2" * 150}


def test_json_limits_are_coded_errors():
    assert code_of(payload_json, "[" * 900 + "]" * 900) == "JSON_TOO_DEEP"
    assert code_of(payload_json, '{"a": ' + "1" * 5000 + "}") == "NUMBER_TOO_LONG"
    assert code_of(payload_json, '{"a": 1.' + "1" * 5000 + "}") == "NUMBER_TOO_LONG"
    assert code_of(payload_json, '{"a": "\\ud800 ok", "b": [1,}') == "JSON_SYNTAX"
    assert payload_json('{"a": "[[[[{{{", "b": [[1]]}') == {"a": "[[[[{{{", "b": [[1]]}


def test_json_duplicate_keys_are_refused_with_the_key_and_line():
    text = "\n".join(
        [
            "{",
            ' "handoff": {',
            '  "target": {',
            '   "skill": "evil",',
            '   "x": {"skill": 1},',
            '   "skill": "good"',
            "}}}",
        ]
    )
    with pytest.raises(LoadError) as caught:
        payload_json(text)
    problem = caught.value.problem
    assert problem.code == "JSON_DUPLICATE_KEY"
    assert "'skill'" in problem.message
    assert problem.line == 6


def test_a_json_file_with_duplicate_keys_is_refused_by_every_json_loader(tmp_path):
    path = tmp_path / "registry.json"
    path.write_text('{"workflows": [], "workflows": [{"name": "x"}]}')
    with pytest.raises(LoadError) as caught:
        load_file(path)
    assert caught.value.problem.code == "JSON_DUPLICATE_KEY"
    with pytest.raises(LoadError):
        jsonio.loads(path.read_text())


def test_yaml_payload_keys_must_be_text():
    with pytest.raises(LoadError) as caught:
        payload_yaml("handoff:\n  1: a\n  '1': b\n")
    assert caught.value.problem.code == "KEY_NOT_TEXT"


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_deep_synthesis_is_refused_before_any_payload_exists(tmp_path, suffix):
    inner: object = "leaf"
    for _ in range(400):
        inner = {"k": inner}
    path = tmp_path / f"synthesis{suffix}"
    data = {"original_prompt": "Why?", "problem_type": "analytical", "insights": {"convergent": [inner]}}
    path.write_text(json.dumps(data))
    with pytest.raises(Exception) as caught:
        load_synthesis(path)
    assert getattr(caught.value, "code", None) == "VALIDATION_FAILED"
    assert caught.value.problems[0].code in ("YAML_TOO_DEEP", "JSON_TOO_DEEP")


def test_the_deepest_accepted_synthesis_gives_payloads_that_load_back(tmp_path):
    inner: object = "leaf"
    for _ in range(SYNTHESIS_MAX_DEPTH - 4):  # root, insights, convergent and the item itself
        inner = {"k": inner}
    path = tmp_path / "synthesis.json"
    path.write_text(
        json.dumps({"original_prompt": "Why?", "problem_type": "analytical", "insights": {"convergent": [inner]}})
    )
    synthesis = load_synthesis(path)
    (tmp_path / "perspectives").mkdir()
    for payload, name in (
        (build_v2(synthesis, TARGET, tmp_path), "p.yaml"),
        (build_v3(synthesis, TARGET, tmp_path).payload, "p.json"),
    ):
        out = tmp_path / name
        out.write_text(dump_payload(payload, out))
        assert load_payload_file(out) == payload


HOSTILE_PAYLOADS = {
    "set.yaml": "handoff: !!set {a, b}\n",
    "binary.yaml": "handoff:\n  version: '2.0'\n  blob: !!binary aGVsbG8=\n",
    "python.yaml": "handoff: !!python/object/apply:os.system [echo pwned]\n",
    "digits.yaml": "handoff:\n  version: '2.0'\n  n: " + "1" * 5000 + "\n",
    "hex.yaml": "handoff:\n  version: '2.0'\n  n: 0x" + "f" * 2000 + "\n",
    "digits.json": '{"handoff": {"version": "2.0", "n": ' + "1" * 5000 + "}}",
    "deep.json": '{"handoff": ' + "[" * 900 + "]" * 900 + "}",
    "deep.yaml": "handoff:\n  x:\n    " + "- " * 1000 + "leaf\n",
    "dup.json": '{"handoff": {"version": "2.0", "version": "3.0"}}',
}


@pytest.mark.parametrize("command", ["verify", "validate", "convert", "ack"])
@pytest.mark.parametrize("name", sorted(HOSTILE_PAYLOADS))
def test_hostile_payloads_are_invalid_payload_never_a_traceback(swarm_cli, swarm_host, tmp_path, command, name):
    path = tmp_path / name
    path.write_text(HOSTILE_PAYLOADS[name])
    extra = {"verify": [], "validate": [], "convert": ["--to", "3.0"], "ack": ["--status", "success"]}[command]
    result = swarm_cli(command, str(path), *extra, "--format", "json")
    assert result.exit_code == 1
    assert result.json()["error"]["code"] == "INVALID_PAYLOAD"


# Fragments that reach the parsers' corners: tags, anchors, deep brackets, long numbers, odd characters.
FRAGMENTS = st.sampled_from(
    [
        "a: ", "- ", "  ", "\n", "[", "]", "{", "}", ",", ":", "? ", "&x ", "*x", "!!set ", "!!binary ", "!!python/x ",
        "!t ", "'", '"', "#", "|", ">", "---\n", "...\n", "%YAML 1.1\n", "<<: ", "0x", "9" * 120, "1e999", ".inf",
        "\t", "\x85", "\u2028", "\ufeff", "\x00", "\\", "yes", "~", "{a: [", '{"a": ', '"a": 1, "a": 2',
    ]
)  # fmt: skip
HOSTILE_TEXT = st.one_of(st.text(max_size=200), st.lists(FRAGMENTS, max_size=60).map("".join))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HOSTILE_TEXT)
def test_no_text_makes_a_parser_raise_anything_but_a_coded_load_error(text):
    loaders = [
        lambda: fastyaml.load(text),
        lambda: parse_yaml(text),
        lambda: parse_payload_text(text),
        lambda: parse_payload_text(text, json_text=True),
        lambda: jsonio.loads(text),
    ]
    codes = []
    for load in loaders:
        try:
            load()
        except LoadError as exc:  # anything else fails the test with its traceback
            codes.append(exc.problem.code)
    assert all(code.isupper() for code in codes)


@pytest.mark.parametrize("text", ["? - a: \n", "? [a, {b: 1}]\n: 2\n", "? {a: 1}\n: 2\n"])
def test_a_mapping_inside_a_key_is_a_coded_load_error_in_every_yaml_loader(text):
    # ruamel.yaml's constructor raises a bare TypeError on `? - a:` (found by the property test below).
    for load in (lambda: parse_yaml(text), lambda: parse_payload_text(text)):
        with pytest.raises(LoadError) as caught:
            load()
        assert caught.value.problem.code in {"KEY_NOT_TEXT", "YAML_SYNTAX"}


def test_a_synthesis_with_a_non_text_key_is_refused_before_any_payload_exists(tmp_path):
    path = tmp_path / "synthesis.yaml"
    path.write_text(
        "original_prompt: Why?\nproblem_type: analytical\ninsights:\n  convergent:\n    - {1: one, '1': two}\n"
    )
    with pytest.raises(Exception) as caught:
        load_synthesis(path)
    assert getattr(caught.value, "code", None) == "VALIDATION_FAILED"
    assert caught.value.problems[0].code == "KEY_NOT_TEXT"


def test_the_json_depth_scan_is_linear_on_unterminated_strings():
    # 20,000 escaped quotes and a lone final backslash: a quadratic scan took over a minute on this.
    text = '"' + '\\"' * 20_000 + "\\"
    assert code_of(payload_json, text) == "JSON_SYNTAX"
