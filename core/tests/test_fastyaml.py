"""The lean frontmatter constructor agrees with ruamel's safe loader, over the C and the pure parser."""

from __future__ import annotations

import io
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from swarm_handoff import fastyaml, yamlevents, yamlio
from swarm_handoff.skillmd import plain


@pytest.fixture(params=["C", "pure"])
def parser(request, monkeypatch):
    if request.param == "pure":
        # The C parser is looked up once per process: say it is missing, as a failed import would.
        monkeypatch.setattr(yamlevents, "_c_parser", None)
    elif yamlio.loader_kind() != "C":
        pytest.skip("ruamel.yaml.clib is not installed")
    return request.param


DOCUMENTS = [
    "a: 1\nb: 1.5\nc: -.inf\nf: 0x1F\ng: 0o17\nh: ~\ni:\nj: true\nk: 'true'\nl: 2026-01-01\nm: 1_000\nn: yes\n",
    "o: !!str 12\np: '3.0'\nq: 3.0\nr: [a, {b: c}]\ns: |\n  block\n  text\nt: >-\n  folded\n  text\n",
    "base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\nlist: &l [1, 2]\nagain: *l\n",
    "- 1\n- two\n",
    "",
    "just text",
]


@pytest.mark.parametrize("text", DOCUMENTS)
def test_same_data_as_the_safe_loader(parser, text):
    assert plain(fastyaml.load(text)) == plain(YAML(typ="safe", pure=True).load(text))


@pytest.mark.parametrize(
    ("text", "code", "line"),
    [("a: 1\na: 2\n", yamlio.YAML_DUPLICATE_KEY, 2), ("a: b: c\n", yamlio.YAML_SYNTAX, 1), ("a: *nope\n", None, 1)],
)
def test_errors_are_located(parser, text, code, line):
    with pytest.raises(yamlio.LoadError) as caught:
        fastyaml.load(text)
    assert caught.value.problem.line == line
    if code:
        assert caught.value.problem.code == code


def test_alias_bombs_count_expanded_values(parser):
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for prev, name in zip("abcdef", "bcdefg", strict=True):
        lines.append(f"{name}: &{name} [{', '.join(['*' + prev] * 10)}]")
    with pytest.raises(yamlio.LoadError) as caught:
        fastyaml.load("\n".join(lines))
    assert caught.value.problem.code == yamlio.YAML_TOO_MANY_NODES


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=True),
    st.text(max_size=20),
)
_DATA = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=20,
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(data=st.dictionaries(st.text(min_size=1, max_size=8), _DATA, max_size=6))
def test_agrees_with_ruamels_constructor_on_the_same_parser(data):
    # libyaml is stricter than ruamel's pure parser on odd text; fastyaml falls back to the pure
    # parser when the C one fails, so the reference is "the C loader, else the pure loader".
    stream = io.StringIO()
    YAML(typ="safe", pure=True).dump(data, stream)
    text = stream.getvalue()
    try:
        expected = ("ok", _normal(plain(YAML(typ="safe").load(text))))
    except Exception:
        try:
            expected = ("ok", _normal(plain(YAML(typ="safe", pure=True).load(text))))
        except Exception:
            expected = ("error",)
    try:
        got = ("ok", _normal(plain(fastyaml.load(text))))
    except yamlio.LoadError:
        got = ("error",)
    assert got == expected


def _normal(value):
    if isinstance(value, float) and math.isinf(value):
        return ("inf", value > 0)
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    return value


def test_documents_libyaml_rejects_get_the_pure_parsers_verdict():
    from swarm_handoff import fastyaml

    assert fastyaml.load("questions: [What breaks first?]\n") == {"questions": ["What breaks first?"]}


def test_deep_flow_nesting_is_refused_with_its_line():
    from swarm_handoff import fastyaml

    with pytest.raises(yamlio.LoadError) as caught:
        fastyaml.load("name: x\ndescription: " + "{a: " * 300 + "1" + "}" * 300 + "\n")
    assert (caught.value.problem.code, caught.value.problem.line) == (yamlio.YAML_TOO_DEEP, 2)


def test_a_c_parser_misread_before_its_own_error_gets_the_pure_verdict(parser):
    # libyaml hands out `0` for the plain key `0?` (a duplicate of '0') before it fails on the `?`;
    # the pure parser reads the key as `0?`. The duplicate must not be reported: the pure verdict wins.
    assert fastyaml.load("{'0': null, 0?: null}\n") == {"0": None, "0?": None}
