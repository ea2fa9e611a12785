"""Which agent loads which copy of a skill (issue 26, point 4): a property of the scope, shown in every format.

Claude Code reads `.claude/skills` (the project, git-root and global scopes) and its plugins' skills;
Codex and the Agent Skills client guide read `.agents/skills`. swarm-handoff chooses the most local
*eligible* copy of a name, so it can choose an `.agents/skills` copy while Claude Code loads the
`.claude` one: the listing says so.
"""

from __future__ import annotations

import pytest

from swarm_handoff.api import Scope, ScopeSpec
from swarm_handoff.discovery import discover, make_context
from swarm_handoff.records import SkillRecord
from swarm_handoff.scopes import SCOPE_INVALID
from swarm_handoff.textviews.discovery import discovery_text

AGENTS_HERE = ScopeSpec("agents-here", 1.5, read_by=("codex", "agent-skills"))


@pytest.fixture(autouse=True)
def _scopes_as_they_were():
    """Scopes declared here are forgotten after each test: other tests list every declared scope."""
    from swarm_handoff import scopes

    before = dict(scopes._TABLE)
    yield
    scopes._TABLE.clear()
    scopes._TABLE.update(before)


@pytest.fixture
def add_source(register_source):
    """Return `add(name, *rows, scopes=())`: a source answering (skill, scope, description, eligible) rows."""

    def add(name, *rows, scopes=()):
        def records():  # made when the source runs: a scope it declares exists only then
            return [
                SkillRecord(
                    name=n,
                    scope=s,
                    source=name,
                    path=f"/{name}/{n}/SKILL.md",
                    description=d,
                    eligible=e,
                    accepts_from=("*",) if e else (),
                )
                for n, s, d, e in rows
            ]

        register_source(name, records, scopes=scopes)

    return add


def test_each_core_scope_says_which_agents_read_it():
    assert Scope.PROJECT.read_by == ("claude-code",)
    assert Scope.GIT_ROOT.read_by == ("claude-code",)
    assert Scope.GLOBAL.read_by == ("claude-code",)
    assert Scope.INSTALLED.read_by == ()  # packs reach folder-reading agents only through `skills link`
    assert Scope.REGISTRY.read_by == ()


def test_a_declared_scope_carries_its_readers_and_a_bad_one_is_refused(swarm_host, add_source, tmp_path):
    add_source("here", ("x", "agents-here", "x", True), scopes=(AGENTS_HERE,))
    add_source("bad", scopes=(ScopeSpec("bad-readers", 2.2, read_by=("Claude Code!",)),))
    discover(make_context(tmp_path, {"HOME": str(tmp_path)}), swarm_host, cache=False)
    assert Scope("agents-here").read_by == ("codex", "agent-skills")
    assert any(f.code == SCOPE_INVALID and "read_by" in f.error for f in swarm_host.failures)
    # the refusal spells the rule the check applies (the scope names' own): '_' is allowed too
    assert ScopeSpec("ok", 2.3, read_by=("my_agent",)).problem() is None
    why = ScopeSpec("bad", 2.3, read_by=("Claude Code!",)).problem() or ""
    assert "lower-case letters, digits, '-', '.' or '_'" in why


@pytest.fixture
def two_copies(swarm_host, add_source, tmp_path):
    """`review` in .claude (not a target: no hand-off metadata) and in .agents (a target); `plain` only in .claude."""
    add_source("claude", ("review", "project", "The team's review", False), ("plain", "project", "Plain", True))
    add_source("agents", ("review", "agents-here", "A validated review", True), scopes=(AGENTS_HERE,))
    return discover(make_context(tmp_path, {"HOME": str(tmp_path)}), swarm_host, show_all=True, cache=False)


def test_the_data_says_who_loads_each_copy_and_which_copy_another_agent_loads(two_copies):
    data = two_copies.to_data()
    workflows = {w["skill"]: w for w in data["workflows"]}
    review = workflows["review"]
    assert review["scope"] == "agents-here"
    assert review["agents"] == ["codex", "agent-skills"]
    assert review["agents_load_other"] == [
        {"agent": "claude-code", "scope": "project", "path": "/claude/review/SKILL.md", "eligible": False}
    ]
    assert workflows["plain"]["agents"] == ["claude-code"]
    assert workflows["plain"]["agents_load_other"] == []
    [skipped] = [r for r in data["ineligible"] if r["skill"] == "review"]
    assert skipped["agents"] == ["claude-code"]


def test_the_text_listing_shows_the_agents_and_the_other_copy(two_copies):
    lines = discovery_text(two_copies).splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("review  [agents-here"))
    assert lines[at + 1].endswith("[agents: Codex, Agent Skills clients]")
    assert (
        lines[at + 2] == "  Claude Code loads another copy: [project] /claude/review/SKILL.md (not a hand-off target)"
    )
    at = next(i for i, line in enumerate(lines) if line.startswith("plain  [project"))
    assert lines[at + 1].endswith("[agents: Claude Code]")


def test_identical_copies_are_not_reported(swarm_host, add_source, tmp_path):
    add_source("claude", ("same", "project", "Same", True))
    add_source("agents", ("same", "agents-here", "Same", True), scopes=(AGENTS_HERE,))
    result = discover(make_context(tmp_path, {"HOME": str(tmp_path)}), swarm_host, show_all=True, cache=False)
    [same] = result.to_data()["workflows"]
    assert same["agents"] == ["claude-code", "codex", "agent-skills"]  # the .agents copy they load says the same
    assert same["agents_load_other"] == []


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_the_fields_are_in_the_machine_formats(two_copies, fmt):
    from swarm_handoff.render import render

    text = render(two_copies, fmt)
    assert "agents_load_other" in text
    assert "claude-code" in text
