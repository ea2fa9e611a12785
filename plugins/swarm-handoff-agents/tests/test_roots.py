"""Extra roots from swarm-handoff-roots.json: read in the scope each names; a bad entry costs only itself."""

from __future__ import annotations

import os

from swarm_handoff.api import discover, make_context
from swarm_handoff_agents.roots import ENV_ROOTS, MAX_ROOTS, ROOTS_FILE, ROOTS_INVALID


def run(world, **env):
    return discover(make_context(world["cwd"], {**world["env"], **env}), world["host"])


def test_roots_are_read_in_their_scopes(world, skill, jsonfile, tmp_path):
    skill(tmp_path / "team", "review", "team review")
    skill(world["home"] / "mine", "plan", "my plan")
    skill(world["config"] / "relative", "deploy", "relative deploy")
    roots = [
        {"path": str(tmp_path / "team")},
        {"path": "~/mine", "scope": "project"},
        {"path": "relative", "scope": "agents-global"},
        {"path": str(tmp_path / "absent")},
    ]
    jsonfile(world["config"] / ROOTS_FILE, {"version": 1, "roots": roots})
    result = run(world)
    assert {(r.name, r.scope.value) for r in result.workflows} == {
        ("review", "extra-roots"),
        ("plan", "project"),
        ("deploy", "agents-global"),
    }
    assert result.problems == ()
    assert run(world, SWARM_HANDOFF_AGENTS_SOURCES="none").workflows == ()


def test_a_root_shadows_by_its_scope(world, skill, jsonfile, tmp_path):
    skill(tmp_path / "team", "review", "team review")
    skill(world["config"] / "skills", "review", "global review")
    jsonfile(world["config"] / ROOTS_FILE, {"version": 1, "roots": [{"path": str(tmp_path / "team")}]})
    result = run(world)
    assert [(r.name, r.description) for r in result.workflows] == [("review", "global review")]
    assert [s.record.scope.value for s in result.shadowed] == ["extra-roots"]


def test_bad_entries_are_problems_and_the_rest_is_read(world, skill, jsonfile, tmp_path):
    skill(tmp_path / "team", "review")
    roots = [{"path": 3}, "text", {"path": str(tmp_path / "team"), "scope": "Nope"}, {"path": str(tmp_path / "team")}]
    jsonfile(world["config"] / ROOTS_FILE, {"version": 1, "roots": roots})
    result = run(world)
    assert [r.name for r in result.workflows] == ["review"]
    assert [p.code for p in result.problems] == [ROOTS_INVALID] * 3
    assert "roots[2]" in result.problems[2].message


def test_a_bad_file_and_too_many_roots(world, jsonfile, tmp_path):
    (world["config"] / ROOTS_FILE).write_text('{"roots": {}}')
    assert [p.code for p in run(world).problems] == [ROOTS_INVALID]
    roots = [{"path": str(tmp_path / f"r{i}")} for i in range(MAX_ROOTS + 5)]
    jsonfile(world["config"] / ROOTS_FILE, {"version": 1, "roots": roots})
    assert [p.code for p in run(world).problems] == [ROOTS_INVALID]


def test_editing_the_file_invalidates_the_cache(world, skill, jsonfile, tmp_path):
    skill(tmp_path / "a", "one")
    skill(tmp_path / "b", "two")
    jsonfile(world["config"] / ROOTS_FILE, {"version": 1, "roots": [{"path": str(tmp_path / "a")}]})
    assert [r.name for r in run(world).workflows] == ["one"]
    jsonfile(world["config"] / ROOTS_FILE, {"version": 1, "roots": [{"path": str(tmp_path / "b")}, {"path": "x"}]})
    assert [r.name for r in run(world).workflows] == ["two"]


def test_a_utf16_roots_file_is_not_utf8(world):
    from swarm_handoff.api import NOT_UTF8

    path = world["config"] / ROOTS_FILE
    path.write_bytes(b"\xff\xfe" + '{"version": 1, "roots": []}'.encode("utf-16-le"))
    assert [p.code for p in run(world).problems] == [NOT_UTF8]


def test_roots_named_for_one_command_need_no_file(world, skill, jsonfile, tmp_path, monkeypatch):
    """SWARM_HANDOFF_SKILL_ROOTS: folders of skill folders, as PATH separates them, before the file's roots."""
    skill(tmp_path / "shared", "review", "shared review")
    skill(world["home"] / "mine", "plan", "my plan")
    skill(world["cwd"] / "local", "deploy", "local deploy")
    skill(tmp_path / "team", "review", "team review")
    jsonfile(world["config"] / ROOTS_FILE, {"version": 1, "roots": [{"path": str(tmp_path / "team")}]})
    named = os.pathsep.join([str(tmp_path / "shared"), "~/mine", "", "local"])
    result = run(world, **{ENV_ROOTS: named})
    assert {(r.name, r.scope.value, r.description) for r in result.workflows} == {
        ("review", "extra-roots", "shared review"),  # the command's roots before the file's
        ("plan", "extra-roots", "my plan"),
        ("deploy", "extra-roots", "local deploy"),  # relative to the working directory
    }
    assert result.problems == ()
    assert {r.name for r in run(world).workflows} == {"review"}  # without the variable, the file's alone


def test_a_named_root_that_is_not_a_folder_is_a_problem_until_it_is_made(world, skill, tmp_path):
    missing = tmp_path / "not-yet"
    result = run(world, **{ENV_ROOTS: str(missing)})
    assert result.workflows == ()
    assert [p.code for p in result.problems] == [ROOTS_INVALID]
    assert ENV_ROOTS in result.problems[0].message
    assert str(missing) in result.problems[0].message
    skill(missing, "review", "made later")  # the stored answer of the first run must not hide it
    again = run(world, **{ENV_ROOTS: str(missing)})
    assert [r.name for r in again.workflows] == ["review"]
    assert again.problems == ()


def test_too_many_named_roots_are_cut_with_a_problem(world, tmp_path):
    named = os.pathsep.join(str(tmp_path / f"r{i}") for i in range(MAX_ROOTS + 3))
    problems = run(world, **{ENV_ROOTS: named}).problems
    assert problems[0].code == ROOTS_INVALID
    assert f"the first {MAX_ROOTS}" in problems[0].message
    assert len(problems) == 1 + MAX_ROOTS  # and each of the first MAX_ROOTS is absent
