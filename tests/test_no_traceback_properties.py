"""Property: no generated input makes any command print a traceback (issue 12, "how it is shown").

Hypothesis writes hostile SKILL.md frontmatter (random YAML-ish text, deep nesting, control
characters, odd types, huge numbers, `!!python/object`, `!!set`, anchors and aliases) and hostile
synthesis and payload files, then runs the real CLI in-process through `main()` with every
default plugin. Whatever the input, a command must end with exit status 0, 1 or 2, print no
Python traceback, and never fall back to INTERNAL_ERROR (which means an exception nobody
expected: a bug, reported politely but a bug all the same). Machine formats must still be one
parsable document.

The families the issue names (huge numbers, deep nesting, unsafe tags, alias bombs) are also
pinned one by one below, for every payload command.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from swarm_handoff.cli.entry import main

# Anchors reused on purpose (alias bombs, generated YAML) make ruamel warn; the warnings are noise here.
pytestmark = pytest.mark.filterwarnings("ignore::ruamel.yaml.error.ReusedAnchorWarning")

PLUGINS = ["frontmatter", "registry", "formatters", "qr"]
FORMATS = ["text", "json", "yaml", "xml"]
SETTINGS = settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)

GOOD_SYNTHESIS = (
    "original_prompt: Should we move?\n"
    "reframed_challenge: Decide whether to move now.\n"
    "problem_type: decision\n"
    "synthesis_summary: They agree on the cost and split on timing.\n"
    "convergence_level: low\n"
    "key_uncertainties: [volume]\n"
)
GOOD_SKILL = (
    "---\nname: target\ndescription: A good target.\nhandoff:\n  accepts_handoff: true\n"
    "  handoff_categories: [research]\n  handoff_description: Hand it over.\n---\n# target\n"
)


def run_cli(*argv: str) -> tuple[int, str, str]:
    """Run `swarm-handoff ARGV` in-process; any exception but SystemExit escapes (and fails the test)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(argv))
            code: Any = 0
        except SystemExit as exit_:
            code = exit_.code
    status = code if isinstance(code, int) else (0 if code is None else 1)
    return status, out.getvalue(), err.getvalue()


