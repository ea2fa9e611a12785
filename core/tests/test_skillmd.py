"""Reading SKILL.md frontmatter: delimiters, encodings, size caps and a located problem for each failure."""

from __future__ import annotations

import os
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarm_handoff import skillmd
from swarm_handoff.skillmd import load_skill_md


def write(tmp_path, text, name="SKILL.md"):
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    return str(path)


def only_problem(front):
    assert front.data is None
    [problem] = front.problems
    assert problem.hint
    return problem


def test_plain_frontmatter_reads_and_the_body_is_ignored(tmp_path):
    front = load_skill_md(write(tmp_path, "---\nname: a\ndescription: b\n---\nbody: [not yaml\n"))
    assert front.data == {"name": "a", "description": "b"}
    assert front.problems == ()


def test_bom_and_crlf_read_as_if_absent(tmp_path):
    plain = load_skill_md(write(tmp_path, "---\nname: a\nlist:\n  - x\n---\n", "a.md"))
    odd = load_skill_md(write(tmp_path, "\ufeff---\r\nname: a\r\nlist:\r\n  - x\r\n---\r\n", "b.md"))
    assert odd == plain


def test_a_dash_line_inside_a_value_is_not_a_delimiter(tmp_path):
    text = "---\ndescription: before --- after\nnote: |\n  ---\n  still the note\n---\nbody\n"
    front = load_skill_md(write(tmp_path, text))
    assert front.data == {"description": "before --- after", "note": "---\nstill the note\n"}


def test_unquoted_colon_is_named_with_line_column_and_hint(tmp_path):
    problem = only_problem(load_skill_md(write(tmp_path, "---\nname: a\ndescription: Use when: you must\n---\n")))
    assert problem.code == skillmd.SKILL_UNQUOTED_COLON
    assert (problem.line, problem.column) == (3, 22)
    assert "most common" in problem.hint


def test_tab_indentation_is_named_at_its_line(tmp_path):
    problem = only_problem(load_skill_md(write(tmp_path, "---\nname: a\nhandoff:\n\taccepts_handoff: true\n---\n")))
    assert problem.code == skillmd.SKILL_TAB_INDENT
    assert (problem.line, problem.column) == (4, 1)


def test_duplicate_keys(tmp_path):
    problem = only_problem(load_skill_md(write(tmp_path, "---\nname: a\nname: b\n---\n")))
    assert problem.code == skillmd.YAML_DUPLICATE_KEY
    assert problem.line == 3


def test_flow_value_followed_by_text_gets_a_quoting_hint(tmp_path):
    problem = only_problem(load_skill_md(write(tmp_path, "---\nname: a\nhint: [task] [mode]\nx: 1\n---\n")))
    assert problem.code == skillmd.YAML_SYNTAX
    assert "quote" in problem.hint


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("# Title\nno frontmatter\n", skillmd.SKILL_NO_FRONTMATTER),
        ("", skillmd.SKILL_NO_FRONTMATTER),
        ("---\nname: a\n", skillmd.SKILL_UNCLOSED_FRONTMATTER),
        ("---\n- a\n- b\n---\n", skillmd.SKILL_NOT_MAPPING),
    ],
)
def test_structural_failures(tmp_path, text, code):
    assert only_problem(load_skill_md(write(tmp_path, text))).code == code


def test_not_utf8_names_the_line(tmp_path):
    problem = only_problem(load_skill_md(write(tmp_path, b"---\nname: a\ndescription: caf\xe9\n---\n")))
    assert problem.code == skillmd.NOT_UTF8
    assert problem.line == 3


def test_alias_bomb_is_refused(tmp_path):
    lines = ["---", "a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for prev, name in zip("abcdef", "bcdefg", strict=True):
        lines.append(f"{name}: &{name} [{', '.join(['*' + prev] * 10)}]")
    problem = only_problem(load_skill_md(write(tmp_path, "\n".join([*lines, "---", ""]))))
    assert problem.code == skillmd.YAML_TOO_MANY_NODES


def test_a_huge_file_reads_only_its_frontmatter(tmp_path, monkeypatch):
    path = write(tmp_path, "---\nname: a\n---\n" + "x" * (8 * 1024 * 1024))
    read_sizes = []
    real_open = open

    def spy(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        original = handle.read

        def read(n=-1):
            data = original(n)
            read_sizes.append(len(data))
            return data

        handle.read = read
        return handle

    monkeypatch.setattr("builtins.open", spy)
    front = load_skill_md(path)
    assert front.data == {"name": "a"}
    assert sum(read_sizes) <= 64 * 1024


def test_frontmatter_without_an_end_in_a_huge_file_stops_at_the_cap(tmp_path):
    path = write(tmp_path, "---\nname: a\n" + "k: v\n" * 400_000)
    problem = only_problem(load_skill_md(path, limit=64 * 1024))
    assert problem.code == skillmd.SKILL_FRONTMATTER_TOO_LARGE


def test_closing_delimiter_across_a_chunk_boundary(tmp_path):
    pad = "p: " + "y" * (skillmd._CHUNK - 9) + "\n"  # the closing '---' starts right at the chunk end
    front = load_skill_md(write(tmp_path, "---\n" + pad + "---x: 1\n---\n"))
    assert front.data is not None
    assert front.data["---x"] == 1


def test_unreadable_broken_link_loop_and_folder(tmp_path, monkeypatch):
    (tmp_path / "dir.md").mkdir()
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling.md")
    os.symlink(tmp_path / "loop2.md", tmp_path / "loop1.md")
    os.symlink(tmp_path / "loop1.md", tmp_path / "loop2.md")
    codes = {
        name: only_problem(load_skill_md(str(tmp_path / name))).code for name in ("dir.md", "dangling.md", "loop1.md")
    }
    assert codes == {
        "dir.md": skillmd.SKILL_NOT_A_FILE,
        "dangling.md": skillmd.SKILL_BROKEN_SYMLINK,
        "loop1.md": skillmd.SKILL_SYMLINK_LOOP,
    }
    path = write(tmp_path, "---\nname: a\n---\n")

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "open", denied)  # the reader opens with os.open (O_NONBLOCK), not open()
    assert only_problem(load_skill_md(path)).code == skillmd.UNREADABLE


def test_dates_become_text_so_cached_and_fresh_reads_agree(tmp_path):
    front = load_skill_md(write(tmp_path, "---\nlast_updated: 2026-01-29\nversion: 1.2\n---\n"))
    assert front.data == {"last_updated": "2026-01-29", "version": 1.2}


_TEXT = st.text(alphabet=string.ascii_letters + string.digits + " :-#'\"[]{}é,.", min_size=1, max_size=60)


@settings(max_examples=60, deadline=None)
@given(description=_TEXT, crlf=st.booleans(), bom=st.booleans())
def test_any_quoted_description_survives_line_endings_and_bom(tmp_path_factory, description, crlf, bom):
    escaped = description.replace("\\", "\\\\").replace('"', '\\"')
    text = f'---\nname: s\ndescription: "{escaped}"\n---\nbody\n'
    if crlf:
        text = text.replace("\n", "\r\n")
    raw = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    path = tmp_path_factory.mktemp("p") / "SKILL.md"
    path.write_bytes(raw)
    assert load_skill_md(str(path)).data == {"name": "s", "description": description}
