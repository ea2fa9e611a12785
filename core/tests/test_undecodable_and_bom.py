"""Issue 18: names that are not UTF-8 print as `\\xNN` text in every format; UTF-16/32 files are encoding errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from swarm_handoff.builtin.formatters import YamlFormatter
from swarm_handoff.jsonout import JsonFormatter
from swarm_handoff.metadata import record_from_frontmatter
from swarm_handoff.termsafe import escape_undecodable
from swarm_handoff.yamlio import LoadError, load_file, read_text
from swarm_handoff.yamlout import portable_yaml

BAD = b"bad\xffname".decode("utf-8", "surrogateescape")  # what os.listdir gives for the folder


class Doc:
    kind = "test"

    def __init__(self, data):
        self.data = data

    def to_data(self):
        return self.data


def test_an_undecodable_byte_is_its_backslash_x_escape_and_other_lone_surrogates_their_u_escape():
    assert escape_undecodable(BAD) == "bad\\xffname"
    assert escape_undecodable("x\ud800y\udc00") == "x\\ud800y\\udc00"  # not from a byte: no \x form
    assert escape_undecodable("plain ünï C:\\x") == "plain ünï C:\\x"


def test_json_output_is_strict_utf8_and_every_parser_reads_the_escaped_name():
    text = JsonFormatter().render(Doc({"skill": BAD, BAD: [BAD]}))
    text.encode("utf-8")  # strict: no lone surrogate, raw or escaped
    assert "\\ud" not in text
    assert "\\udcff" not in text
    assert json.loads(text) == {"skill": "bad\\xffname", "bad\\xffname": ["bad\\xffname"]}


def test_yaml_output_and_files_the_tool_writes_carry_the_escaped_name():
    text = YamlFormatter().render(Doc({"skill": BAD}))
    text.encode("utf-8")
    assert "bad\\xffname" in text
    import io

    stream = io.StringIO()
    portable_yaml("safe", pure=False).dump({"workflows": [{"skill": BAD}]}, stream)  # session file, payloads
    assert "bad\\xffname" in stream.getvalue()


def test_a_folder_name_that_is_not_utf8_names_a_skill_no_agent_can_take_a_hand_off():
    data = {
        "name": "bad",
        "handoff": {"accepts_handoff": True, "handoff_categories": ["r"], "handoff_description": "d"},
    }
    record = record_from_frontmatter(data, name=BAD, scope="project", source="t", path=None)
    assert not record.eligible
    [problem] = record.problems
    assert problem.code == "SKILL_NAME_NOT_UTF8"
    assert "bad\\xffname" in problem.message
    assert "rename the folder" in (problem.hint or "")
    assert record_from_frontmatter(data, name="café", scope="project", source="t", path=None).eligible


@pytest.mark.parametrize(
    ("encoding", "label"),
    [("utf-16", "UTF-16 LE"), ("utf-16-be", "UTF-16 BE"), ("utf-32", "UTF-32 LE"), ("utf-32-be", "UTF-32 BE")],
)
@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_utf16_and_utf32_input_files_are_encoding_errors_naming_the_encoding(tmp_path, encoding, label, suffix):
    # The registry file, payloads and workflow files share `read_text`: what PowerShell 5.1 writes.
    text = '{"workflows": []}' if suffix == ".json" else "workflows: []\n"
    raw = text.encode(encoding)
    if encoding.endswith("-be"):
        raw = ("\ufeff" + text).encode(encoding)
    path = tmp_path / f"handoff-registry{suffix}"
    path.write_bytes(raw)
    for read in (read_text, load_file):
        with pytest.raises(LoadError) as caught:
            read(path)
        problem = caught.value.problem
        assert problem.code == "NOT_UTF8"
        assert label in problem.message
        assert "UTF-8" in (problem.hint or "")


def test_a_utf8_bom_still_reads(tmp_path: Path):
    path = tmp_path / "w.yaml"
    path.write_bytes("\ufeffworkflows: []\n".encode())
    assert load_file(path) == {"workflows": []}
