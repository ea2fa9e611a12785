"""Skills of enabled Claude Code plugins: named plugin:skill, and hostile JSON files never crash discovery."""

from __future__ import annotations

import pytest

from swarm_handoff.api import NOT_A_REGULAR_FILE, NOT_UTF8, discover, make_context
from swarm_handoff_agents.claude_plugins import (
    PLUGIN_NAME_UNSAFE,
    PLUGIN_PATH_INVALID,
    PLUGINS_JSON_INVALID,
    SETTINGS_JSON_INVALID,
)
from swarm_handoff_agents.common import MAX_JSON_BYTES


@pytest.fixture
def installed(world, skill, jsonfile):
    """Two installed plugins, `tools@market` (enabled) and `idle@market` (not), each with one skill."""
    config = world["config"]
    paths = {}
    for name in ("tools", "idle"):
        install = config / "plugins" / "cache" / "market" / name / "1.0.0"
        skill(install / "skills", "lint", f"{name} lint")
        paths[name] = install
    installs = {f"{n}@market": [{"scope": "user", "installPath": str(p), "version": "1.0.0"}] for n, p in paths.items()}
    world["installed"] = jsonfile(config / "plugins" / "installed_plugins.json", {"version": 2, "plugins": installs})
    world["settings"] = jsonfile(
        config / "settings.json", {"enabledPlugins": {"tools@market": True, "idle@market": False}}
    )
    world["paths"] = paths
    return world


def run(world, **env):
    return discover(make_context(world["cwd"], {**world["env"], **env}), world["host"])


def codes(result):
    return sorted(p.code for p in result.problems)


def test_enabled_plugins_skills_are_named_plugin_colon_skill(installed):
    result = run(installed)
    assert {(r.name, r.scope.value, r.description) for r in result.workflows} == {
        ("tools:lint", "claude-plugins", "tools lint")
    }
    assert result.problems == ()


def test_switched_off(installed):
    assert run(installed, SWARM_HANDOFF_AGENTS_SOURCES="agents-skills").workflows == ()


def test_enabling_a_plugin_invalidates_the_cache(installed, jsonfile):
    assert len(run(installed).workflows) == 1
    jsonfile(installed["settings"], {"enabledPlugins": {"tools@market": True, "idle@market": True}})
    assert {r.name for r in run(installed).workflows} == {"tools:lint", "idle:lint"}


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("{not json", PLUGINS_JSON_INVALID),
        ("[1, 2]", PLUGINS_JSON_INVALID),
        ('{"version": 1, "plugins": {}}', PLUGINS_JSON_INVALID),
        ('{"version": 2, "plugins": []}', PLUGINS_JSON_INVALID),
        ('{"version": 2, "plugins": {"tools@market": "x"}}', PLUGINS_JSON_INVALID),
        ('{"version": 2, "plugins": {"tools@market": [{"installPath": 7}]}}', PLUGINS_JSON_INVALID),
        ('{"version": 2, "plugins": {"tools@market": [{"installPath": "/etc"}]}}', PLUGIN_PATH_INVALID),
        ("[" * 100000 + "]" * 100000, PLUGINS_JSON_INVALID),
        ("\udcff", NOT_UTF8),  # an undecodable byte is an encoding problem, as in every other reader
    ],
)
def test_a_hostile_installed_plugins_file_is_a_coded_problem(installed, text, code):
    installed["installed"].write_text(text, errors="surrogateescape")
    result = run(installed)
    assert result.workflows == ()
    assert codes(result) == [code]
    assert all(p.hint for p in result.problems)


def test_an_oversized_file_is_not_read(installed):
    installed["installed"].write_text(" " * (MAX_JSON_BYTES + 1))
    assert codes(run(installed)) == [PLUGINS_JSON_INVALID]


def test_escaping_or_missing_install_paths_cost_only_that_plugin(installed, jsonfile, tmp_path):
    outside = tmp_path / "outside"
    (outside / "skills" / "evil").mkdir(parents=True)
    (outside / "skills" / "evil" / "SKILL.md").write_text("---\nname: evil\ndescription: x\n---\n")
    link = installed["config"] / "plugins" / "cache" / "link"
    link.symlink_to(outside)  # inside by its name, outside by where it leads
    plugins = {
        "tools@market": [{"installPath": str(installed["paths"]["tools"])}],
        "dotdot@market": [{"installPath": str(installed["config"] / "plugins" / ".." / ".." / "outside")}],
        "link@market": [{"installPath": str(link)}],
        "gone@market": [{"installPath": str(installed["config"] / "plugins" / "cache" / "gone")}],
        "../etc@market": [{"installPath": str(installed["paths"]["idle"])}],
    }
    jsonfile(installed["installed"], {"version": 2, "plugins": plugins})
    jsonfile(installed["settings"], {"enabledPlugins": dict.fromkeys(plugins, True)})
    result = run(installed)
    assert [r.name for r in result.workflows] == ["tools:lint"]
    assert codes(result) == [PLUGIN_NAME_UNSAFE] + [PLUGIN_PATH_INVALID] * 3