def check(argv: tuple[str, ...], fmt: str = "text") -> tuple[int, str, str]:
    """Run a command and assert the property: a known exit status, no traceback, no INTERNAL_ERROR."""
    status, out, err = run_cli(*argv)
    assert status in (0, 1, 2), (argv, status, out, err)
    assert "Traceback" not in out + err, (argv, out, err)
    assert "INTERNAL_ERROR" not in out + err, (argv, out, err)
    if out and status != 2:  # usage errors are click's text; everything else is one document
        if fmt == "json":
            json.loads(out)
        elif fmt == "xml":
            ET.fromstring(out)
        elif fmt == "yaml":
            YAML(typ="safe").load(out)
    return status, out, err


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_swarm_host: Any) -> Path:
    """A project folder as the working directory, a private user folder, no caches, every default plugin."""
    home = tmp_path / "home"
    home.mkdir()
    for name, value in {
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "SWARM_HANDOFF_NO_CACHE": "1",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("SWARM_HANDOFF_DEBUG", raising=False)
    make_swarm_host(PLUGINS, packs=[])
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


def write_skills(root: Path, frontmatter: str, folder: str = "hostile") -> Path:
    """Replace the project's skills with the good target and one skill holding `frontmatter`."""
    skills = root / ".claude" / "skills"
    shutil.rmtree(skills, ignore_errors=True)
    (skills / "target").mkdir(parents=True)
    (skills / "target" / "SKILL.md").write_text(GOOD_SKILL, encoding="utf-8")
    (skills / folder).mkdir()
    path = skills / folder / "SKILL.md"
    path.write_text(f"---\n{frontmatter}\n---\n# body\n", encoding="utf-8", errors="surrogateescape")
    return path


# --- strategies -----------------------------------------------------------------------------------

CONTROL = st.sampled_from(["\x1b]0;pwned\x07", "\x1b[2J", "\x00", "\x7f", "\x9b", "\u202e", "\r", "\t", "\ufeff"])
WORDS = st.sampled_from(["research", "yes", "no", "~", "null", "1:20", "0o17", "2024-01-01", ".inf", "'", '"', "- x"])
YAML_BITS = st.sampled_from(
    [
        ": ",
        "- ",
        "\n",
        "\n  ",
        "{",
        "}",
        "[",
        "]",
        ",",
        "&a ",
        "*a",
        "!!set ",
        "!!python/object:os.system ",
        "!!binary ",
        "!!str ",
        "? ",
        "|\n  ",
        ">-\n  ",
        "'",
        '"',
        "#",
        "%YAML 1.1\n",
        "<<: *a\n",
        "---\n",
        "...\n",
        "\\",
        "\\e",
    ]
)
YAMLISH = st.lists(st.one_of(YAML_BITS, WORDS, CONTROL, st.text(max_size=5)), max_size=40).map("".join)
SCALAR_TEXT = st.one_of(
    st.just("plain"),
    WORDS,
    st.lists(st.one_of(CONTROL, st.text(max_size=8)), max_size=6).map("".join),
    st.integers(min_value=1, max_value=3000).map(lambda n: "9" * n),  # a number hundreds of digits long
    st.sampled_from(
        [
            "!!python/object:os.system ls",
            "!!python/object/apply:os.system [ls]",
            "!!set {a, b}",
            "!!binary aGVsbG8=",
            "!!timestamp 2024-01-01",
            "!!float nan",
            "&anchor [*anchor]",
            "[*undefined]",
            "{a: 1, a: 2}",
            "!custom 1",
            "!!omap [a: 1]",
        ]
    ),
)


def _scalar_yaml(value: str) -> str:
    """Quote text that is not meant as YAML syntax; keep tags, aliases and numbers raw."""
    if value[:1] in "!&[{*" or value.isdigit() or value in ("yes", "no", "~", "null", ".inf"):
        return value
    return json.dumps(value)  # a JSON string is a YAML double-quoted scalar: controls arrive as escapes


def _nested(depth: int, flow: bool) -> str:
    if flow:
        return "[" * depth + "x" + "]" * depth
    return "\n".join("  " * (i + 1) + "-" for i in range(depth)) + " x"


DEPTH = st.integers(min_value=1, max_value=60)  # deeper nesting is pinned by the families below
VALUE = st.one_of(
    SCALAR_TEXT.map(_scalar_yaml),
    st.builds(_nested, DEPTH, st.booleans()),
    st.lists(SCALAR_TEXT.map(_scalar_yaml), max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"),
)
FIELDS = st.sampled_from(
    [
        "name",
        "description",
        "handoff",
        "accepts_handoff",
        "handoff_categories",
        "handoff_description",
        "trigger",
        "health_check",
        "priority",
        "protocol_version",
        "requires",
        "accepts_from",
        "metadata",
    ]
)


def _frontmatter(pairs: list[tuple[str, str]], in_handoff: bool) -> str:
    lines = []
    for key, value in pairs:
        body = value if value.startswith("\n") else f" {value}"
        lines.append(f"{key}:{body}")
    if not in_handoff:
        return "\n".join(lines)
    inner = "\n".join("  " + line.replace("\n", "\n  ") for line in lines)
    return f"name: hostile\ndescription: d\nhandoff:\n  accepts_handoff: true\n{inner}"


STRUCTURED = st.builds(
    _frontmatter,
    st.lists(st.tuples(FIELDS, VALUE.map(lambda v: v if not v.startswith("  ") else "\n" + v)), max_size=6),
    st.booleans(),
)
FRONTMATTER = st.one_of(YAMLISH, STRUCTURED)
FOLDER = st.one_of(
    st.just("hostile"), st.sampled_from(["nl\nname", "esc\x1b[2Jname", "rlo\u202ename", "tab\tname", "-dash"])
)


# --- skill-facing commands ------------------------------------------------------------------------


@SETTINGS
@given(frontmatter=FRONTMATTER, folder=FOLDER, fmt=st.sampled_from(FORMATS), show_all=st.booleans())
def test_discover_survives_any_frontmatter(project: Path, frontmatter: str, folder: str, fmt: str, show_all: bool):
    write_skills(project, frontmatter, folder)
    check(("discover", "--format", fmt, *(["--all"] if show_all else [])), fmt)


@SETTINGS
@given(frontmatter=FRONTMATTER, folder=FOLDER, fmt=st.sampled_from(FORMATS))
def test_why_survives_any_frontmatter(project: Path, frontmatter: str, folder: str, fmt: str):
    write_skills(project, frontmatter, folder)
    check(("why", folder, "--format", fmt), fmt)


@SETTINGS
@given(frontmatter=FRONTMATTER, fmt=st.sampled_from(FORMATS))
def test_lint_survives_any_frontmatter(project: Path, frontmatter: str, fmt: str):
    path = write_skills(project, frontmatter)
    check(("lint", str(path), "--format", fmt), fmt)


@SETTINGS
@given(frontmatter=FRONTMATTER, fmt=st.sampled_from(FORMATS))
def test_rank_survives_any_frontmatter(project: Path, frontmatter: str, fmt: str):
    write_skills(project, frontmatter)
    synthesis = project / "synthesis.yaml"
    synthesis.write_text(GOOD_SYNTHESIS, encoding="utf-8")
    check(("rank", "--synthesis", str(synthesis), "--format", fmt, "--explain"), fmt)


@SETTINGS
@given(frontmatter=FRONTMATTER, fmt=st.sampled_from(FORMATS), schema=st.sampled_from(["2.0", "3.0"]))
def test_handoff_to_a_hostile_skill_survives(project: Path, frontmatter: str, fmt: str, schema: str):
    write_skills(project, frontmatter)
    synthesis = project / "synthesis.yaml"
    synthesis.write_text(GOOD_SYNTHESIS, encoding="utf-8")
    session = project / "session"
    shutil.rmtree(session, ignore_errors=True)
    session.mkdir()
    check(
        (
            "handoff",
            "hostile",
            "--synthesis",
            str(synthesis),
            "--session",
            str(session),
            "--schema",
            schema,
            "--yes",
            "--format",
            fmt,
        ),
        fmt,
    )


# --- synthesis and payload files ------------------------------------------------------------------

PAYLOAD_KEYS = st.sampled_from(
    [
        "version",
        "handoff",
        "meta",
        "target",
        "skill",
        "integrity",
        "payload_hash",
        "sha256",
        "created_at",
        "expires_at",
        "synthesis",
        "problem_type",
        "chain",
        "context",
        "original_prompt",
        "insights",
    ]
)
LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.sampled_from(["2.0", "3.0", "\x1b]0;pwned\x07", "yes", "1:20"]),
)
JSONISH = st.recursive(
    LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.one_of(PAYLOAD_KEYS, st.text(max_size=6)), inner, max_size=5)
    ),
    max_leaves=25,
)


