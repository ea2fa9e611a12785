"""Extra roots from swarm-handoff-roots.json: read in the scope each names; a bad entry costs only itself."""

from __future__ import annotations

from swarm_handoff.api import discover, make_context
from swarm_handoff_agents.roots import MAX_ROOTS, ROOTS_FILE, ROOTS_INVALID


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
