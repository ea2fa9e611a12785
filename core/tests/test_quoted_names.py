"""Messages quote names and paths with `quoted`: an undecodable byte reads `\\xNN` there as in every output.

`repr()` of a folder named with the byte 0xff shows `\\udcff`, a character the user's disk does
not hold; the text, JSON and YAML outputs show `\\xff` (see test_undecodable_and_bom.py).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from swarm_handoff.api import lint, quoted
from swarm_handoff.payload.handoff_checks import not_found

RAW = b"bad\xffname"


@pytest.fixture
def bad_folder(tmp_path: Path) -> Path:
    """A real folder whose name is not UTF-8, named as `os.listdir` names it."""
    if sys.platform in ("darwin", "win32"):
        pytest.skip("the file system stores names as Unicode: a byte that is not UTF-8 cannot be in one")
    os.mkdir(os.fsencode(tmp_path) + b"/" + RAW)
    [name] = os.listdir(tmp_path)
    return tmp_path / name


def test_quoted_is_repr_with_undecodable_bytes_as_backslash_x() -> None:
    name = os.fsdecode(RAW)
    assert repr(name) == "'bad\\udcffname'"  # what the messages showed
    assert quoted(name) == "'bad\\xffname'"
    assert quoted("x\ud800y") == "'x\\ud800y'"  # not from a byte: no \x form, as escape_undecodable
    assert quoted("a\\udcff") == repr("a\\udcff")  # a literal backslash and 'udcff' is text, not a byte
    assert quoted("a\\" + name) == "'a\\\\bad\\xffname'"
    assert quoted(Path("/p") / name) == "'/p/bad\\xffname'"
    assert quoted("it's") == repr("it's")
    assert quoted(5) == "5"


def test_lint_names_the_folder_as_every_output_does(bad_folder: Path) -> None:
    (bad_folder / "SKILL.md").write_text("---\nname: bad\ndescription: A skill.\n---\n", encoding="utf-8")
    messages = [p.message for record in lint([bad_folder]).files for p in record.problems]
    assert "name 'bad' differs from its folder 'bad\\xffname'" in messages
    assert not [m for m in messages if "\\udc" in m]


def test_a_hand_off_to_the_folder_name_says_it_with_backslash_x(bad_folder: Path) -> None:
    error = not_found(bad_folder.name, ["good"], [])
    assert "no skill named 'bad\\xffname' accepts a hand-off here" in error.message


def test_an_unknown_component_name_from_the_command_line_shows_its_byte_as_xnn():
    import os

    from swarm_handoff.components import Kind
    from swarm_handoff.errors import SwarmError
    from swarm_handoff.plugins import get_host

    name = os.fsdecode(b"bad\xffname")  # what Python makes of a non-UTF-8 argument
    with pytest.raises(SwarmError) as raised:
        get_host().get(Kind.FORMATTER, name)
    assert "'bad\\xffname'" in raised.value.message
    assert "\\udc" not in raised.value.message