def _as_file(data: Any, kind: str) -> str:
    if kind == "json":
        return json.dumps(data)
    stream = io.StringIO()
    yaml = YAML(typ="safe", pure=True)
    yaml.dump(data, stream)
    return stream.getvalue()


DOCUMENT = st.one_of(
    st.tuples(st.sampled_from(["yaml", "json"]), JSONISH).map(lambda p: (p[0], _as_file(p[1], p[0]))),
    st.tuples(st.just("yaml"), YAMLISH),
    st.tuples(st.just("json"), st.text(alphabet='{}[]",:0123456789.-eE tfnul\\\x1b', max_size=60)),
    st.tuples(
        st.just("yaml"),
        st.builds(lambda pairs: _frontmatter(pairs, False), st.lists(st.tuples(PAYLOAD_KEYS, VALUE), max_size=6)),
    ),
)


def write_document(root: Path, name: str, document: tuple[str, str]) -> Path:
    kind, text = document
    path = root / f"{name}.{kind}"
    path.write_text(text, encoding="utf-8", errors="surrogateescape")
    return path


@SETTINGS
@given(document=DOCUMENT, fmt=st.sampled_from(FORMATS))
def test_rank_survives_any_synthesis(project: Path, document: tuple[str, str], fmt: str):
    write_skills(project, "name: other\ndescription: d")
    check(("rank", "--synthesis", str(write_document(project, "synthesis", document)), "--format", fmt), fmt)


