"""No per-document waste when discovery parses thousands of SKILL.md files, on either parser.

Pinned by counting (imports tried, objects the collector finds), never by timing: the C parser is
looked up once even when it is missing, the pure parser's objects are reused, and a parsed
document leaves nothing in reference cycles (which would grow peak memory with the tree's size).
"""

from __future__ import annotations

import gc
import importlib.abc
import sys

import pytest

from swarm_handoff import fastyaml, yamlevents, yamlio

DOC = (
    "name: review\ndescription: 'Review: a change'\nhandoff:\n  accepts_handoff: true\n"
    "  handoff_categories: [review, {kind: code}]\n  n: 12\nbase: &b {x: 1}\nagain: *b\n"
)


class _CountingFinder(importlib.abc.MetaPathFinder):
    """Fails every import of `_ruamel_yaml` (as on an install without the wheel) and counts the tries."""

    def __init__(self) -> None:
        self.tries = 0

    def find_spec(self, name, path=None, target=None):
        if name == "_ruamel_yaml":
            self.tries += 1
            raise ImportError("no C parser here")
        return


@pytest.fixture(params=["C", "pure"])
def parser(request, monkeypatch):
    if request.param == "pure":  # as on an install without the wheel: the import fails
        monkeypatch.setitem(sys.modules, "_ruamel_yaml", None)
        monkeypatch.setattr(yamlevents, "_c_parser", None)
    elif yamlevents.parser_name() != "C":
        pytest.skip("ruamel.yaml.clib is not installed")
    return request.param


def test_a_missing_c_parser_is_looked_up_once(monkeypatch):
    finder = _CountingFinder()
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    monkeypatch.delitem(sys.modules, "_ruamel_yaml", raising=False)
    monkeypatch.setattr(yamlevents, "_c_parser", yamlevents._UNSET)
    fastyaml.load(DOC)  # the first use may import more of ruamel.yaml, which looks for it too
    yamlio.check_events(DOC)
    first = finder.tries
    assert first >= 1
    for _ in range(20):
        assert fastyaml.load(DOC)["name"] == "review"
        yamlio.check_events(DOC)
    assert finder.tries == first
    assert yamlevents.parser_name() == "pure"


def test_the_pure_parser_is_reused_and_reset(monkeypatch):
    monkeypatch.setattr(yamlevents, "_c_parser", None)
    fastyaml.load(DOC)
    first = yamlevents._pure_yaml()
    for _ in range(10):
        fastyaml.load(DOC)
        yamlio.parse_yaml(DOC)
    assert yamlevents._pure_yaml() is first
    assert first.doc_infos == []  # nothing piles up on the reused instance
    assert yamlio._yaml().doc_infos == []


def test_a_failed_parse_leaves_the_reused_parser_usable(parser):
    with pytest.raises(yamlio.LoadError):
        fastyaml.load("a: [1, 2\nb: c\n")
    with pytest.raises(yamlio.LoadError):
        fastyaml.load("a: !!python/object x\n")
    assert fastyaml.load(DOC)["again"] == {"x": 1}


def _garbage_after(n: int, action) -> int:
    """Objects the collector finds unreachable (in cycles) after running `action` n times."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(n):
            action()
        return gc.collect()
    finally:
        if enabled:
            gc.enable()


@pytest.mark.parametrize("action", ["fastyaml", "check_events", "parse_yaml", "error"])
def test_no_reference_cycles_per_document(parser, action):
    def run() -> None:
        if action == "fastyaml":
            fastyaml.load(DOC)
        elif action == "check_events":
            yamlio.check_events(DOC)
        elif action == "parse_yaml":
            yamlio.parse_yaml(DOC)
        else:
            with pytest.raises(yamlio.LoadError):
                fastyaml.load("a: 1\na: 2\n")

    _garbage_after(3, run)  # first use: parser objects built once, imports done
    small, large = _garbage_after(10, run), _garbage_after(200, run)
    assert large <= small, f"{large} objects in cycles after 200 documents, {small} after 10"


def test_a_yaml_11_directive_does_not_stick_to_the_reused_parser(tmp_path):
    # ruamel's scanner keeps the last `%YAML` version it saw; a reused parser must forget it, or one
    # file saying `%YAML 1.1` changes how every later file on the thread reads.
    from swarm_handoff.payload.io import parse_payload_text

    later = "questions: [What breaks first?]\n"  # `?` inside a flow scalar is YAML 1.2 only
    yamlio.parse_yaml("%YAML 1.1\n---\nanswer: yes\n")
    assert yamlio.parse_yaml(later) == {"questions": ["What breaks first?"]}
    parse_payload_text("%YAML 1.1\n---\nanswer: yes\n")
    assert parse_payload_text(later) == {"questions": ["What breaks first?"]}
    yamlevents.feed_events("%YAML 1.1\n---\nanswer: yes\n", lambda event: None, pure=True)
    yamlio.check_events(later)  # the pure pre-scan reads it as 1.2 too