def test_an_unsafe_skill_folder_name_is_reported_not_used(installed, skill):
    skill(installed["paths"]["tools"] / "skills", "bad name")
    result = run(installed)
    assert {r.name for r in result.workflows} == {"tools:lint"}
    assert codes(result) == [PLUGIN_NAME_UNSAFE]


def test_an_unsafe_skill_folder_is_not_counted(installed, skill):
    # core/tests/test_skillwalk.py shows such a folder is never read (the walker's name_check)
    skill(installed["paths"]["tools"] / "skills", "bad name")
    (installed["paths"]["tools"] / "skills" / "no skill here").mkdir()  # no SKILL.md: never counted
    result = discover(make_context(installed["cwd"], installed["env"]), installed["host"], cache=False)
    assert {r.name for r in result.workflows} == {"tools:lint"}
    assert codes(result) == [PLUGIN_NAME_UNSAFE] * 2
    assert result.scanned == 1  # tools:lint alone


@pytest.mark.parametrize("text", ["{", '{"enabledPlugins": [1]}', '"x"'])
def test_a_hostile_settings_file_enables_nothing(installed, text):
    installed["settings"].write_text(text)
    result = run(installed)
    assert result.workflows == ()
    assert codes(result) == [SETTINGS_JSON_INVALID]


def test_why_points_at_the_plugin_install(installed):
    from swarm_handoff.api import explain

    context = make_context(installed["cwd"], installed["env"])
    text = str(explain("tools:lint", context, installed["host"]).to_data())
    assert str(installed["paths"]["tools"] / "skills" / "lint" / "SKILL.md") in text
    assert "no enabled, installed plugin named 'nope'" in str(explain("nope:x", context, installed["host"]).to_data())


def test_an_install_that_appears_later_is_seen(installed, skill, jsonfile):
    late = installed["config"] / "plugins" / "cache" / "market" / "late" / "1.0.0"
    plugins = {"late@market": [{"installPath": str(late)}]}
    jsonfile(installed["installed"], {"version": 2, "plugins": plugins})
    jsonfile(installed["settings"], {"enabledPlugins": {"late@market": True}})
    assert codes(run(installed)) == [PLUGIN_PATH_INVALID]
    skill(late / "skills", "deploy")
    result = run(installed)
    assert [r.name for r in result.workflows] == ["late:deploy"]
    assert result.problems == ()


@pytest.mark.parametrize(
    ("mark", "encoding"), [(b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"), (b"", "utf-32")]
)
@pytest.mark.parametrize("which", ["installed", "settings"])
def test_a_utf16_or_utf32_file_is_not_utf8_and_other_sources_go_on(installed, skill, which, mark, encoding):
    # What Windows PowerShell 5.1 writes: UTF-16 with a byte order mark, reported as the core reports it.
    path = installed[which]
    path.write_bytes(mark + path.read_text(encoding="utf-8").encode(encoding))  # "utf-32" writes its own mark
    skill(installed["repo"] / ".agents" / "skills", "review")
    result = run(installed)
    assert [r.name for r in result.workflows] == ["review"]  # the other sources are not stopped
    assert [(p.code, p.severity.value, p.path, p.line) for p in result.problems] == [
        (NOT_UTF8, "warning", str(path), 1)
    ]
    assert "byte order mark" in result.problems[0].message
    assert path.name in result.problems[0].hint


@pytest.mark.parametrize("which", ["installed", "settings"])
def test_a_utf8_byte_order_mark_is_read_like_everywhere_else(installed, which):
    path = installed[which]
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())  # Notepad's "UTF-8 with BOM"
    result = run(installed)
    assert [r.name for r in result.workflows] == ["tools:lint"]
    assert result.problems == ()


def test_a_folder_named_installed_plugins_json_is_not_a_regular_file(installed):
    installed["installed"].unlink()
    installed["installed"].mkdir()
    assert codes(run(installed)) == [NOT_A_REGULAR_FILE]


def test_a_skill_folder_that_is_not_utf8_is_named_with_backslash_x(installed):
    import os
    import sys

    if sys.platform in ("darwin", "win32"):
        pytest.skip("the file system stores names as Unicode: a byte that is not UTF-8 cannot be in one")
    skills = installed["paths"]["tools"] / "skills"
    folder = os.fsencode(skills) + b"/bad\xffname"
    os.mkdir(folder)
    with open(folder + b"/SKILL.md", "w", encoding="utf-8") as out:
        out.write("---\nname: bad\ndescription: x\n---\n")
    result = run(installed)
    assert {r.name for r in result.workflows} == {"tools:lint"}
    [problem] = result.problems
    assert problem.message == "skill folder 'bad\\xffname' of plugin 'tools' is skipped"