@SETTINGS
@given(document=DOCUMENT, fmt=st.sampled_from(FORMATS))
def test_handoff_survives_any_synthesis(project: Path, document: tuple[str, str], fmt: str):
    write_skills(project, "name: other\ndescription: d")
    session = project / "session"
    shutil.rmtree(session, ignore_errors=True)
    session.mkdir()
    synthesis = write_document(project, "synthesis", document)
    check(
        ("handoff", "target", "--synthesis", str(synthesis), "--session", str(session), "--yes", "--format", fmt), fmt
    )


@pytest.mark.parametrize(
    "command",
    [
        ("verify",),
        ("validate",),
        ("convert", "--to", "3.0"),
        ("convert", "--to", "2.0"),
        ("ack", "--status", "received"),
    ],
    ids=["verify", "validate", "convert-3", "convert-2", "ack"],
)
def test_payload_commands_survive_any_payload(project: Path, command: tuple[str, ...]):
    @SETTINGS
    @given(document=DOCUMENT, fmt=st.sampled_from(FORMATS))
    def prop(document: tuple[str, str], fmt: str) -> None:
        path = write_document(project, "handoff-payload", document)
        check((command[0], str(path), *command[1:], "--format", fmt), fmt)

    prop()


# --- the families the issue names, one by one -----------------------------------------------------


def _deep_block_list(depth: int) -> str:
    return "\n".join("  " * i + "-" for i in range(depth)) + " x"


def _deep_json(depth: int) -> str:
    return '{"handoff": ' + "[" * depth + "1" + "]" * depth + "}"


HUGE = "9" * 5000
PAYLOADS = {
    "huge-number-json": ("json", '{"handoff": {"version": "2.0", "n": ' + HUGE + "}}"),
    "huge-number-yaml": ("yaml", f"handoff:\n  version: '2.0'\n  n: {HUGE}\n"),
    "deep-json-900": ("json", _deep_json(900)),
    "deep-yaml-block-900": ("yaml", "handoff:\n" + _deep_block_list(900)),
    "set-tag": ("yaml", "handoff: !!set {a, b}\n"),
    "python-tag": ("yaml", "handoff: !!python/object/apply:os.system [echo pwned]\n"),
    "binary-tag": ("yaml", "handoff: !!binary aGVsbG8=\n"),
    "alias-bomb": (
        "yaml",
        "a: &a [x, x, x, x, x, x, x, x, x]\n"
        + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))
        + "handoff: *i\n",
    ),
}
PAYLOAD_COMMANDS = {
    "verify": ("verify",),
    "validate": ("validate",),
    "convert": ("convert", "--to", "3.0"),
    "ack": ("ack", "--status", "success"),
}


@pytest.mark.parametrize("command", list(PAYLOAD_COMMANDS))
@pytest.mark.parametrize("payload", list(PAYLOADS))
def test_payload_families_named_by_the_issue(project: Path, payload: str, command: str):
    path = write_document(project, "handoff-payload", PAYLOADS[payload])
    check((PAYLOAD_COMMANDS[command][0], str(path), *PAYLOAD_COMMANDS[command][1:], "--format", "json"), "json")


SYNTHESES = {
    "deep-400": ("yaml", GOOD_SYNTHESIS + "extra:\n" + _deep_block_list(400)),
    "deep-flow-400": ("yaml", GOOD_SYNTHESIS + "extra: " + "[" * 400 + "]" * 400),
    "deep-json-900": ("json", '{"problem_type": "research", "x": ' + "[" * 900 + "]" * 900 + "}"),
    "huge-number": ("yaml", GOOD_SYNTHESIS + f"perspectives: {HUGE}\n"),
    "set-tag": ("yaml", GOOD_SYNTHESIS + "extra: !!set {a, b}\n"),
}


@pytest.mark.parametrize("command", ["handoff", "rank"])
@pytest.mark.parametrize("synthesis", list(SYNTHESES))
def test_synthesis_families_named_by_the_issue(project: Path, synthesis: str, command: str):
    write_skills(project, "name: other\ndescription: d")
    path = write_document(project, "synthesis", SYNTHESES[synthesis])
    session = project / "session"
    session.mkdir(exist_ok=True)
    if command == "handoff":
        check(
            ("handoff", "target", "--synthesis", str(path), "--session", str(session), "--yes", "--format", "json"),
            "json",
        )
    else:
        check(("rank", "--synthesis", str(path), "--format", "json"), "json")


FRONTMATTERS = {
    "deep-block-list-1000": "name: deep\ndescription: d\nmetadata:\n  x:\n"
    + "\n".join("    " + "  " * i + "-" for i in range(1000))
    + " x",
    "deep-flow-1000": "name: deep\ndescription: d\nmetadata: " + "[" * 1000 + "]" * 1000,
    "compact-block-list-1000": "name: deep\ndescription: d\nmetadata:\n  " + "- " * 1000 + "x",
    "huge-number": f"name: deep\ndescription: d\nhandoff:\n  accepts_handoff: true\n  priority: {HUGE}",
    "python-tag": "name: deep\ndescription: !!python/object/apply:os.system [echo pwned]",
    "set-tag": "name: deep\ndescription: d\nhandoff: !!set {a, b}",
}


@pytest.mark.parametrize("frontmatter", list(FRONTMATTERS))
def test_frontmatter_families_named_by_the_issue(project: Path, frontmatter: str):
    path = write_skills(project, FRONTMATTERS[frontmatter], "deep")
    for fmt in FORMATS:
        check(("discover", "--all", "--format", fmt), fmt)
    check(("why", "deep", "--format", "json"), "json")
    check(("lint", str(path), "--format", "json"), "json")


# --- real payloads, one field made hostile ----------------------------------------------------------


def _handoff_payload(project: Path, schema: str) -> Path:
    """Hand off to the good target for real and return the payload written (the happy path works)."""
    write_skills(project, "name: other\ndescription: d")
    synthesis = project / "synthesis.yaml"
    synthesis.write_text(GOOD_SYNTHESIS, encoding="utf-8")
    session = project / f"session-{schema}"
    shutil.rmtree(session, ignore_errors=True)
    session.mkdir()
    status, out, err = check(
        ("handoff", "target", "--synthesis", str(synthesis), "--session", str(session), "--schema", schema)
        + (("--source", "perspective-swarm") if schema == "3.0" else ())
        + ("--yes", "--format", "json"),
        "json",
    )
    assert status == 0, (out, err)
    path = Path(json.loads(out)["payload_path"])
    assert check(("verify", str(path)))[0] == 0
    return path


HOSTILE_LEAF = st.one_of(
    LEAF,
    st.sampled_from([HUGE[:4000], "\x1b[2J", "../../etc/passwd", "", [], {}, [[[[]]]], {"": None}]),
    st.integers(min_value=1, max_value=3).map(lambda depth: _deep_structure(depth * 20)),
)


def _deep_structure(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = {"k": [value]}
    return value


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _paths(value, (*prefix, index))
    return found


def _replace(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, *rest = path
    data[head] = _replace(data[head], tuple(rest), value)
    return data


@pytest.mark.parametrize("schema", ["2.0", "3.0"])
def test_payload_commands_survive_a_real_payload_with_one_hostile_field(project: Path, schema: str):
    original = _handoff_payload(project, schema)
    text = original.read_text(encoding="utf-8")
    data = YAML(typ="safe", pure=True).load(text) if original.suffix != ".json" else json.loads(text)

    @SETTINGS
    @given(choice=st.data(), command=st.sampled_from(list(PAYLOAD_COMMANDS)), fmt=st.sampled_from(FORMATS))
    def prop(choice: st.DataObject, command: str, fmt: str) -> None:
        copy = json.loads(json.dumps(data, default=str))
        path = choice.draw(st.sampled_from(_paths(copy)))
        mutated = _replace(copy, path, choice.draw(HOSTILE_LEAF))
        target = original.with_name(f"mutated{original.suffix}")
        target.write_text(_as_file(mutated, "json" if original.suffix == ".json" else "yaml"), encoding="utf-8")
        for side in original.parent.glob("*.session.json"):  # a v3.0 side file follows its payload's name
            shutil.copy(side, target.with_name(side.name.replace(original.stem, target.stem)))
        check((PAYLOAD_COMMANDS[command][0], str(target), *PAYLOAD_COMMANDS[command][1:], "--format", fmt), fmt)

    prop()
